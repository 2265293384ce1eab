/**
 * Sessions a person can see: the Profile's session list, signing out one
 * session or every other one, ended sessions' access tokens and websockets, the sign-in
 * history, and what the per-request session check costs. One server (and, for the
 * two-instance case, a second one sharing its database).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { sql, type KyselyPlugin, type RootOperationNode } from 'kysely';
import { packLogin } from '../../src/common/obfuscation';
import { createAuthService } from '../../src/auth/auth-service';
import { findActiveSession } from '../../src/auth/auth-repository';
import { recordSignIn, SIGN_IN_HISTORY_SIZE } from '../../src/auth/sessions';
import { describeDevice } from '../../src/auth/user-agent';
import { createMemoryRateLimiter } from '../../src/infra/rate-limiter';
import type { QueueSystem } from '../../src/infra/queues';
import { createMailService } from '../../src/mail/mail-service';
import { SESSION_ENDED_CLOSE_CODE } from '../../src/realtime/realtime-routes';
import { eventually, startTestServer, TEST_PASSWORD, type TestServer } from '../support/harness';
import { call, connectWebSocket, freshIp, type SocketClient } from '../support/helpers';

const CHROME_LINUX = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const FIREFOX_WINDOWS = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0';
const SAFARI_IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';

let server: TestServer;

before(async () => {
  server = await startTestServer({ env: { TRUSTED_PROXIES: '127.0.0.1' } });
});
after(async () => {
  await server.close();
});

interface Signed {
  token: string;
  cookie: string;
  ip: string;
}

/** Signs in through the real route from `ip` with `userAgent`. */
async function signIn(email: string, options: { userAgent?: string; ip?: string; password?: string; target?: TestServer } = {}): Promise<Signed> {
  const ip = options.ip ?? freshIp();
  const target = options.target ?? server;
  const reply = await call(target.url, 'POST', '/authentication/login', {
    body: packLogin({ email, password: options.password ?? TEST_PASSWORD, remember: true }),
    ip,
    headers: options.userAgent ? { 'user-agent': options.userAgent } : {},
  });
  if (reply.status !== 200) return { token: '', cookie: '', ip };
  server.markSecret(reply.body.auth_token, reply.cookie.split('=')[1] ?? '');
  return { token: reply.body.auth_token, cookie: reply.cookie, ip };
}

const get = (token: string, path: string, target: TestServer = server) => call(target.url, 'GET', path, { token });
const post = (token: string, path: string, body?: unknown, target: TestServer = server) => call(target.url, 'POST', path, { token, body });
const sessionsOf = async (token: string) => {
  const reply = await get(token, '/user/sessions');
  assert.equal(reply.status, 200, JSON.stringify(reply.body));
  return reply.body.sessions as { id: string; device: string; ip: string | null; created_at: string; last_used_at: string; current: boolean }[];
};
const currentId = async (token: string) => (await sessionsOf(token)).find((s) => s.current)!.id;

async function authedSocket(token: string, target: TestServer = server): Promise<SocketClient> {
  const client = await connectWebSocket(target);
  client.send({ type: 'auth', token });
  assert.deepEqual(await client.next(), { type: 'auth', ok: true });
  return client;
}

async function assertSocketEnded(client: SocketClient, what: string) {
  const stillOpen = new Promise<string>((resolve) => setTimeout(() => resolve('still open after 5 s'), 5000).unref());
  assert.equal(await Promise.race([client.closed, stillOpen]), SESSION_ENDED_CLOSE_CODE, what);
}

