/**
 * Reliability test 39: a NUL character or an unpaired UTF-16 surrogate
 * in any request text (JSON body values and keys, query string, path parameters, the
 * obfuscated dashboard payloads) answers 400 with a clear message, never 500: nothing is
 * stored, no error is logged, and a refused public API search is neither counted against
 * the daily limit nor charged. The guard is one hook (server/src/infra/text-input.ts).
 */
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, startTestServer, type TestServer } from '../support/harness';
import { call, callV2, freshIp, type Reply } from '../support/helpers';
import { packLogin } from '../../src/common/obfuscation';
import { findBadText } from '../../src/infra/text-input';

let server: TestServer;
before(async () => {
  server = await startTestServer({ env: { API_RATE_BURST: '1000', API_RATE_PER_SECOND: '1000' } });
  await server.ingest('Text Source', [{ email: 'text@example.com', username: 'text_user' }]);
});
after(() => server.close());

const NUL = 'bad\u0000value';
/** Unpaired surrogates: a high one alone, at the end, a low one alone, two highs. */
const SURROGATES = ['bad\ud800value', 'bad\ud800', '\udc00bad', '\ud800\ud800'];
const NUL_MESSAGE = /^Invalid request: .+ must not contain NUL characters$/;
const SURROGATE_MESSAGE = /^Invalid request: .+ must not contain unpaired UTF-16 surrogates$/;

/** Error-level lines (pino level 50 and up) the server logged since `from`. */
function errorLines(from: number): string[] {
  return server
    .logs()
    .slice(from)
    .split('\n')
    .filter((line) => {
      try {
        return (JSON.parse(line) as { level: number }).level >= 50;
      } catch {
        return false;
      }
    });
}

function assertRefused(reply: Reply, message: RegExp, what: string, status = 400) {
  assert.equal(reply.status, status, `${what}: ${JSON.stringify(reply.body)}`);
  assert.match(reply.body.error, message, what);
}

async function taskCount(userId: string): Promise<number> {
  const rows = await server.runtime.db.selectFrom('monitor_tasks').select('id').where('user_id', '=', userId).execute();
  return rows.length;
}

async function channelCount(userId: string): Promise<number> {
  const rows = await server.runtime.db.selectFrom('notification_channels').select('id').where('user_id', '=', userId).execute();
  return rows.length;
}

describe('the guard itself (findBadText)', () => {
  test('finds NUL and unpaired surrogates anywhere, keys included; paired surrogates pass', () => {
    assert.equal(findBadText({ a: ['ok', { b: NUL }] }, 'body'), 'Invalid request: body/a/1/b must not contain NUL characters');
    assert.equal(findBadText({ [`k${NUL}`]: 'x' }, 'body'), 'Invalid request: body (a property name) must not contain NUL characters');
    for (const text of SURROGATES) assert.match(findBadText({ q: text }, 'body') ?? '', SURROGATE_MESSAGE, JSON.stringify(text));
    for (const ok of ['emoji 😀 pair', 'élan', '', 'tab\tline\nbreak', 12, null, true]) assert.equal(findBadText({ q: ok }, 'body'), null, String(ok));
    // A raw body (the payment webhooks) is bytes, not text: never inspected.
    assert.equal(findBadText(Buffer.from('a\u0000b'), 'body'), null);
    // Any nesting depth, without recursion.
    let deep: unknown = NUL;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    assert.match(findBadText(deep, 'body') ?? '', NUL_MESSAGE);
  });
});

