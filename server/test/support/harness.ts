/**
 * Test harness: starts the real product (real PostgreSQL, real queues, real mail path)
 * on a random port with a fresh database, and scans its logs for leaked secrets on
 * close. PostgreSQL comes from TEST_DATABASE_URL, or an embedded server started once
 * per test process; Redis is used when TEST_REDIS_URL is set (or `redis: true`).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { registerCleanup } from './cleanups';
import { sql } from 'kysely';
import { loadConfig } from '../../src/config';
import { startRuntime, type Runtime } from '../../src/runtime';
import { startEmbeddedPostgres } from '../../src/infra/embedded-postgres';
import { extractLinks } from '../../src/mail/mail-service';
import { readOutbox } from '../../src/mail/outbox-repository';
import { hashPassword } from '../../src/auth/passwords';
import { applyGrant, insertUser, type Grant } from '../../src/users/user-repository';
import { createUserService } from '../../src/users/user-service';
import { packLogin } from '../../src/common/obfuscation';
import { ingestRecords } from '../../../scripts/lib/ingest-records';
import { freePort } from './ports';
import { cliArgs } from '../../../scripts/lib/cli-command';

export const TEST_PASSWORD = 'Secret-Pw-9Zx';

let embeddedServer: Promise<string> | undefined;

/** The PostgreSQL server tests create their databases on (admin connection string). */
export function testDatabaseServer(): Promise<string> {
  if (process.env.TEST_DATABASE_URL) return Promise.resolve(process.env.TEST_DATABASE_URL);
  embeddedServer ??= (async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lw-test-pg-'));
    fs.chmodSync(dir, 0o755);
    const embedded = await startEmbeddedPostgres(dir, await freePort());
    process.once('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
    // Stopped by the test process exit hook below; PostgreSQL is a child of ours.
    testCleanups.push(async () => {
      await embedded.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    });
    return embedded.connectionString;
  })();
  return embeddedServer;
}

const testCleanups: (() => Promise<void>)[] = [];
const openServers = new Set<TestServer>();
const liveDatabases = new Set<() => Promise<void>>();
// Once every test of the file has run (setup.ts's root hook): close the test servers still
// open, drop the databases still there, then stop the embedded PostgreSQL. The files' own hooks may run later: closing is
// idempotent.
registerCleanup(async () => {
  for (const server of [...openServers]) await server.close();
  for (const drop of [...liveDatabases]) await drop();
  await stopTestDatabaseServer();
});

/** Stops the embedded PostgreSQL this test process started, if any (idempotent). */
export async function stopTestDatabaseServer(): Promise<void> {
  while (testCleanups.length) await testCleanups.pop()!();
  embeddedServer = undefined;
}

/** A fresh, empty database on the test server; dropped by the returned function. */
export async function createTestDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const admin = await testDatabaseServer();
  const name = `lw_test_${randomBytes(6).toString('hex')}`;
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  await client.query(`CREATE DATABASE ${name}`);
  await client.end();
  const url = new URL(admin);
  url.pathname = `/${name}`;
  let dropped: Promise<void> | undefined;
  // Idempotent, and also run by the root cleanup before the embedded server stops, so a
  // file's own after-hook may call it late without finding the server gone.
  const drop = () =>
    (dropped ??= (async () => {
      liveDatabases.delete(drop);
      const c = new pg.Client({ connectionString: admin });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    })());
  liveDatabases.add(drop);
  return { url: url.toString(), drop };
}

export interface OutboxMail {
  to: string;
  subject: string;
  text: string;
  links: string[];
}

export interface TestServer {
  url: string;
  namespace: string;
  runtime: Runtime;
  logs(): string;
  /** Mails in the outbox, oldest first (also the ones delivered over SMTP). */
  outbox(): Promise<OutboxMail[]>;
  /** The mails to `to` (any case) whose subject matches, oldest first. */
  mailsTo(to: string, subject: RegExp): Promise<OutboxMail[]>;
  /**
   * Waits until more than `after` mails to `to` match `subject` (default: one arrives);
   * returns the newest. `after`: how many there were before the action that mails again.
   */
  waitForMail(to: string, subject: RegExp, timeoutMs?: number, after?: number): Promise<OutboxMail>;
  createUser(options?: Grant & { email?: string; password?: string; apiKey?: boolean }): Promise<{ id: string; email: string; password: string; apiKey?: string }>;
  /** Logs in through the real route; returns the access token and refresh cookie. */
  login(email: string, password?: string, remember?: boolean): Promise<{ token: string; cookie: string; status: number }>;
  /**
   * Ingests JSON-lines records (engine field names) as a new segment of `well`, adds the
   * data well to the catalogue and makes the running server see it. Returns the segment id.
   */
  ingest(well: string, records: object[]): Promise<string>;
  /** Strings that must never appear in the logs (checked on close). */
  markSecret(...values: string[]): void;
  close(): Promise<void>;
}