describe('the session list', () => {
  test("lists the live sessions with device, address, started and last used; the current one is marked; other accounts' sessions are not there", async () => {
    const user = await server.createUser();
    const before = Date.now();
    const chrome = await signIn(user.email, { userAgent: CHROME_LINUX });
    const firefox = await signIn(user.email, { userAgent: FIREFOX_WINDOWS });
    const nodeFetch = await signIn(user.email); // fetch's own user agent: "node"
    const stranger = await server.createUser();
    await signIn(stranger.email, { userAgent: SAFARI_IPHONE });

    const list = await sessionsOf(chrome.token);
    assert.equal(list.length, 3, 'three sessions of this account, none of the other one');
    const byIp = new Map(list.map((s) => [s.ip, s]));
    assert.equal(byIp.get(chrome.ip)?.device, 'Chrome on Linux');
    assert.equal(byIp.get(firefox.ip)?.device, 'Firefox on Windows');
    assert.equal(byIp.get(nodeFetch.ip)?.device, 'Node.js');
    assert.deepEqual(
      list.filter((s) => s.current).map((s) => s.ip),
      [chrome.ip],
      'exactly one current session: the caller',
    );
    for (const session of list) {
      assert.ok(Date.parse(session.created_at) >= before - 2000, 'started now');
      assert.ok(Date.parse(session.last_used_at) >= Date.parse(session.created_at) - 1000, 'last used');
    }
    // From another session's point of view, that one is current.
    assert.equal((await sessionsOf(firefox.token)).find((s) => s.current)?.ip, firefox.ip);
  });

  test('a logged-out session leaves the list; its address and user agent are erased', async () => {
    const user = await server.createUser();
    const a = await signIn(user.email, { userAgent: CHROME_LINUX });
    const b = await signIn(user.email, { userAgent: FIREFOX_WINDOWS });
    const bId = await currentId(b.token);
    assert.equal((await call(server.url, 'POST', '/authentication/logout', { cookie: b.cookie })).status, 200);
    assert.deepEqual((await sessionsOf(a.token)).map((s) => s.ip), [a.ip]);
    // A logout keeps the row's details until the account's next sign-in erases them.
    await signIn(user.email);
    const row = await server.runtime.db.selectFrom('sessions').select(['ip', 'user_agent']).where('id', '=', bId).executeTakeFirstOrThrow();
    assert.deepEqual(row, { ip: null, user_agent: null });
  });

  test('last used is written at most once a minute, and the check on every request is one primary-key read', async (t) => {
    const user = await server.createUser();
    const a = await signIn(user.email);
    const id = await currentId(a.token);
    const db = server.runtime.db;
    const lastUsed = async () => (await db.selectFrom('sessions').select('last_used_at').where('id', '=', id).executeTakeFirstOrThrow()).last_used_at;
    await db.updateTable('sessions').set({ last_used_at: sql`now() - interval '5 minutes'` }).where('id', '=', id).execute();
    const stale = await lastUsed();
    assert.equal((await get(a.token, '/user/info')).status, 200);
    const touched = await lastUsed();
    assert.ok(touched.getTime() - stale.getTime() > 4 * 60_000, 'a request after 5 idle minutes moves last used to now');
    assert.equal((await get(a.token, '/user/info')).status, 200);
    assert.equal((await lastUsed()).getTime(), touched.getTime(), 'the next request within the minute writes nothing');

    // The check: an index scan on the sessions' primary key (and the users' one), timed.
    const plan = await sql<{ 'QUERY PLAN': string }>`EXPLAIN SELECT s.last_used_at FROM sessions s JOIN users u ON u.id = s.user_id
      WHERE s.id = ${id} AND s.user_id = ${user.id} AND s.revoked_at IS NULL AND s.expires_at > now() AND u.closed_at IS NULL`.execute(db);
    const text = plan.rows.map((r) => r['QUERY PLAN']).join('\n');
    assert.match(text, /Index Scan using sessions_pkey/, text);
    const samples: number[] = [];
    for (let i = 0; i < 300; i++) {
      const started = performance.now();
      assert.ok(await findActiveSession(db, id, user.id));
      samples.push(performance.now() - started);
    }
    samples.sort((x, y) => x - y);
    const median = samples[150]!;
    const p99 = samples[297]!;
    t.diagnostic(`session check: median ${median.toFixed(2)} ms, p99 ${p99.toFixed(2)} ms over 300 (one pooled connection's round trip)`);
    assert.ok(median < 20, `median ${median} ms`);
  });
});

