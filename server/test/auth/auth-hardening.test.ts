/**
 * Account hardening: one-time links neither kept nor printed beyond their use,
 * reset-password and update-password throttled, argon2 hashing bounded, and
 * forgot-password doing the same work on its request path for known and unknown emails.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KyselyPlugin, RootOperationNode } from 'kysely';
import { packForgot, packLogin, packReset } from '../../src/common/obfuscation';
import { ConfigError, loadConfig } from '../../src/config';
import { createAuthService } from '../../src/auth/auth-service';
import { HASHING_LIMIT, hashingStats } from '../../src/auth/passwords';
import { newOpaqueToken } from '../../src/infra/secrets';
import { createMemoryRateLimiter } from '../../src/infra/rate-limiter';
import type { QueueSystem } from '../../src/infra/queues';
import { createMailService, outboxRetentionMs } from '../../src/mail/mail-service';
import { eventually, findLeaks, oneTimeTokens, startTestServer, TEST_PASSWORD, type TestServer } from '../support/harness';
import { call, freshIp } from '../support/helpers';
import { queueClient } from '../support/delivery-fixtures';

let server: TestServer;

before(async () => {
  server = await startTestServer({ env: { TRUSTED_PROXIES: '127.0.0.1' } });
});
after(async () => {
  await server.close();
});

const post = (path: string, body?: unknown, extra: Parameters<typeof call>[3] = {}) => call(server.url, 'POST', path, { body, ...extra });

describe('item 1: one-time links are neither kept nor printed', () => {
  test('NODE_ENV=production without SMTP_URL refuses to start, naming SMTP_URL', () => {
    const base = { DATA_DIR: '/tmp/lw-config-test', NODE_ENV: 'production' };
    assert.throws(
      () => loadConfig(base),
      (error: unknown) => error instanceof ConfigError && /SMTP_URL: .*refused with NODE_ENV=production/.test(error.message),
    );
    // With SMTP_URL the refusal names only the other settings production needs.
    assert.throws(
      () => loadConfig({ ...base, SMTP_URL: 'smtp://127.0.0.1:2525' }),
      (error: unknown) => error instanceof ConfigError && !/SMTP_URL/.test(error.message),
    );
    assert.equal(loadConfig({ DATA_DIR: '/tmp/lw-config-test', NODE_ENV: 'development' }).SMTP_URL, undefined, 'development keeps the outbox');
  });

  test('outbox mails older than the longest one-time link lifetime are purged by the hourly mail-purge task', async () => {
    const user = await server.createUser();
    await post('/authentication/forgot-password', packForgot(user.email), { ip: freshIp() });
    const old = await server.waitForMail(user.email, /reset/);
    const db = server.runtime.db;
    const retention = outboxRetentionMs(server.runtime.config);
    assert.equal(retention, 48 * 3_600_000, 'the verification link (48 h) lives longest by default');
    await db.updateTable('outbox').set({ created_at: new Date(Date.now() - retention - 60_000) }).where('to_address', '=', old.to).execute();
    const fresh = await server.createUser();
    await post('/authentication/forgot-password', packForgot(fresh.email), { ip: freshIp() });
    await server.waitForMail(fresh.email, /reset/);
    const queues = queueClient(server);
    try {
      assert.ok((await queues.schedules()).some(({ task, everyMs }) => task === 'mail-purge' && everyMs === 3_600_000), 'scheduled hourly');
      // One run of the task now, as its scheduler makes it: through the queue to the server's worker.
      await queues.enqueue('maintenance', { task: 'mail-purge' }, `test-mail-purge-${Date.now()}`);
      await eventually(async () => (await server.outbox()).every((m) => m.to !== user.email));
      assert.equal((await server.outbox()).filter((m) => m.to === fresh.email).length, 1, 'a mail within the lifetime stays');
    } finally {
      await queues.close();
    }
  });

  test("the harness's log scan finds one-time tokens, by shape and from the mails sent", () => {
    const token = newOpaqueToken();
    assert.deepEqual(findLeaks(`GET /reset-password?k=${token} 200`), ['one-time link']);
    assert.deepEqual(findLeaks(`GET /verification?v=${token}&ro=3`), ['one-time link']);
    assert.deepEqual(findLeaks('GET /reset-password?[redacted] 200'), []);
    const other = newOpaqueToken();
    const tokens = oneTimeTokens([`http://x.test/close-account?t=${token}`, 'http://x.test/login', `http://x.test/verification?v=${other}&ro=3`]);
    assert.deepEqual(tokens, [token, other]);
    assert.deepEqual(findLeaks(`token ${token} printed bare`, tokens), [`marked secret "${token.slice(0, 4)}…"`]);
  });
});

describe('item 2: reset-password cannot be used to make us hash', () => {
  test('a flood of random reset links from one address is refused with 429; other addresses still get 400', async () => {
    const ip = freshIp();
    const hashesBefore = hashingStats().started;
    const statuses: number[] = [];
    for (let i = 0; i < 14; i++) {
      statuses.push((await post('/authentication/reset-password', packReset({ key: newOpaqueToken(), password: 'Flood-Pw-4242' }), { ip })).status);
    }
    assert.deepEqual(statuses.slice(0, 10), new Array(10).fill(400), 'the first ten are checked (bad link: 400)');
    assert.deepEqual(statuses.slice(10), [429, 429, 429, 429], 'then throttled');
    assert.equal(hashingStats().started, hashesBefore, 'a bad link is refused before any password hashing');
    const other = await post('/authentication/reset-password', packReset({ key: newOpaqueToken(), password: 'Flood-Pw-4242' }), { ip: freshIp() });
    assert.equal(other.status, 400);
  });

  test('concurrent argon2 work never exceeds the bound (sized from the cores), whatever the flood', async () => {
    assert.ok(HASHING_LIMIT >= 1 && HASHING_LIMIT <= 3, `bound ${HASHING_LIMIT} leaves a libuv pool thread free`);
    const user = await server.createUser();
    hashingStats({ resetPeak: true });
    let sawQueue = false;
    let maxActive = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const stats = hashingStats();
        maxActive = Math.max(maxActive, stats.active);
        if (stats.queued > 0) sawQueue = true;
        await new Promise((r) => setImmediate(r));
      }
    })();
    // 16 logins at once (wrong password: one argon2 verify each), each from its own address.
    const replies = await Promise.all(
      Array.from({ length: 16 }, () => post('/authentication/login', packLogin({ email: user.email, password: 'Wrong-Pw-4242', remember: false }), { ip: freshIp() })),
    );
    sampling = false;
    await sampler;
    assert.ok(replies.every((r) => r.status === 403 || r.status === 429), `statuses ${replies.map((r) => r.status).join(',')}`);
    const { peak } = hashingStats();
    assert.ok(peak <= HASHING_LIMIT && maxActive <= HASHING_LIMIT, `peak ${peak}, sampled ${maxActive}, bound ${HASHING_LIMIT}`);
    assert.ok(sawQueue, 'the flood queued behind the bound');
  });
});

describe('item 5: update-password and forgot-password', () => {
  test('update-password: after 5 wrong current passwords the account gets 429, even with the right one', async () => {
    const user = await server.createUser();
    const { token } = await server.login(user.email);
    const change = (password: string) => post('/authentication/update-password', { password, new_password: 'Changed-Pw-77' }, { token });
    const wrong: number[] = [];
    for (let i = 0; i < 5; i++) wrong.push((await change(`Wrong-Pw-${i}00`)).status);
    assert.deepEqual(wrong, [403, 403, 403, 403, 403]);
    const throttled = await change('Wrong-Pw-999');
    assert.equal(throttled.status, 429);
    assert.equal((await change(TEST_PASSWORD)).status, 429, 'guessing stops: the right password waits too');
    // Another account is not affected.
    const other = await server.createUser();
    const otherLogin = await server.login(other.email);
    assert.equal((await post('/authentication/update-password', { password: 'Nope-Pw-123', new_password: 'Changed-Pw-77' }, { token: otherLogin.token })).status, 403);
  });

  test("forgot-password: the request path's database statements and enqueues are identical for known and unknown emails", async () => {
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
    const queues = {
      backend: 'postgres',
      async enqueue(name: string) {
        events.push(`enqueue ${name}`);
      },
    } as unknown as QueueSystem;
    const mail = createMailService({ db, queues, from: 'test@example.com', console: null });
    const auth = createAuthService({ db, config: server.runtime.config, limiter: createMemoryRateLimiter(), mail, signAccessToken: () => 'unused', ipSecret: 'x' });
    const user = await server.createUser();

    const requestPath = async (email: string) => {
      events.length = 0;
      await auth.forgotPassword(email, freshIp());
      // What ran before the answer (work scheduled after it has not started yet).
      return [...events];
    };
    const known = await requestPath(user.email);
    const unknown = await requestPath(`nobody-${Date.now()}@example.com`);
    assert.deepEqual(known, unknown, `known ${known.join(',') || '(none)'} / unknown ${unknown.join(',') || '(none)'}`);
    assert.ok(!known.some((e) => /Insert|Update|Delete|enqueue/.test(e)), `no writes before answering: ${known.join(',')}`);
    // The work still happens, after the answer: the known account gets its link.
    await eventually(async () => events.includes('enqueue mail'));
    await server.waitForMail(user.email, /reset/);
    mail.close();
  });
});
