/**
 * Opt-out for anyone (server/src/removal/opt-out-service.ts): without an account, a person
 * asks for a link to their address, sees how many records hold it per data well (no values)
 * and opts out: every record holding it is hidden, in the wells there are and in every well
 * ingested later, until the owner lifts it through the same mailed-link
 * flow. The answer to a request never tells whether the address is in the data.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startTestServer, type TestServer } from '../support/harness';
import { createHash } from 'node:crypto';
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

/** The opt-out link of the newest mail to `email`, once more than `after` have come. */
async function linkFor(email: string, after = 0): Promise<string> {
  const mail = await server.waitForMail(email, /see and remove your entries/, 10_000, after);
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
  assert.deepEqual(preview0.body, { email: 'nobody-here@example.com', total: 0, wells: [], truncated: false, opted_out: false, opted_out_since: null });

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
    opted_out: false,
    opted_out_since: null,
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

  // An opt-out is for good: a later breach with the address and other content is hidden too, from
  // search and from the password check, whatever the address's case.
  await server.ingest('Opt Later Breach', [{ email: 'Opt.Me@EXAMPLE.com', password: 'Later-Breach-Pw-7', address: '1 Main St, Springfield' }]);
  assert.equal(await total('email:"opt.me@example.com"'), 0);
  const laterHash = createHash('sha256').update('Later-Breach-Pw-7').digest('hex');
  const check = await callV2(server, apiKey, { hash: laterHash }, { path: '/v2/search-password' });
  assert.deepEqual(check.body, { results_found: 0 });
  // What is stored for it: a keyed hash, never the address.
  const indexDir = server.runtime.config.indexDir;
  for (const file of ['suppressions.log', 'tombstones.log']) assert.doesNotMatch(fs.readFileSync(path.join(indexDir, file), 'utf8'), /opt\.me/i, file);
});

test('the owner lifts the opt-out through a new mailed link; its records show again, later wells included', async () => {
  // (After the first test: opt.me@example.com is opted out.)
  const before = await total('email:"opt.me@example.com"');
  assert.equal(before, 0);
  const mailed = (await server.mailsTo('opt.me@example.com', /see and remove your entries/)).length;
  await post('/privacy/opt-out', { email: 'opt.me@example.com' });
  const t = await linkFor('opt.me@example.com', mailed);
  const preview = await post('/privacy/opt-out/preview', { t });
  assert.equal(preview.body.opted_out, true);
  assert.equal(preview.body.total, 0);
  assert.ok(Date.now() - Date.parse(preview.body.opted_out_since) < 600_000, preview.body.opted_out_since);

  const undone = await post('/privacy/opt-out/undo', { t });
  assert.deepEqual([undone.status, undone.body], [200, { restored: 6 }]);
  assert.equal(await total('email:"opt.me@example.com"'), 6, 'the two wells (3), the re-upload (2) and the later breach (1)');
  const laterHash = createHash('sha256').update('Later-Breach-Pw-7').digest('hex');
  assert.deepEqual((await callV2(server, apiKey, { hash: laterHash }, { path: '/v2/search-password' })).body, { results_found: 1 });
  // The link is used up; a lift of an address that is not opted out is refused.
  assert.equal((await post('/privacy/opt-out/undo', { t })).status, 400);
  await post('/privacy/opt-out', { email: 'opt.me@example.com' });
  const t2 = await linkFor('opt.me@example.com', mailed + 1);
  assert.equal((await post('/privacy/opt-out/preview', { t: t2 })).body.opted_out, false);
  assert.deepEqual((await post('/privacy/opt-out/undo', { t: t2 })).body, { error: 'This address is not opted out.' });
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