describe('signing sessions out', () => {
  test('sign out one session: its access token is refused at once, its refresh cookie is dead, its websocket closes; the caller stays', async () => {
    const user = await server.createUser();
    const a = await signIn(user.email, { userAgent: CHROME_LINUX });
    const b = await signIn(user.email, { userAgent: FIREFOX_WINDOWS });
    const socket = await authedSocket(b.token);
    const bId = (await sessionsOf(a.token)).find((s) => s.ip === b.ip)!.id;

    const ended = await post(a.token, '/user/sessions/sign-out', { session_id: bId });
    assert.equal(ended.status, 200, JSON.stringify(ended.body));
    assert.equal((await get(b.token, '/user/info')).status, 401, "the ended session's access token, still within its lifetime");
    assert.equal((await call(server.url, 'POST', '/authentication/refresh', { cookie: b.cookie })).status, 401, 'its refresh cookie');
    await assertSocketEnded(socket, "the ended session's websocket");
    assert.equal((await get(a.token, '/user/info')).status, 200, 'the caller is still signed in');
    assert.deepEqual((await sessionsOf(a.token)).map((s) => s.ip), [a.ip]);
    const row = await server.runtime.db.selectFrom('sessions').select(['ip', 'user_agent', 'revoked_reason']).where('id', '=', bId).executeTakeFirstOrThrow();
    assert.deepEqual(row, { ip: null, user_agent: null, revoked_reason: 'signed-out-from-profile' }, 'address and device erased at once');

    assert.equal((await post(a.token, '/user/sessions/sign-out', { session_id: bId })).status, 404, 'an ended session');
  });

  test("another account's session, an unknown id and a malformed one are refused, and nothing ends", async () => {
    const user = await server.createUser();
    const a = await signIn(user.email);
    const stranger = await server.createUser();
    const s = await signIn(stranger.email);
    const strangerId = await currentId(s.token);
    const foreign = await post(a.token, '/user/sessions/sign-out', { session_id: strangerId });
    assert.equal(foreign.status, 404);
    assert.deepEqual(foreign.body, { error: 'Session not found' });
    assert.equal((await get(s.token, '/user/info')).status, 200, "the stranger's session lives on");
    assert.equal((await post(a.token, '/user/sessions/sign-out', { session_id: '00000000-0000-4000-8000-000000000000' })).status, 404);
    assert.equal((await post(a.token, '/user/sessions/sign-out', { session_id: 'nope' })).status, 400);
    assert.equal((await post(a.token, '/user/sessions/sign-out', {})).status, 400);
    assert.equal((await post(a.token, '/user/sessions/sign-out', { session_id: strangerId, extra: 1 })).status, 400);
    assert.equal((await call(server.url, 'GET', '/user/sessions')).status, 401, 'no token, no list');
    assert.equal((await call(server.url, 'POST', '/user/sessions/sign-out-everywhere')).status, 401);
  });

  test('sign out everywhere ends every other session (tokens refused, websockets closed) and keeps the current one', async () => {
    const user = await server.createUser();
    const a = await signIn(user.email, { userAgent: CHROME_LINUX });
    const b = await signIn(user.email, { userAgent: FIREFOX_WINDOWS });
    const c = await signIn(user.email, { userAgent: SAFARI_IPHONE });
    const bystander = await signIn((await server.createUser()).email);
    const bSocket = await authedSocket(b.token);
    const cSocket = await authedSocket(c.token);
    const aSocket = await authedSocket(a.token);

    const reply = await post(a.token, '/user/sessions/sign-out-everywhere');
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    assert.deepEqual(reply.body, { success: true, ended: 2 });
    assert.equal((await get(b.token, '/user/info')).status, 401);
    assert.equal((await get(c.token, '/user/info')).status, 401);
    await assertSocketEnded(bSocket, 'b');
    await assertSocketEnded(cSocket, 'c');
    assert.equal((await get(a.token, '/user/info')).status, 200);
    assert.equal((await get(bystander.token, '/user/info')).status, 200, "another account's session");
    const list = await sessionsOf(a.token);
    assert.deepEqual(
      list.map((s) => [s.ip, s.current]),
      [[a.ip, true]],
    );
    // The current session's socket is still open.
    aSocket.send({ type: 'action', action: 'join-channel', channel: 'test' });
    assert.deepEqual(await aSocket.next(), { type: 'joined', channel: 'test' });
    aSocket.socket.close();
    assert.deepEqual((await post(a.token, '/user/sessions/sign-out-everywhere')).body, { success: true, ended: 0 }, 'nothing left to end');
  });

  test('two instances sharing one database: a sign-out on one is refused on the other at once (and, with Redis, its socket there closes)', async () => {
    const second = await startTestServer({ shareWith: server, env: { TRUSTED_PROXIES: '127.0.0.1' } });
    try {
      const user = await server.createUser();
      const a = await signIn(user.email);
      const b = await signIn(user.email, { target: second });
      assert.equal((await get(b.token, '/user/info', second)).status, 200);
      assert.equal((await get(b.token, '/user/info', server)).status, 200, 'one secret: either instance takes the token');
      // Websockets of other instances hear of the end through the realtime bus: Redis.
      const socket = process.env.TEST_REDIS_URL ? await authedSocket(b.token, second) : undefined;
      const started = performance.now();
      assert.equal((await post(a.token, '/user/sessions/sign-out-everywhere')).status, 200);
      assert.equal((await get(b.token, '/user/info', second)).status, 401, "the other instance refuses the ended session's token");
      const ms = performance.now() - started;
      assert.ok(ms < 5000, `${ms} ms`);
      if (socket) await assertSocketEnded(socket, "the ended session's socket on the other instance");
    } finally {
      await second.close();
    }
  });
});

