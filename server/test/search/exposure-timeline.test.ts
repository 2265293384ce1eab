/**
 * POST /search/timeline: the wells of an email, username, phone or domain search with their
 * breach dates, matching records and kinds of data (engine counts joined with the
 * catalogue), undated wells apart; one counted search; one-term queries for free accounts;
 * other tabs refused.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { packSearch } from '../../src/common/obfuscation';
import { eventually, startTestServer, signedIn, type TestServer } from '../support/harness';
import { call } from '../support/helpers';
import { TIMELINE_REFUSED } from '../../src/search/exposure-timeline';

let server: TestServer;
const ALICE = 'tl.alice@tl-example.test';

before(async () => {
  server = await startTestServer();
  await server.ingest('TL Forum', [
    { email: ALICE, password: 'pw-1' },
    { email: ALICE, username: 'tl_alice' },
    { email: 'bob@tl-example.test', ip_address: '10.9.8.7' },
  ]);
  await server.ingest('TL Shop', [{ email: ALICE, hashed_password: 'E10ADC3949BA59ABBE56E057F20F883E' }]);
  await server.ingest('TL Paste', [{ email: ALICE, phone: '15550001111' }]);
  await server.ingest('TL Elsewhere', [{ email: 'carol@else-tl.test', password: 'x' }]);
  const db = server.runtime.db;
  await db.updateTable('data_wells').set({ date: '2019-03-01' }).where('name', '=', 'TL Forum').execute();
  await db.updateTable('data_wells').set({ date: '2021-07-15' }).where('name', '=', 'TL Shop').execute();
  await db.updateTable('data_wells').set({ date: '2020-01-01' }).where('name', '=', 'TL Elsewhere').execute();
  await db.updateTable('data_wells').set({ date: null }).where('name', '=', 'TL Paste').execute();
});
after(() => server.close());

function timeline(token: string, query: string, type: string, options: Partial<{ wildcard: boolean; regex: boolean }> = {}) {
  return call(server.url, 'POST', '/search/timeline', {
    token,
    body: packSearch({ query, type, page: 1, regex: options.regex ?? false, wildcard: options.wildcard ?? false, deduplicate: true }),
  });
}

async function searchesCounted(userId: string): Promise<number> {
  const rows = await server.runtime.db.selectFrom('search_counts').select('searches').where('user_id', '=', userId).execute();
  return rows.reduce((sum, row) => sum + row.searches, 0);
}

const ALICE_TIMELINE = {
  total: 4,
  wells: [
    { name: 'TL Forum', date: '2019-03-01', records: 2, data_types: ['Email', 'Username', 'Password', 'IP address'] },
    { name: 'TL Shop', date: '2021-07-15', records: 1, data_types: ['Email', 'Hashed password'] },
  ],
  undated: [{ name: 'TL Paste', date: null, records: 1, data_types: ['Email', 'Phone'] }],
};

describe('POST /search/timeline', () => {
  test('an email search: matching records per well, dated wells by date, undated apart, kinds named', async () => {
    const subscriber = await signedIn(server, { searchDays: 30 });
    const reply = await timeline(subscriber.token, ALICE, 'email');
    assert.equal(reply.status, 200);
    assert.deepEqual(reply.body, ALICE_TIMELINE);
    await eventually(async () => (await searchesCounted(subscriber.id)) === 1, 15_000);
  });

  test('username, phone and domain searches; a query matching nothing answers empty lists', async () => {
    const { token } = await signedIn(server, { searchDays: 30 });
    const username = await timeline(token, 'tl_alice', 'username');
    assert.deepEqual(username.body.wells.map((w: { name: string; records: number }) => [w.name, w.records]), [['TL Forum', 1]]);
    const phone = await timeline(token, '15550001111', 'phone');
    assert.equal(phone.status, 200);
    assert.deepEqual(phone.body.wells, []);
    assert.deepEqual(phone.body.undated.map((w: { name: string }) => w.name), ['TL Paste']);
    const domain = await timeline(token, 'tl-example.test', 'domain_scan');
    assert.equal(domain.status, 200);
    assert.deepEqual(
      domain.body.wells.map((w: { name: string; records: number }) => [w.name, w.records]),
      [['TL Forum', 3], ['TL Shop', 1]],
    );
    assert.deepEqual(domain.body.undated.map((w: { name: string; records: number }) => [w.name, w.records]), [['TL Paste', 1]]);
    const none = await timeline(token, 'nobody@tl-example.test', 'email');
    assert.deepEqual(none.body, { total: 0, wells: [], undated: [] });
  });

  test('a free account gets the counts of a one-term query, and is refused anything more', async () => {
    const free = await signedIn(server);
    const reply = await timeline(free.token, ALICE, 'email');
    assert.equal(reply.status, 200);
    assert.deepEqual(reply.body, ALICE_TIMELINE, 'one exact term: the same counts as the search shows');
    const wildcard = await timeline(free.token, 'tl.alice*', 'email', { wildcard: true });
    assert.equal(wildcard.status, 403);
    assert.match(wildcard.body.error, /subscription/i);
    const subscriber = await signedIn(server, { searchDays: 30 });
    const wide = await timeline(subscriber.token, 'tl.alice*', 'email', { wildcard: true });
    assert.equal(wide.status, 200);
    assert.equal(wide.body.total, 4, 'a subscriber may widen the query');
  });

  test('other tabs and bad queries are refused with a clear 400; no session, 401', async () => {
    const { token } = await signedIn(server, { searchDays: 30 });
    for (const type of ['all', 'password', 'hashed_password', 'ip_address', 'name', 'address', 'vin']) {
      const reply = await timeline(token, 'pw-1-value', type);
      assert.equal(reply.status, 400, type);
      assert.equal(reply.body.error, TIMELINE_REFUSED, type);
    }
    assert.equal((await timeline(token, 'nope', 'bogus')).body.error, 'Unknown search type');
    assert.equal((await timeline(token, 'abc', 'email')).body.error, 'Query not long enough (minimum 4 characters)');
    assert.equal((await timeline(token, 'phone-number', 'phone')).body.error, 'Invalid Phone Format');
    const anonymous = await call(server.url, 'POST', '/search/timeline', { body: packSearch({ query: ALICE, type: 'email', page: 1, regex: false, wildcard: false, deduplicate: true }) });
    assert.equal(anonymous.status, 401);
  });
});
