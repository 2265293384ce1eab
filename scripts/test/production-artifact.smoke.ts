/**
 * The production artifact, run as it ships: `sh scripts/artifact.sh DIR` made DIR (built
 * once, development dependencies pruned, no sources), and this drives it from outside, as
 * the image would run it (the Dockerfile's CMD, read from the Dockerfile itself):
 * - NODE_ENV=production against the machine's PostgreSQL and Redis: /readyz, an account made
 *   with the built `admin`, a sign-in, a file ingested with the built `ingest`, the entry
 *   found by `/v2/search`, `whois-ingest --samples`, `ingest --samples` (a sample address
 *   found in its wells), then SIGTERM and a clean exit 0;
 * - the embedded defaults (no DATABASE_URL, no REDIS_URL): /readyz and `admin user:list`.
 * Start-up times and the artifact's size are printed.
 *
 *   ARTIFACT_DIR=DIR TEST_DATABASE_URL=… TEST_REDIS_URL=… \
 *     node --import tsx --import ./server/test/setup.ts --test scripts/test/production-artifact.smoke.ts
 *
 * Not a `.test.ts`: `npm test` does not run it; .ci/run does, after making the artifact.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SMTPServer } from 'smtp-server';
import { Redis } from 'ioredis';
import { packLogin } from '../../server/src/common/obfuscation';
import { createTestDatabase, eventually, startServerProcess, type ServerProcess } from '../../server/test/support/harness';
import { freePort } from '../../server/test/support/ports';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const ARTIFACT = path.resolve(process.env.ARTIFACT_DIR ?? '');
const PASSWORD = 'Smoke-Test-Pw-2026!';

/** The image's command (the Dockerfile's CMD), run in the artifact as the image runs it. */
function imageCommand(): string[] {
  const line = fs.readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8').split('\n').find((l) => l.startsWith('CMD '));
  assert.ok(line, 'the Dockerfile has a CMD');
  return JSON.parse(line.slice('CMD '.length)) as string[];
}

/** What NODE_ENV=production requires besides (real providers, SMTP); no provider is contacted. */
const PRODUCTION_PROVIDERS = {
  CARD_PROVIDER: 'paddle',
  PADDLE_API_KEY: 'smoke-key',
  PADDLE_CLIENT_TOKEN: 'smoke-token',
  PADDLE_WEBHOOK_SECRETS: 'smoke-secret',
  PADDLE_PRICE_IDS: '{"search-credits":"pri_1"}',
  CRYPTO_PROVIDER: 'nowpayments',
  NOWPAYMENTS_API_URL: 'http://127.0.0.1:9',
  NOWPAYMENTS_API_KEY: 'smoke-key',
  NOWPAYMENTS_IPN_SECRET: 'smoke-secret',
};

interface Started extends ServerProcess {
  startSeconds: number;
}

/** The image's command in the artifact, with only `env` (plus PATH and HOME); resolves once /readyz answers 200. */
async function startServer(env: Record<string, string>): Promise<Started> {
  const [command, ...args] = imageCommand();
  const t0 = performance.now();
  const server = await startServerProcess(env, 90_000, { command: command === 'node' ? process.execPath : command!, args, cwd: ARTIFACT });
  return { ...server, startSeconds: (performance.now() - t0) / 1000 };
}