describe('the sign-in history', () => {
  const historyOf = async (token: string) => {
    const reply = await get(token, '/user/sign-in-history');
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    return reply.body.entries as { at: string; ip: string; device: string; method: string; success: boolean }[];
  };

  test('records sign-ins and failed passwords with time, address, device and method; unknown emails leave no trace', async () => {
    const user = await server.createUser();
    const rowsBefore = Number((await sql<{ n: string }>`SELECT count(*) AS n FROM sign_in_history`.execute(server.runtime.db)).rows[0]!.n);
    const failedIp = freshIp();
    const wrong = await signIn(user.email, { password: 'Wrong-Pass-123', ip: failedIp, userAgent: FIREFOX_WINDOWS });
    assert.equal(wrong.token, '', 'wrong password refused');
    await signIn(`nobody-${Date.now()}@example.com`, { userAgent: FIREFOX_WINDOWS });
    const ok = await signIn(user.email, { userAgent: CHROME_LINUX });

    const entries = await eventually(async () => {
      const list = await historyOf(ok.token);
      return list.length === 2 && list;
    });
    assert.deepEqual(
      entries.map(({ ip, device, method, success }) => ({ ip, device, method, success })),
      [
        { ip: ok.ip, device: 'Chrome on Linux', method: 'password', success: true },
        { ip: failedIp, device: 'Firefox on Windows', method: 'password', success: false },
      ],
      'newest first',
    );
    assert.ok(entries.every((e) => Math.abs(Date.parse(e.at) - Date.now()) < 60_000));
    const rowsAfter = Number((await sql<{ n: string }>`SELECT count(*) AS n FROM sign_in_history`.execute(server.runtime.db)).rows[0]!.n);
    assert.equal(rowsAfter - rowsBefore, 2, 'the unknown email was recorded nowhere');
  });

  test('keeps only the newest 20 per account', async () => {
    const user = await server.createUser();
    const db = server.runtime.db;
    for (let i = 0; i < 24; i++) {
      await recordSignIn(db, { userId: user.id, ip: `192.0.2.${i}`, userAgent: SAFARI_IPHONE, method: i % 2 ? 'code' : 'recovery code', success: i % 3 !== 0 });
    }
    const ok = await signIn(user.email);
    const entries = await historyOf(ok.token);
    assert.equal(entries.length, SIGN_IN_HISTORY_SIZE);
    assert.equal(entries[0]!.ip, ok.ip, 'the newest is the real sign-in');
    assert.equal(entries.at(-1)!.ip, '192.0.2.5', 'the oldest kept is the 6th recorded (25 in all)');
    assert.equal(entries[1]!.method, 'code');
    assert.equal(entries[2]!.method, 'recovery code');
    const stored = await db.selectFrom('sign_in_history').select(db.fn.countAll<string>().as('n')).where('user_id', '=', user.id).executeTakeFirstOrThrow();
    assert.equal(Number(stored.n), SIGN_IN_HISTORY_SIZE, 'older rows are deleted, not only hidden');
    await assert.rejects(
      recordSignIn(db, { userId: user.id, ip: '192.0.2.1', method: 'sms' as never, success: true }),
      /check constraint/,
      'the table takes only the four methods',
    );
  });

  test('closing the account erases its sign-in history and its sessions\' addresses and user agents', async () => {
    const user = await server.createUser();
    const a = await signIn(user.email, { userAgent: CHROME_LINUX });
    await signIn(user.email, { userAgent: FIREFOX_WINDOWS });
    assert.equal((await historyOf(a.token)).length, 2);
    assert.equal((await post(a.token, '/user/account-closure-request')).status, 200);
    const link = (await server.waitForMail(user.email, /closure/)).links[0]!;
    const closed = await post(a.token, '/user/account-closure-final', { token: new URL(link).searchParams.get('t')! });
    assert.equal(closed.status, 200, JSON.stringify(closed.body));
    const db = server.runtime.db;
    const history = await db.selectFrom('sign_in_history').select('id').where('user_id', '=', user.id).execute();
    assert.equal(history.length, 0, 'no history left');
    const sessions = await db.selectFrom('sessions').select(['ip', 'user_agent']).where('user_id', '=', user.id).execute();
    assert.equal(sessions.length, 2);
    assert.ok(sessions.every((row) => row.ip === null && row.user_agent === null), JSON.stringify(sessions));
  });

  test('a wrong password runs the same statements before the answer whether or not the email has an account', async () => {
    const events: string[] = [];
    const recorder: KyselyPlugin = {
      transformQuery(args: { node: RootOperationNode }) {
        events.push(args.node.kind);
        return args.node;
      },
      async transformResult(args) {
        return args.result;
      },
    };
    const db = server.runtime.db.withPlugin(recorder);
    const queues = { backend: 'postgres', async enqueue() {} } as unknown as QueueSystem;
    const mail = createMailService({ db, queues, from: 'test@example.com', console: null });
    const auth = createAuthService({ db, config: server.runtime.config, limiter: createMemoryRateLimiter(), mail, signAccessToken: () => 'unused', ipSecret: 'x' });
    const user = await server.createUser();
    const attempt = async (email: string) => {
      events.length = 0;
      await assert.rejects(auth.login({ email, password: 'Wrong-Pass-123', remember: false }, freshIp(), { ip: '192.0.2.9', userAgent: CHROME_LINUX }));
      return [...events];
    };
    // The unknown email first: the known one's record is written after its answer.
    const unknown = await attempt(`nobody-${Date.now()}@example.com`);
    const known = await attempt(user.email);
    assert.deepEqual(known, unknown, `known ${known.join(',')} / unknown ${unknown.join(',')}`);
    // The failure is still recorded for the account, after the answer.
    await eventually(async () => (await db.selectFrom('sign_in_history').select('id').where('user_id', '=', user.id).executeTakeFirst()) !== undefined);
    mail.close();
  });
});

test('device names from common user agents', () => {
  const cases: [string | undefined, string][] = [
    [CHROME_LINUX, 'Chrome on Linux'],
    [FIREFOX_WINDOWS, 'Firefox on Windows'],
    [SAFARI_IPHONE, 'Safari on iOS'],
    ['Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15', 'Safari on macOS'],
    ['Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0', 'Edge on Windows'],
    ['Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36', 'Chrome on Android'],
    ['Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36', 'Chrome on ChromeOS'],
    ['curl/8.5.0', 'curl'],
    ['<script>alert(1)</script>', 'Unknown browser'],
    [undefined, 'Unknown device'],
  ];
  for (const [agent, device] of cases) assert.equal(describeDevice(agent), device, String(agent));
});
