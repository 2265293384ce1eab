/**
 * POST /monitoring/domains/overview and its CSV: for a verified domain, the wells holding its
 * addresses with dates and kinds of data, distinct addresses exposed, the wells and records
 * of each kind of data; 403 for a domain the caller did not verify; CSV cells neutralised.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, signedIn, type TestServer } from '../support/harness';
import { call } from '../support/helpers';
import { markDomainVerified } from '../../src/monitoring/domain-verification-service';
import { OVERVIEW_NOT_VERIFIED, overviewCsv } from '../../src/monitoring/domain-overview';

let server: TestServer;
const DOMAIN = 'overview-acme.test';

before(async () => {
  server = await startTestServer();
  await server.ingest('OV Forum', [
    { email: `alice@${DOMAIN}`, password: 'pw-1' },
    { email: `ALICE@${DOMAIN}`, username: 'alice_ov' },
    { email: `bob@${DOMAIN}`, ip_address: '10.1.1.1' },
    { email: 'carol@other-ov.test', password: 'pw-2' },
  ]);
  await server.ingest('=Evil Well', [{ email: `dave@${DOMAIN}`, hashed_password: 'E10ADC3949BA59ABBE56E057F20F883E' }]);
  await server.ingest('OV Undated', [{ email: `erin@${DOMAIN}`, phone: '15550002222' }, { email: `alice@sub.${DOMAIN}` }]);
  const db = server.runtime.db;
  await db.updateTable('data_wells').set({ date: '2018-05-20' }).where('name', '=', 'OV Forum').execute();
  await db.updateTable('data_wells').set({ date: '2022-11-02' }).where('name', '=', '=Evil Well').execute();
  await db.updateTable('data_wells').set({ date: null }).where('name', '=', 'OV Undated').execute();
});
after(() => server.close());

const overview = (token: string, domain: string) => call(server.url, 'POST', '/monitoring/domains/overview', { token, body: { domain } });

async function csv(token: string, domain: string) {
  const response = await fetch(`${server.url}/monitoring/domains/overview/csv`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ domain }),
  });
  return { status: response.status, type: response.headers.get('content-type'), disposition: response.headers.get('content-disposition'), text: await response.text() };
}

const EXPECTED = {
  domain: DOMAIN,
  total: 5,
  wells: [
    { name: 'OV Forum', date: '2018-05-20', records: 3, data_types: ['Email', 'Username', 'Password', 'IP address'] },
    { name: '=Evil Well', date: '2022-11-02', records: 1, data_types: ['Email', 'Hashed password'] },
  ],
  undated: [{ name: 'OV Undated', date: null, records: 1, data_types: ['Email', 'Phone'] }],
  distinct_addresses: 4,
  data_kinds: [
    { kind: 'Email', wells: 3, records: 5 },
    { kind: 'IP address', wells: 1, records: 3 },
    { kind: 'Password', wells: 1, records: 3 },
    { kind: 'Username', wells: 1, records: 3 },
    { kind: 'Hashed password', wells: 1, records: 1 },
    { kind: 'Phone', wells: 1, records: 1 },
  ],
};

describe('domain overview', () => {
  test('a verified domain: wells with dates and kinds, distinct addresses, kinds with wells and records', async () => {
    const owner = await signedIn(server, { searchDays: 30 });
    await markDomainVerified(server.runtime.db, owner.id, DOMAIN);
    const reply = await overview(owner.token, ` ${DOMAIN.toUpperCase()} `);
    assert.equal(reply.status, 200);
    assert.deepEqual(reply.body, EXPECTED, 'alice in two cases is one address; a subdomain\'s address is not the domain\'s');
  });

  test('free accounts that verified the domain see the same numbers; a parent verification covers it', async () => {
    const free = await signedIn(server);
    await markDomainVerified(server.runtime.db, free.id, DOMAIN);
    assert.deepEqual((await overview(free.token, DOMAIN)).body, EXPECTED);
    const parent = await signedIn(server);
    await markDomainVerified(server.runtime.db, parent.id, 'acme.test');
    assert.equal((await overview(parent.token, `x.acme.test`)).status, 200);
  });

  test('an address in several wells and cases is one distinct address; a domain without matches answers zeros', async () => {
    await server.ingest('OV Repeat A', [{ email: 'x@repeat-ov.test' }, { email: 'X@Repeat-OV.test' }, { email: 'y@repeat-ov.test' }]);
    await server.ingest('OV Repeat B', [{ email: 'x@repeat-ov.test', password: 'p' }, { email: 'z@repeat-ov.test' }]);
    const owner = await signedIn(server);
    await markDomainVerified(server.runtime.db, owner.id, 'repeat-ov.test');
    await markDomainVerified(server.runtime.db, owner.id, 'nothing-ov.test');
    const reply = await overview(owner.token, 'repeat-ov.test');
    assert.equal(reply.body.total, 5);
    assert.equal(reply.body.distinct_addresses, 3);
    assert.deepEqual((await overview(owner.token, 'nothing-ov.test')).body, { domain: 'nothing-ov.test', total: 0, wells: [], undated: [], distinct_addresses: 0, data_kinds: [] });
  });

  test('403 for a domain the caller did not verify, 400 for no domain, 401 without a session', async () => {
    const stranger = await signedIn(server, { searchDays: 30 });
    const refused = await overview(stranger.token, DOMAIN);
    assert.equal(refused.status, 403);
    assert.equal(refused.body.error, OVERVIEW_NOT_VERIFIED);
    assert.equal((await csv(stranger.token, DOMAIN)).status, 403);
    assert.equal((await overview(stranger.token, 'not a domain')).status, 400);
    assert.equal((await call(server.url, 'POST', '/monitoring/domains/overview', { body: { domain: DOMAIN } })).status, 401);
  });

  test('the CSV holds the same numbers, every cell quoted and formulas neutralised', async () => {
    const owner = await signedIn(server, { searchDays: 30 });
    await markDomainVerified(server.runtime.db, owner.id, DOMAIN);
    const reply = await csv(owner.token, DOMAIN);
    assert.equal(reply.status, 200);
    assert.match(reply.type ?? '', /^text\/csv/);
    assert.equal(reply.disposition, `attachment; filename="domain-overview-${DOMAIN}.csv"`);
    const lines = reply.text.split('\r\n');
    assert.deepEqual(lines.slice(0, 3), [
      '"domain","distinct_addresses","records","wells"',
      `"${DOMAIN}","4","5","3"`,
      '',
    ]);
    assert.deepEqual(lines.slice(3, 7), [
      '"well","breach_date","records","data_types"',
      '"OV Forum","2018-05-20","3","Email; Username; Password; IP address"',
      `"'=Evil Well","2022-11-02","1","Email; Hashed password"`,
      '"OV Undated","","1","Email; Phone"',
    ]);
    assert.equal(lines[8], '"data_type","wells","records"');
    assert.equal(lines[9], '"Email","3","5"');
    assert.equal(reply.text, overviewCsv(EXPECTED as Parameters<typeof overviewCsv>[0]));
  });
});