// Shapes of secrets that must never reach a log line, whatever the test did.
const SECRET_SHAPES: [string, RegExp][] = [
  ['JWT', /eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\./],
  ['API key', /\b[0-9a-f]{48}\b/],
  ['test password', /Secret-Pw/],
  // A one-time link's token (reset k=, verification v=, closure and unsubscribe t=, …) in a URL.
  ['one-time link', /[?&][A-Za-z_]{1,8}=[A-Za-z0-9_-]{32,}/],
];

/** The tokens of the one-time links in mails (every query value long enough to be one). */
export function oneTimeTokens(links: string[]): string[] {
  const tokens: string[] = [];
  for (const link of links) {
    try {
      for (const value of new URL(link).searchParams.values()) if (value.length >= 20) tokens.push(value);
    } catch {
      // Not a URL: nothing to collect.
    }
  }
  return tokens;
}

export function findLeaks(logText: string, extra: string[] = []): string[] {
  const leaks = SECRET_SHAPES.filter(([, re]) => re.test(logText)).map(([name]) => name);
  for (const value of extra) if (value.length >= 6 && logText.includes(value)) leaks.push(`marked secret "${value.slice(0, 4)}…"`);
  return leaks;
}

export async function startTestServer(
  options: {
    env?: Record<string, string>;
    redis?: boolean;
    webDistDir?: string;
    /** Another test server's database, index and Redis namespace: a second instance of it. */
    shareWith?: TestServer;
    /** The port the domain verification fetches `.well-known` files from (a test's local server). */
    domainFilePort?: number;
  } = {},
): Promise<TestServer> {
  const shared = options.shareWith;
  const database = shared ? { url: shared.runtime.config.DATABASE_URL!, drop: async () => {} } : await createTestDatabase();
  const useRedis = options.redis ?? Boolean(process.env.TEST_REDIS_URL);
  const namespace = shared?.namespace ?? `lwt${randomBytes(4).toString('hex')}`;
  const port = await freePort();
  const config = loadConfig({
    NODE_ENV: 'test',
    PORT: String(port),
    DATABASE_URL: database.url,
    DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'lw-test-data-')),
    ...(shared ? { INDEX_DIR: shared.runtime.config.indexDir } : {}),
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    LOG_LEVEL: 'info',
    ...(useRedis ? { REDIS_URL: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379' } : {}),
    ...options.env,
  });
  let logText = '';
  const logStream = new Writable({
    write(chunk, _encoding, callback) {
      logText += chunk.toString();
      callback();
    },
  });
  const runtime = await startRuntime(config, { logStream, mailConsole: null, namespace, webDistDir: options.webDistDir, domainFilePort: options.domainFilePort });
  await runtime.app.listen({ port, host: '127.0.0.1' });
  const url = `http://127.0.0.1:${port}`;
  const secrets: string[] = [];
  const db = runtime.db;

  const outbox = async (): Promise<OutboxMail[]> => {
    const rows = await readOutbox(db);
    return rows.map((r) => ({ to: r.to_address, subject: r.subject, text: r.text_body, links: extractLinks(r.text_body) }));
  };

  const mailsTo = async (to: string, subject: RegExp) => (await outbox()).filter((m) => m.to.toLowerCase() === to.toLowerCase() && subject.test(m.subject));

  let closing: Promise<void> | undefined;
  const server: TestServer = {
    url,
    namespace,
    runtime,
    logs: () => logText,
    outbox,
    mailsTo,
    async waitForMail(to, subject, timeoutMs = 10_000, after = 0) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const matching = await mailsTo(to, subject);
        if (matching.length > after) return matching.at(-1)!;
        if (Date.now() > deadline) throw new Error(`no mail to ${to} matching ${subject}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    async createUser(opts = {}) {
      const email = opts.email ?? `user-${randomBytes(5).toString('hex')}@example.com`;
      const password = opts.password ?? TEST_PASSWORD;
      const id = await insertUser(db, { email, passwordHash: await hashPassword(password), verified: opts.verified ?? true });
      if (!id) throw new Error(`user ${email} exists`);
      await applyGrant(db, id, opts);
      const apiKey = opts.apiKey ? await createUserService(db).regenerateApiKey(id) : undefined;
      if (apiKey) secrets.push(apiKey);
      return { id, email, password, ...(apiKey ? { apiKey } : {}) };
    },
    async login(email, password = TEST_PASSWORD, remember = true) {
      const response = await fetch(`${url}/authentication/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(packLogin({ email, password, remember })),
      });
      const body = (await response.json()) as { auth_token?: string };
      const cookie = (response.headers.getSetCookie()[0] ?? '').split(';')[0] ?? '';
      if (body.auth_token) secrets.push(body.auth_token);
      if (cookie) secrets.push(cookie.split('=')[1] ?? '');
      return { token: body.auth_token ?? '', cookie, status: response.status };
    },
    ingest(well, records) {
      return ingestRecords({ indexDir: config.indexDir, scratchDir: config.dataDir, db, engine: runtime.engine }, well, records);
    },
    markSecret(...values) {
      secrets.push(...values);
    },
    close() {
      closing ??= closeOnce();
      return closing;
    },
  };
  async function closeOnce() {
    openServers.delete(server);
    // Every one-time token mailed during the test is a secret too, however it was logged.
    const mailed = await outbox().catch(() => [] as OutboxMail[]);
    secrets.push(...oneTimeTokens(mailed.flatMap((mail) => mail.links)));
    await runtime.close();
    await database.drop();
    fs.rmSync(config.dataDir, { recursive: true, force: true });
    if (useRedis && !shared) {
      const { Redis } = await import('ioredis');
      const redis = new Redis(config.REDIS_URL!);
      const keys = await redis.keys(`${namespace}*`);
      if (keys.length) await redis.del(...keys);
      await redis.quit();
    }
    const leaks = findLeaks(logText, secrets);
    if (leaks.length) throw new Error(`secrets in logs: ${leaks.join(', ')}`);
  }
  openServers.add(server);
  return server;
}

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

