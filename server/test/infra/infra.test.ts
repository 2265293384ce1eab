import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SMTPServer } from 'smtp-server';
import { Redis } from 'ioredis';
import { packRegister } from '../../src/common/obfuscation';
import { ConfigError, loadConfig } from '../../src/config';
import { createMemoryRateLimiter, createRedisRateLimiter } from '../../src/infra/rate-limiter';
import { startEmbeddedPostgres } from '../../src/infra/embedded-postgres';
import { eventually, startTestServer, TEST_PASSWORD, type TestServer } from '../support/harness';
import { call } from '../support/helpers';

const redisUrl = process.env.TEST_REDIS_URL;

describe('configuration', () => {
  test('defaults, conversions and the API key header follow the brand', () => {
    const config = loadConfig({ BRAND: 'Acme', PORT: '8080' });
    assert.equal(config.PORT, 8080);
    assert.equal(config.apiKeyHeader, 'Acme-Api-Key');
    assert.equal(config.publicUrl, 'http://localhost:8080');
    assert.ok(config.indexDir.endsWith('/data/index'));
  });
  test('every invalid setting is reported at once', () => {
    assert.throws(
      () => loadConfig({ PORT: 'eighty', BRAND: '<script>', LOG_LEVEL: 'loud' }),
      (error: unknown) => error instanceof ConfigError && /PORT/.test(error.message) && /BRAND/.test(error.message) && /LOG_LEVEL/.test(error.message),
    );
  });
});

describe('HTTP surface', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  test('liveness and readiness', async () => {
    assert.deepEqual((await call(server.url, 'GET', '/livez')).body, { status: 'ok' });
    assert.deepEqual((await call(server.url, 'GET', '/readyz')).body, { status: 'ready' });
  });

  test('OpenAPI document is generated from the route schemas, with a reference page', async () => {
    const doc = (await call(server.url, 'GET', '/openapi.json')).body;
    assert.equal(doc.openapi, '3.0.3');
    for (const path of ['/authentication/login', '/registration/submit', '/user/info', '/user/update-key']) {
      assert.ok(doc.paths[path], `documents ${path}`);
    }
    const operations = Object.values(doc.paths).flatMap((p: any) => Object.values(p)) as { operationId?: string; tags?: string[] }[];
    assert.ok(operations.every((op) => op.operationId && op.tags?.length), 'every operation has an id and tags');
    assert.ok(doc.components.securitySchemes.apiKey.name.endsWith('-Api-Key'));
    const page = await call(server.url, 'GET', '/api-reference/');
    assert.equal(page.status, 200);
    assert.match(String(page.body), /swagger/i);
  });

  test('SPA fallback for pages, JSON 404 for the rest, security headers on HTML', async () => {
    const page = await call(server.url, 'GET', '/some/deep/page?q=x', { headers: { accept: 'text/html' } });
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type') ?? '', /text\/html/);
    assert.match(page.headers.get('content-security-policy') ?? '', /default-src 'self'/);
    assert.match(page.headers.get('content-security-policy') ?? '', /script-src 'self';/, 'no third-party script with the sandbox card provider');
    assert.equal(page.headers.get('referrer-policy'), 'no-referrer');
    assert.ok(!String(page.body).includes('%APP_BRAND%'), 'brand placeholder replaced');
    const api = await call(server.url, 'GET', '/no-such-api');
    assert.equal(api.status, 404);
    assert.deepEqual(api.body, { error: 'Not Found' });
  });

  test('a page whose path is also a GET API route: HTML for the browser, the route for JSON clients', async () => {
    const page = await call(server.url, 'GET', '/subscriptions', { headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type') ?? '', /text\/html/);
    const api = await call(server.url, 'GET', '/subscriptions', { headers: { accept: 'application/json' } });
    assert.equal(api.status, 401, 'the API route, which needs a bearer token');
  });

  test('bad JSON and oversized bodies get clear 4xx errors', async () => {
    const bad = await fetch(`${server.url}/authentication/verify-email`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"k":' });
    assert.equal(bad.status, 400);
    assert.ok(((await bad.json()) as { error: string }).error);
    const huge = await fetch(`${server.url}/authentication/verify-email`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ k: 'x'.repeat(300_000) }),
    });
    assert.equal(huge.status, 413);
  });
});

