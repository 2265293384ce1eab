import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { packSearch } from '../../src/common/obfuscation';
import { eventually, startTestServer, type TestServer, signedIn } from '../support/harness';
import { call, freshIp } from '../support/helpers';

let server: TestServer;
const RECORDS = [
  { email: 'erin@example.com', password: 'hunter2', username: 'erin_r' },
  { email: 'frank@example.com', password: 'letmein', username: 'frank_r' },
];

before(async () => {
  server = await startTestServer({ env: { TRUSTED_PROXIES: '127.0.0.1' } });
  await server.ingest('Removal Breach', RECORDS);
});
after(() => server.close());

async function entryId(token: string, email: string): Promise<string> {
  const found = await call(server.url, 'POST', '/search', {
    token,
    body: packSearch({ query: email, type: 'email', page: 1, regex: false, wildcard: false, deduplicate: true }),
  });
  const id = found.body.results?.[0]?.id as string | undefined;
  assert.ok(id, `the entry of ${email} is there`);
  return id;
}

function requestRemoval(token: string, id: string, email: string, ip = freshIp()) {
  return call(server.url, 'POST', '/request-entry-removal', { token, ip, body: { id, email, breach_id: '' } });
}

const mailsTo = async (to: string) => (await server.outbox()).filter((m) => m.to.toLowerCase() === to && /removal/i.test(m.subject)).length;

describe('entry removal requests tell nothing about entries', () => {
  test('an unknown id, an email not in the entry and a real match get the same answer', async () => {
    const user = await signedIn(server, { searchDays: 30 });
    const id = await entryId(user.token, 'erin@example.com');
    const unknown = await requestRemoval(user.token, `${id}9999`, 'erin@example.com');
    const unknownNumeric = await requestRemoval(user.token, '987654321', 'erin@example.com');
    const wrongEmail = await requestRemoval(user.token, id, 'someone-else@example.com');
    const hidden = await requestRemoval(user.token, id, 'hidden');
    const real = await requestRemoval(user.token, id, 'erin@example.com');
    const answer = (reply: Awaited<ReturnType<typeof requestRemoval>>) => ({
      status: reply.status,
      body: reply.body,
      type: reply.headers.get('content-type'),
      length: reply.headers.get('content-length'),
    });
    assert.deepEqual(answer(real), { status: 200, body: { success: true }, type: 'application/json; charset=utf-8', length: '16' });
    for (const refused of [unknown, unknownNumeric, wrongEmail, hidden]) assert.deepEqual(answer(refused), answer(real));
    // Only the real match mails, to the entry's address.
    await server.waitForMail('erin@example.com', /removal/);
    assert.equal(await mailsTo('erin@example.com'), 1);
    assert.equal(await mailsTo('someone-else@example.com'), 0);
  });

  test('mails to one address are throttled (3 a day), silently: the answer stays the same', async () => {
    const id = await entryId((await signedIn(server, { searchDays: 30 })).token, 'frank@example.com');
    for (let i = 0; i < 5; i++) {
      // A new user and a new address each time: only the target's own bucket can hold it back.
      const user = await signedIn(server, { searchDays: 30 });
      const reply = await requestRemoval(user.token, id, 'frank@example.com');
      assert.deepEqual([reply.status, reply.body], [200, { success: true }], `request ${i + 1}`);
    }
    await eventually(async () => (await mailsTo('frank@example.com')) >= 3);
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.equal(await mailsTo('frank@example.com'), 3);
  });

  test('requests are throttled per client address and per user, whatever they name', async () => {
    const ip = freshIp();
    for (let i = 0; i < 10; i++) {
      const user = await signedIn(server, { searchDays: 30 });
      assert.equal((await requestRemoval(user.token, `${900000 + i}`, 'x@example.com', ip)).status, 200);
    }
    const late = await requestRemoval((await signedIn(server, { searchDays: 30 })).token, '900100', 'x@example.com', ip);
    assert.equal(late.status, 429, 'the address has spent its requests, though every user is new');

    const user = await signedIn(server, { searchDays: 30 });
    for (let i = 0; i < 10; i++) assert.equal((await requestRemoval(user.token, `${800000 + i}`, 'x@example.com')).status, 200);
    assert.equal((await requestRemoval(user.token, '800100', 'x@example.com')).status, 429, 'the user has spent its requests, from any address');
  });
});
