/**
 * Opt-out for anyone (server/src/removal/opt-out-service.ts): without an account, a person
 * asks for a link to their address, sees how many records hold it per data well (no values)
 * and removes them all, for good. The answer to a request never tells whether the address is
 * in the data.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../support/harness';
import { call, callV2, freshIp } from '../support/helpers';

let server: TestServer;
let apiKey: string;

const MINE = [
  { email: 'opt.me@example.com', username: 'optme', password: 'Opt-Out-Secret-1' },
  { email: 'OPT.ME@example.com', username: 'optme2', password: 'Opt-Out-Secret-2' },
];
const OTHER_WELL = [{ email: 'opt.me@example.com', name: 'Opt Me', phone: '15550111' }];
const NEIGHBOUR = [{ email: 'neighbour@example.com', username: 'neighbour', password: 'Opt-Out-Secret-1' }];

before(async () => {
  // Each test's client address comes from X-Forwarded-For (freshIp), so throttles are per test.
  server = await startTestServer({ env: { TRUSTED_PROXIES: '127.0.0.1' } });
  await server.ingest('Opt Forum', [...MINE, ...NEIGHBOUR]);
  await server.ingest('Opt Shop', OTHER_WELL);
  apiKey = (await server.createUser({ searchDays: 30, searchCredits: 100, apiKey: true })).apiKey!;
});
after(() => server.close());

const post = (path: string, body: unknown, ip = freshIp()) => call(server.url, 'POST', path, { body, ip });
const total = async (query: string) => (await callV2(server, apiKey, { query })).body.total as number;

async function linkFor(email: string): Promise<string> {
  const mail = await server.waitForMail(email, /see and remove your entries/);
  const link = new URL(mail.links[0]!);
  assert.equal(link.pathname, '/opt-out');
  return link.searchParams.get('t')!;
}

test('one answer for every address; the link shows counts per well, removes them all once, for good', async () => {
  const unknown = await post('/privacy/opt-out', { email: 'nobody-here@example.com' });
  const known = await post('/privacy/opt-out', { email: ' Opt.Me@Example.com ' });
  assert.deepEqual([unknown.status, unknown.body], [200, { success: true }]);
  assert.deepEqual([known.status, known.body], [unknown.status, unknown.body], 'the answer tells nothing');
  const unknownLink = await linkFor('nobody-here@example.com');
  const preview0 = await post('/privacy/opt-out/preview', { t: unknownLink });
  assert.deepEqual(preview0.body, { email: 'nobody-here@example.com', total: 0, wells: [], truncated: false });

  const t = await linkFor('opt.me@example.com');
  assert.equal(await total('email:"opt.me@example.com"'), 3);
  const preview = await post('/privacy/opt-out/preview', { t });
  assert.equal(preview.status, 200);
  assert.deepEqual(preview.body, {
    email: 'opt.me@example.com',
    total: 3,
    wells: [
      { name: 'Opt Forum', records: 2 },
      { name: 'Opt Shop', records: 1 },
    ],
    truncated: false,
  });
  assert.doesNotMatch(JSON.stringify(preview.body), /Opt-Out-Secret|optme|15550111/, 'no values');
  assert.equal((await post('/privacy/opt-out/preview', { t })).status, 200, 'looking does not use the link up');

  const confirmed = await post('/privacy/opt-out/confirm', { t });
  assert.deepEqual([confirmed.status, confirmed.body], [200, { removed: 3, remaining: 0 }]);
  const again = await post('/privacy/opt-out/confirm', { t });
  assert.deepEqual([again.status, again.body], [400, { error: 'This link is invalid, used or expired. Ask for a new one.' }]);
  assert.equal((await post('/privacy/opt-out/preview', { t })).status, 400);
  const row = await server.runtime.db.selectFrom('one_time_tokens').select(['payload', 'used_at']).where('purpose', '=', 'opt-out').where('used_at', 'is not', null).execute();
  assert.ok(row.length === 1 && row[0]!.payload === null, 'a used link forgets its address');

  // Gone on every path: search by email, by username, by phone; the password check counts only the neighbour.
  assert.equal(await total('email:"opt.me@example.com"'), 0);
  assert.equal(await total('username:optme'), 0);
  assert.equal(await total('phone:15550111'), 0);
  assert.equal(await total('username:neighbour'), 1, 'other records stay');
  // Still gone when the same records are ingested again.
  await server.ingest('Opt Forum Reupload', MINE);
  assert.equal(await total('email:"opt.me@example.com"'), 0);
});

test('bad input and throttles', async () => {
  assert.deepEqual((await post('/privacy/opt-out', { email: 'not an email' })).body, { error: 'Enter a valid email address.' });
  assert.equal((await post('/privacy/opt-out', {})).status, 400);
  assert.equal((await post('/privacy/opt-out/preview', { t: 'x'.repeat(43) })).status, 400);
  assert.equal((await post('/privacy/opt-out/confirm', { t: '' })).status, 400);
  // Per client address: a burst of 10, then 429.
  const ip = freshIp();
  const statuses: number[] = [];
  for (let i = 0; i < 11; i++) statuses.push((await post('/privacy/opt-out', { email: `flood${i}@example.com` }, ip)).status);
  assert.deepEqual(statuses, [...Array(10).fill(200), 429]);
  // Per target address: at most 3 mails a day, the answer unchanged.
  for (let i = 0; i < 5; i++) assert.equal((await post('/privacy/opt-out', { email: 'often@example.com' })).status, 200);
  await server.waitForMail('often@example.com', /see and remove/);
  await new Promise((resolve) => setTimeout(resolve, 300));
  const mails = await server.runtime.db.selectFrom('outbox').select('id').where('to_address', '=', 'often@example.com').execute();
  assert.equal(mails.length, 3);
});