describe('mail over a real SMTP peer', () => {
  test('registration mail is delivered by the mail job over SMTP', async () => {
    const received: { to: string; data: string }[] = [];
    const smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onData(stream, session, callback) {
        let data = '';
        stream.on('data', (chunk: Buffer) => (data += chunk.toString()));
        stream.on('end', () => {
          received.push({ to: session.envelope.rcptTo.map((r) => r.address).join(','), data });
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
    const port = (smtp.server.address() as { port: number }).port;
    const server = await startTestServer({ env: { SMTP_URL: `smtp://127.0.0.1:${port}`, MAIL_FROM: 'Test <noreply@example.com>' } });
    try {
      const email = `smtp-${Date.now()}@example.com`;
      const reply = await call(server.url, 'POST', '/registration/submit', { body: packRegister({ email, password: TEST_PASSWORD, ro: '', q: '' }) });
      assert.equal(reply.status, 200);
      const mail = await eventually(async () => received.find((m) => m.to === email));
      const decoded = mail.data.replace(/=\r\n/g, '').replace(/=3D/g, '=');
      assert.match(decoded, new RegExp(`${server.url}/verification\\?v=[A-Za-z0-9_-]{43}`));
      assert.match(mail.data, /From: Test <noreply@example.com>/);
      const row = await eventually(() =>
        server.runtime.db.selectFrom('outbox').select(['sent_at']).where('to_address', '=', email).where('sent_at', 'is not', null).executeTakeFirst(),
      );
      assert.ok(row.sent_at);
    } finally {
      await server.close();
      await new Promise<void>((resolve) => smtp.close(() => resolve()));
    }
  });
});

describe('rate limiter (leaky bucket)', () => {
  test('memory store: burst passes, then the drain rate, with a retry hint', async () => {
    let now = 1_000_000;
    const limiter = createMemoryRateLimiter(() => now);
    const bucket = { ratePerSecond: 10, burst: 10 };
    for (let i = 0; i < 10; i++) assert.equal((await limiter.take('k', bucket)).allowed, true);
    const refused = await limiter.take('k', bucket);
    assert.equal(refused.allowed, false);
    assert.ok(refused.retryAfterMs > 0 && refused.retryAfterMs <= 100);
    now += 100;
    assert.equal((await limiter.take('k', bucket)).allowed, true, 'one drains every 100 ms');
    assert.equal((await limiter.take('k', bucket)).allowed, false);
    assert.equal((await limiter.take('other', bucket)).allowed, true, 'keys are independent');
  });

  test('memory store: takeEarly passes only when every bucket allows, and then takes each exactly as takeEach', async () => {
    let now = 1_000_000;
    const early = createMemoryRateLimiter(() => now);
    const exact = createMemoryRateLimiter(() => now);
    const bucket = { ratePerSecond: 10, burst: 3 };
    // 'b' is emptied first: takeEarly refuses without taking anything, takeEach stops at 'b'.
    for (const limiter of [early, exact]) for (let i = 0; i < 3; i++) await limiter.take('b', bucket);
    assert.equal(early.takeEarly!(['a', 'b'], bucket), false);
    assert.equal((await early.takeEach(['a', 'b'], bucket)).allowed, false, 'the caller then asks takeEach, which refuses');
    assert.equal((await exact.takeEach(['a', 'b'], bucket)).allowed, false);
    now += 100;
    // From here the two limiters must agree call for call.
    const answers: [boolean, boolean][] = [];
    for (let i = 0; i < 6; i++) answers.push([early.takeEarly!(['a', 'b'], bucket) || (await early.takeEach(['a', 'b'], bucket)).allowed, (await exact.takeEach(['a', 'b'], bucket)).allowed]);
    assert.deepEqual(answers.map(([e]) => e), answers.map(([, x]) => x));
    assert.deepEqual(answers.map(([e]) => e), [true, false, false, false, false, false]);
    // Both buckets hold the same takes in both limiters (a refusal at 'b' still took 'a').
    for (const key of ['a', 'b']) {
      now += 100;
      assert.deepEqual(await early.take(key, bucket, { peek: true }), await exact.take(key, bucket, { peek: true }));
      await early.take(key, bucket);
      await exact.take(key, bucket);
      assert.deepEqual(await early.take(key, bucket, { peek: true }), await exact.take(key, bucket, { peek: true }));
    }
  });

  test('Redis store: two instances share one bucket', { skip: !redisUrl && 'TEST_REDIS_URL not set' }, async () => {
    const a = new Redis(redisUrl!);
    const b = new Redis(redisUrl!);
    const prefix = `lwtest:${Date.now()}:`;
    try {
      const first = createRedisRateLimiter(a, prefix);
      const second = createRedisRateLimiter(b, prefix);
      const bucket = { ratePerSecond: 1, burst: 4 };
      const results = [];
      for (let i = 0; i < 6; i++) results.push((await (i % 2 ? first : second).take('shared', bucket)).allowed);
      assert.deepEqual(results, [true, true, true, true, false, false]);
      assert.equal((await first.take('shared', bucket, { peek: true })).allowed, false);
    } finally {
      const keys = await a.keys(`${prefix}*`);
      if (keys.length) await a.del(...keys);
      a.disconnect();
      b.disconnect();
    }
  });
});

describe('jobs on Redis', () => {
  test('mail jobs run through BullMQ on Redis', { skip: !redisUrl && 'TEST_REDIS_URL not set' }, async () => {
    const server = await startTestServer({ redis: true });
    try {
      const email = `redis-${Date.now()}@example.com`;
      await call(server.url, 'POST', '/registration/submit', { body: packRegister({ email, password: TEST_PASSWORD, ro: '', q: '' }) });
      const row = await eventually(() =>
        server.runtime.db.selectFrom('outbox').select('sent_at').where('to_address', '=', email).where('sent_at', 'is not', null).executeTakeFirst(),
      );
      assert.ok(row.sent_at, 'delivered by the worker');
    } finally {
      await server.close();
    }
  });
});

describe('embedded PostgreSQL', () => {
  test('a second process on the same DATA_DIR with another port is told which port to use', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'lw-pg-'));
    try {
      // An initialised cluster whose postmaster (this very process, alive) listens on 54999.
      mkdirSync(join(dataDir, 'postgres'));
      writeFileSync(join(dataDir, 'postgres', 'PG_VERSION'), '18\n');
      writeFileSync(join(dataDir, 'postgres', 'postmaster.pid'), `${process.pid}\n${dataDir}\n0\n54999\n`);
      await assert.rejects(startEmbeddedPostgres(dataDir, 54998), /already runs \(pid \d+\) on port 54999, not 54998: set EMBEDDED_PG_PORT=54999/);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