export interface ServerProcess {
  url: string;
  child: ChildProcess;
  /** Everything the process wrote (stdout and stderr). */
  output(): string;
  /** Resolves at exit, with the time it happened (Date.now()). */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
  /** SIGTERM, then SIGKILL if it has not exited within `graceMs` (idempotent). */
  stop(graceMs?: number): Promise<void>;
}

/**
 * The real server process (`server/src/server.ts` compiled, as `npm start` runs it) on a free port
 * with only `env` (plus PATH and HOME) as its environment; resolves once /readyz answers
 * 200. Stopped by the root cleanup if the test has not stopped it.
 */
export async function startServerProcess(
  env: Record<string, string>,
  readyTimeoutMs = 60_000,
  /** Another command line of the server (the production artifact's, say); default the checkout's built server. */
  launch: { command: string; args: string[]; cwd: string } = { command: process.execPath, args: cliArgs('server'), cwd: ROOT },
): Promise<ServerProcess> {
  const port = await freePort();
  let output = '';
  const child = spawn(launch.command, launch.args, {
    cwd: launch.cwd,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal, at: Date.now() })),
  );
  const running = () => child.exitCode === null && child.signalCode === null;
  let stopping: Promise<void> | undefined;
  const stop = (graceMs = 25_000) =>
    (stopping ??= (async () => {
      if (!running()) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    })());
  registerCleanup(() => stop());
  const url = `http://127.0.0.1:${port}`;
  const ready = async () => {
    try {
      return (await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(2000) })).status === 200;
    } catch {
      return false;
    }
  };
  const started = await Promise.race([eventually(ready, readyTimeoutMs).catch(() => false), exited.then(() => false)]);
  if (!started) {
    await stop(0);
    throw new Error(`the server process did not start: ${output.slice(-2000)}`);
  }
  return { url, child, output: () => output, exited, stop };
}

/** A new account (with `grant`) signed in on `server`: its fields and an access token. */
export async function signedIn(server: TestServer, grant: Parameters<TestServer['createUser']>[0] = {}) {
  const user = await server.createUser(grant);
  const { token } = await server.login(user.email);
  return { ...user, token };
}

/** Waits for any condition with polling; for asynchronous effects (jobs, mail). */
export async function eventually<T>(fn: () => Promise<T | undefined | false>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 100));
  }
}

export { sql };

/**
 * Buys through the sandbox card provider as the dashboard does: a checkout priced by the
 * server, then the overlay's Pay. Returns the checkout (payment) id once the payment is
 * `paid` (the signed event went through the queue, the webhook and the payment-event job).
 */
export async function payWithSandbox(server: TestServer, token: string, sku: string, quantity: number): Promise<string> {
  const checkout = await fetch(`${server.url}/payments/checkout`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ sku, quantity }),
  });
  const body = (await checkout.json()) as { checkout_id?: string; error?: string };
  if (!checkout.ok || !body.checkout_id) throw new Error(`checkout ${sku}×${quantity}: ${checkout.status} ${body.error ?? ''}`);
  const id = body.checkout_id;
  const pay = await fetch(`${server.url}/sandbox/checkouts/${id}/pay`, { method: 'POST' });
  if (!pay.ok) throw new Error(`sandbox pay: ${pay.status}`);
  await eventually(async () => {
    const row = await server.runtime.db.selectFrom('payments').select('status').where('id', '=', id).executeTakeFirst();
    return row?.status === 'paid';
  }, 20_000);
  return id;
}