/** `npm run NAME -- ARGS` in the artifact (npm's scripts of the shipped package.json). */
function npmRun(name: string, args: string[], env: Record<string, string>) {
  const result = spawnSync('npm', ['run', '--silent', name, '--', ...args], {
    cwd: ARTIFACT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    encoding: 'utf8',
    timeout: 120_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** SIGTERM (SIGKILL after 30 s); the exit and how long it took. */
async function stop(server: Started): Promise<{ code: number | null; signal: NodeJS.Signals | null; seconds: number }> {
  const t0 = performance.now();
  await server.stop(30_000);
  const { code, signal } = await server.exited;
  return { code, signal, seconds: (performance.now() - t0) / 1000 };
}

before(() => {
  assert.ok(process.env.ARTIFACT_DIR, 'ARTIFACT_DIR names the artifact made by scripts/artifact.sh');
  assert.ok(fs.existsSync(path.join(ARTIFACT, 'dist', 'server.mjs')), `${ARTIFACT} holds a built server`);
  const size = spawnSync('du', ['-sh', ARTIFACT], { encoding: 'utf8' }).stdout.split('\t')[0];
  console.log(`artifact ${ARTIFACT}: ${size}`);
});

test('the artifact holds no source and no development dependency', () => {
  for (const absent of ['server', 'web', 'engine/crates', 'migrations', 'node_modules/typescript', 'node_modules/tsx', 'node_modules/esbuild', 'node_modules/vite']) {
    assert.ok(!fs.existsSync(path.join(ARTIFACT, absent)), `${absent} is not in the artifact`);
  }
});

describe('NODE_ENV=production against external PostgreSQL and Redis', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lw-smoke-'));
  let database: { url: string; drop(): Promise<void> };
  let smtp: SMTPServer;
  let env: Record<string, string>;
  let server: Started;
  let apiKey = '';
  // Redis database 13, emptied first: the production server uses Redis's keys as they are.
  const redisUrl = `${process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379'}/13`;

  before(async () => {
    database = await createTestDatabase();
    const redis = new Redis(redisUrl);
    await redis.flushdb();
    redis.disconnect();
    smtp = new SMTPServer({ authOptional: true, disabledCommands: ['STARTTLS'], onData: (stream, _session, done) => stream.resume().on('end', () => done()) });
    const smtpPort = await freePort();
    await new Promise<void>((resolve) => smtp.listen(smtpPort, '127.0.0.1', resolve));
    env = {
      NODE_ENV: 'production',
      DATABASE_URL: database.url,
      REDIS_URL: redisUrl,
      SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
      DATA_DIR: dataDir,
      PUBLIC_URL: 'http://127.0.0.1',
      ...PRODUCTION_PROVIDERS,
    };
    server = await startServer(env);
    console.log(`built server ready (NODE_ENV=production, external PostgreSQL and Redis) in ${server.startSeconds.toFixed(2)} s`);
  });
  after(async () => {
    if (server.child.exitCode === null) server.child.kill('SIGKILL');
    await new Promise<void>((resolve) => smtp.close(() => resolve()));
    await database.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  test('admin --help, then user:create with an API key', () => {
    const help = npmRun('admin', ['--help'], env);
    assert.equal(help.status, 0, help.stderr);
    assert.match(help.stdout, /^Usage: npm run admin -- <command> \[options\]$/m);
    const created = npmRun('admin', ['user:create', '--email', 'smoke@example.com', '--password', PASSWORD, '--verified', '--search-days', '30', '--search-credits', '1000', '--api-key', '--json'], env);
    assert.equal(created.status, 0, created.stderr);
    const account = JSON.parse(created.stdout) as { email: string; api_key: string };
    assert.equal(account.email, 'smoke@example.com');
    apiKey = account.api_key;
    assert.match(apiKey, /^[0-9a-f]{48}$/);
  });

  test('the account signs in through the dashboard route', async () => {
    const response = await fetch(`${server.url}/authentication/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(packLogin({ email: 'smoke@example.com', password: PASSWORD, remember: false })),
    });
    assert.equal(response.status, 200);
    const body = (await response.json()) as { auth_token?: string };
    assert.ok(body.auth_token, 'an access token');
    const me = await fetch(`${server.url}/user/info`, { headers: { authorization: `Bearer ${body.auth_token}` } });
    assert.equal(me.status, 200);
  });

  test('a file ingested with the built ingest is found by /v2/search', async () => {
    const file = path.join(dataDir, 'smoke.csv');
    fs.writeFileSync(file, 'email,password,name\nsmoke.victim@example.org,hunter2,Smoke Victim\nother@example.org,letmein,Other Person\n');
    const ingested = npmRun('ingest', ['--well', 'Smoke Well', '--date', '2026-01-01', '--description', 'A smoke test dump', file], env);
    assert.equal(ingested.status, 0, ingested.stderr);
    assert.match(ingested.stdout, /^records: +2 /m);
    const found = await eventually(async () => {
      const response = await fetch(`${server.url}/v2/search`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'LeakWell-Api-Key': apiKey },
        body: JSON.stringify({ query: 'email:"smoke.victim@example.org"', page: 1, size: 10 }),
      });
      const text = await response.text();
      assert.equal(response.status, 200, text);
      const body = JSON.parse(text) as { total: number; entries: { email?: string[]; database_name?: string }[] };
      return body.total > 0 ? body : undefined;
    }, 15_000);
    assert.equal(found.total, 1);
    assert.deepEqual([found.entries[0]?.email, found.entries[0]?.database_name], [['smoke.victim@example.org'], 'Smoke Well']);
  });

  test('whois-ingest --samples loads the shipped samples', () => {
    const loaded = npmRun('whois-ingest', ['--samples'], env);
    assert.equal(loaded.status, 0, loaded.stderr);
  });

  test('ingest --samples loads the shipped sample wells', async () => {
    const loaded = npmRun('ingest', ['--samples'], env);
    assert.equal(loaded.status, 0, loaded.stderr);
    assert.match(loaded.stdout, /^samples: 10 wells ingested \(1,142 records\), 0 already there$/m);
    // samples/breaches/README.md: alice@example.com is in five wells.
    const wells = await eventually(async () => {
      const response = await fetch(`${server.url}/v2/search`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'LeakWell-Api-Key': apiKey },
        body: JSON.stringify({ query: 'email:"alice@example.com"', page: 1, size: 20 }),
      });
      const text = await response.text();
      assert.equal(response.status, 200, text);
      const body = JSON.parse(text) as { entries: { database_name?: string }[] };
      const names = new Set(body.entries.map((e) => e.database_name));
      return names.size === 5 ? names : undefined;
    }, 15_000);
    assert.deepEqual([...wells].sort(), ['Cobalt Cloud', 'Harbor Combolist', 'Nightjar Stealer Logs', 'Pixelboard Forum', 'Quillmate']);
  });

  test('SIGTERM stops the server cleanly', async () => {
    const exit = await stop(server);
    console.log(`stopped in ${exit.seconds.toFixed(2)} s`);
    assert.deepEqual({ code: exit.code, signal: exit.signal }, { code: 0, signal: null }, server.output().slice(-2000));
    assert.doesNotMatch(server.output(), /Failed to start|Shutdown failed|took too long/);
  });
});

describe('the embedded defaults (no DATABASE_URL, no REDIS_URL)', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lw-smoke-embedded-'));
  let server: Started;
  let env: Record<string, string>;

  before(async () => {
    env = { DATA_DIR: dataDir, EMBEDDED_PG_PORT: String(await freePort()) };
    server = await startServer(env);
    console.log(`built server ready (embedded PostgreSQL, first start) in ${server.startSeconds.toFixed(2)} s`);
  });
  after(() => {
    if (server.child.exitCode === null) server.child.kill('SIGKILL');
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  test('the built admin reaches the running server\'s embedded PostgreSQL', () => {
    const created = npmRun('admin', ['user:create', '--email', 'embedded@example.com', '--password', PASSWORD, '--json'], env);
    assert.equal(created.status, 0, created.stderr);
    const listed = npmRun('admin', ['user:list', '--json'], env);
    assert.equal(listed.status, 0, listed.stderr);
    assert.match(listed.stdout, /embedded@example\.com/);
  });

  test('SIGTERM stops the server and its embedded PostgreSQL cleanly', async () => {
    const exit = await stop(server);
    assert.deepEqual({ code: exit.code, signal: exit.signal }, { code: 0, signal: null }, server.output().slice(-2000));
  });
});