describe('over HTTP', () => {
  test('dashboard monitoring: add-task, update-task, set-domain and channels refuse NUL and surrogates; nothing stored', async () => {
    const user = await server.createUser({ enterprise: true });
    const { token } = await server.login(user.email);
    const mark = server.logs().length;
    const post = (path: string, body: unknown) => call(server.url, 'POST', path, { token, body });
    assertRefused(await post('/monitoring/add-task', { key: 'username', value: NUL }), NUL_MESSAGE, 'add-task NUL');
    assertRefused(await post('/monitoring/add-task', { key: `user${NUL}`, value: 'someone' }), NUL_MESSAGE, 'add-task NUL key');
    for (const value of SURROGATES) assertRefused(await post('/monitoring/add-task', { key: 'username', value }), SURROGATE_MESSAGE, 'add-task surrogate');
    assertRefused(await post('/monitoring/set-domain', { domain: `example${NUL}.com` }), NUL_MESSAGE, 'set-domain');
    assertRefused(await post('/notification-channels/add', { key: 'webhook', value: `https://hooks.example.com/${NUL}` }), NUL_MESSAGE, 'channel add');
    assertRefused(await post('/notification-channels/add', { key: 'email', value: `a${SURROGATES[0]}@example.com` }), SURROGATE_MESSAGE, 'channel add surrogate');
    const task = await post('/monitoring/add-task', { key: 'username', value: 'text_watcher' });
    assert.equal(task.status, 200, JSON.stringify(task.body));
    assertRefused(await post('/monitoring/update-task', { id: task.body.task.id, value: NUL }), NUL_MESSAGE, 'update-task');
    assert.equal(await taskCount(user.id), 1, 'only the valid task');
    assert.equal(await channelCount(user.id), 0);
    assert.deepEqual(errorLines(mark), []);
  });

  test('/v2/monitoring refuses them; nothing stored', async () => {
    const user = await server.createUser({ enterprise: true, apiKey: true });
    const mark = server.logs().length;
    const v2 = (method: string, body: unknown) => callV2(server, user.apiKey, body, { path: `/v2/monitoring/${method}` });
    assertRefused(await v2('create-task', { type: 'username', value: NUL }), NUL_MESSAGE, 'create-task NUL');
    for (const value of SURROGATES) assertRefused(await v2('create-task', { type: 'username', value }), SURROGATE_MESSAGE, 'create-task surrogate');
    assertRefused(await v2('update-domain', { domain: `example.com${NUL}` }), NUL_MESSAGE, 'update-domain');
    assert.equal(await taskCount(user.id), 0);
    assert.deepEqual(errorLines(mark), []);
  });

  test('Monitor API V1 refuses them as it refuses any invalid field (its 302), with the same message; nothing stored', async () => {
    const user = await server.createUser({ enterprise: true, apiKey: true });
    const mark = server.logs().length;
    const v1 = (method: string, body: unknown) =>
      call(server.url, 'POST', `/monitor-api/v1/${method}`, { body, headers: { authorization: `Bearer ${user.apiKey}` }, ip: freshIp() });
    assertRefused(await v1('create', { create_type: 'task', key: 'username', value: NUL }), NUL_MESSAGE, 'V1 create NUL', 302);
    assertRefused(await v1('create', { create_type: 'task', key: 'username', value: SURROGATES[1] }), SURROGATE_MESSAGE, 'V1 create surrogate', 302);
    assertRefused(await v1('create', { create_type: 'notification_method', key: 'webhook', value: `https://hooks.example.com/${NUL}` }), NUL_MESSAGE, 'V1 channel', 302);
    assert.equal(await taskCount(user.id), 0);
    assert.equal(await channelCount(user.id), 0);
    assert.deepEqual(errorLines(mark), []);
  });

  test('POST /datawells/search (no sign-in) and the GET query string refuse them', async () => {
    const mark = server.logs().length;
    assertRefused(await call(server.url, 'POST', '/datawells/search', { body: { query: `te${NUL}` } }), NUL_MESSAGE, 'datawells search NUL');
    for (const query of SURROGATES) assertRefused(await call(server.url, 'POST', '/datawells/search', { body: { query } }), SURROGATE_MESSAGE, 'datawells search surrogate');
    assertRefused(await call(server.url, 'GET', '/datawells?page=1&count=10&sort=%00'), NUL_MESSAGE, 'datawells list query string');
    assert.equal((await call(server.url, 'POST', '/datawells/search', { body: { query: 'Text' } })).status, 200, 'a plain query still works');
    assert.deepEqual(errorLines(mark), []);
  });

  test('path parameters: a NUL in an id is a 400, not a database error', async () => {
    const user = await server.createUser();
    const { token } = await server.login(user.email);
    const mark = server.logs().length;
    assertRefused(await call(server.url, 'GET', '/payments/crypto-invoice/abc%00def', { token }), NUL_MESSAGE, 'invoice id');
    assert.deepEqual(errorLines(mark), []);
  });

  test('the obfuscated dashboard payloads: a NUL inside a decoded value is refused (400), naming the value', async () => {
    const mark = server.logs().length;
    const body = packLogin({ email: `nul${NUL}@example.com`, password: 'Secret-Pw-9Zx', remember: false });
    const reply = await call(server.url, 'POST', '/authentication/login', { body });
    assert.equal(reply.status, 400, JSON.stringify(reply.body));
    assert.equal(reply.body.error, 'Invalid request: email must not contain NUL characters');
    assert.deepEqual(errorLines(mark), []);
  });

  test("headers (the API key's among them) cannot carry a NUL: Node's HTTP parser answers 400 before any route", async () => {
    const mark = server.logs().length;
    const { port } = new URL(server.url);
    const header = server.runtime.config.apiKeyHeader;
    const body = '{"query":"email:text@example.com"}';
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(Number(port), '127.0.0.1');
      let text = '';
      socket.on('data', (chunk) => (text += chunk.toString()));
      socket.on('end', () => resolve(text));
      socket.on('close', () => resolve(text));
      socket.on('error', reject);
      socket.write(`POST /v2/search HTTP/1.1\r\nHost: x\r\n${header}: abc\u0000def\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`);
    });
    assert.match(answer, /^HTTP\/1\.1 400 /);
    assert.deepEqual(errorLines(mark), []);
  });

  test('/v2/search: NUL and unpaired surrogates are 400, neither counted nor charged', async () => {
    const user = await server.createUser({ searchDays: 30, searchCredits: 100, apiKey: true });
    const mark = server.logs().length;
    assertRefused(await callV2(server, user.apiKey, { query: `text${NUL}` }), NUL_MESSAGE, 'v2 search NUL');
    for (const query of SURROGATES) assertRefused(await callV2(server, user.apiKey, { query }), SURROGATE_MESSAGE, `v2 search ${JSON.stringify(query)}`);
    assertRefused(await callV2(server, user.apiKey, { query: 'email:text@example.com', [`x${NUL}`]: 1 }), NUL_MESSAGE, 'v2 search NUL key');
    // The first successful search is the first charged and counted.
    const ok = await callV2(server, user.apiKey, { query: 'email:text@example.com' });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    assert.equal(ok.body.balance, 99, 'the refusals charged nothing');
    const db = server.runtime.db;
    await eventually(async () => {
      const counts = await db.selectFrom('search_counts').select('searches').where('user_id', '=', user.id).execute();
      const credits = await db.selectFrom('users').select('search_credits').where('id', '=', user.id).executeTakeFirstOrThrow();
      return counts.reduce((sum, row) => sum + row.searches, 0) === 1 && credits.search_credits === 99;
    });
    assert.deepEqual(errorLines(mark), []);
  });
});
