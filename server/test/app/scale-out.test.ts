/**
 * More than one server: two real server processes (server/src/server.ts,
 * as `npm start` runs it) share one PostgreSQL database, one Redis and one index directory;
 * the operator ingest CLI, a third process, publishes into that directory. Separate
 * processes, so nothing is shared through the engine addon's memory. Proven here, each
 * delay measured and logged:
 *
 * - a segment the operator publishes, and an entry removed through one instance, are
 *   visible on both within VISIBLE_WITHIN_MS;
 * - rate limits are one bucket for both (Redis);
 * - search metering holds across both: the credits are spent exactly (no search served
 *   uncharged), the daily limit is exact, and the counts add up (PostgreSQL);
 * - a websocket on either instance receives what a job on the other publishes (Redis).
 *
 * Redis is a redis-server of the test's own: server.ts uses the fixed namespace
 * `leakwell`, which must not meet another server's queues on a shared Redis.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import { Kysely, PostgresDialect, sql } from 'kysely';
import { loadConfig } from '../../src/config';
import type { Database } from '../../src/db/schema';
import { createPool } from '../../src/infra/database';
import { createQueueSystem } from '../../src/infra/queues';
import { hashPassword } from '../../src/auth/passwords';
import { applyGrant, insertUser, type Grant } from '../../src/users/user-repository';
import { createUserService } from '../../src/users/user-service';
import { packLogin, packSearch } from '../../src/common/obfuscation';
import { readOutbox } from '../../src/mail/outbox-repository';
import { extractLinks } from '../../src/mail/mail-service';
import { simulateCryptoPayment } from '../../src/payments/crypto/sandbox';
import { sharedBatchReserve } from '../../src/search/search-meter';
import { TEST_PASSWORD, createTestDatabase, eventually, findLeaks, oneTimeTokens, startServerProcess, type ServerProcess } from '../support/harness';
import { call, connectWebSocket, freshIp, type Reply } from '../support/helpers';
import { startPrivateRedis } from '../support/fault-tools';
import { cliArgs } from '../../../scripts/lib/cli-command';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const VISIBLE_WITHIN_MS = 5000;

// The public API's shared bucket, and a batch reserve that covers what it lets one account
// search on every instance together while a snapshot may be stale (docs/scale-out.md
// and docs/decisions/0012-batched-search-metering.md): burst + rate × (snapshot age + two writes) = 20 + 20 × 1.5 = 50 ≤ 60.
const API_RATE_BURST = 20;
const API_RATE_PER_SECOND = 20;
const SEARCH_BATCH_RESERVE = 60;
const SEARCH_DAILY_LIMIT = 150;
const SEARCH_FLUSH_MS = 250;
const MONITOR_V1_BURST = 10;
assert.ok(SEARCH_BATCH_RESERVE >= sharedBatchReserve({ burst: API_RATE_BURST, ratePerSecond: API_RATE_PER_SECOND }, SEARCH_FLUSH_MS));

const SEED = [
  { email: 'dave@scale.example', password: 'dave-pass-1', username: 'dave_scale' },
  { email: 'alice@scale.example', password: 'alice-pass-1', username: 'alice_scale' },
];
const PUBLISHED = [{ email: 'erin@scale.example', password: 'erin-pass-1', username: 'erin_scale' }];

interface Instance extends ServerProcess {
  name: string;
}

describe('two server processes sharing PostgreSQL, Redis and one index directory', { timeout: 300_000 }, () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  const secrets: string[] = [];
  let db: Kysely<Database>;
  let env: Record<string, string>;
  let indexDir: string;
  let scratch: string;
  let instances: Instance[];
  let apiKeyHeader: string;

  /** The operator ingest CLI (scripts/ingest.ts), a process of its own, into the shared index directory. */
  async function operatorIngest(well: string, records: object[]): Promise<void> {
    const file = path.join(scratch, `${well}.jsonl`);
    fs.writeFileSync(file, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const child = spawn(process.execPath, [...cliArgs('ingest'), '--well', well, '--index-dir', indexDir, file], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NODE_ENV: 'test', DATABASE_URL: env.DATABASE_URL!, DATA_DIR: scratch },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    assert.equal(code, 0, `ingest of ${well} failed: ${output.slice(-2000)}`);
  }

  async function createUser(grant: Grant & { apiKey?: boolean }) {
    const email = `scale-${randomBytes(5).toString('hex')}@example.com`;
    const id = (await insertUser(db, { email, passwordHash: await hashPassword(TEST_PASSWORD), verified: true }))!;
    await applyGrant(db, id, grant);
    const apiKey = grant.apiKey ? await createUserService(db).regenerateApiKey(id) : undefined;
    if (apiKey) secrets.push(apiKey);
    return { id, email, apiKey };
  }

  async function login(target: Instance, email: string): Promise<string> {
    const reply = await call(target.url, 'POST', '/authentication/login', { body: packLogin({ email, password: TEST_PASSWORD, remember: false }), ip: freshIp() });
    assert.equal(reply.status, 200, `login on ${target.name}`);
    const token = reply.body.auth_token as string;
    secrets.push(token);
    return token;
  }

  function dashboardSearch(target: Instance, token: string, email: string) {
    return call(target.url, 'POST', '/search', {
      token,
      body: packSearch({ query: email, type: 'email', page: 1, regex: false, wildcard: false, deduplicate: true }),
    });
  }

  /** One /v2 search, from a fresh client address (only the key's and the user's buckets count). */
  function apiSearch(target: Instance, key: string): Promise<Reply> {
    return call(target.url, 'POST', '/v2/search', { body: { query: 'email:alice@scale.example' }, headers: { [apiKeyHeader]: key }, ip: freshIp() });
  }

  /** A token per instance, each of its own subscribed user (so that polls stay well under the daily limit). */
  async function pollersOnEach(): Promise<string[]> {
    return Promise.all(instances.map(async (target) => login(target, (await createUser({ searchDays: 30 })).email)));
  }

  /** Polls `check` on every instance at once until it holds on each; the Date.now() at which it first held, per instance. */
  async function whenTrueOnEach(check: (target: Instance, token: string) => Promise<boolean>, tokens: string[], timeoutMs = VISIBLE_WITHIN_MS * 3): Promise<number[]> {
    return Promise.all(
      instances.map(async (target, i) => {
        const token = tokens[i]!;
        const deadline = Date.now() + timeoutMs;
        for (;;) {
          if (await check(target, token)) return Date.now();
          if (Date.now() > deadline) throw new Error(`not seen on ${target.name} within ${timeoutMs} ms`);
          await new Promise((r) => setTimeout(r, 50));
        }
      }),
    );
  }

  const load = () => fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

  before(async () => {
    const database = await createTestDatabase();
    cleanups.push(database.drop);
    const redis = await startPrivateRedis();
    cleanups.push(() => redis.close());
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'lw-test-scale-'));
    cleanups.push(async () => fs.rmSync(scratch, { recursive: true, force: true }));
    indexDir = path.join(scratch, 'index');
    env = {
      NODE_ENV: 'test',
      LOG_LEVEL: 'info',
      DATABASE_URL: database.url,
      REDIS_URL: redis.url,
      INDEX_DIR: indexDir,
      TRUSTED_PROXIES: '127.0.0.1',
      API_RATE_BURST: String(API_RATE_BURST),
      API_RATE_PER_SECOND: String(API_RATE_PER_SECOND),
      SEARCH_BATCH_RESERVE: String(SEARCH_BATCH_RESERVE),
      SEARCH_DAILY_LIMIT: String(SEARCH_DAILY_LIMIT),
      SEARCH_FLUSH_MS: String(SEARCH_FLUSH_MS),
      MONITOR_V1_BURST: String(MONITOR_V1_BURST),
      MONITOR_V1_RATE_PER_SECOND: '1',
    };
    apiKeyHeader = loadConfig(env).apiKeyHeader;
    // The first ingest also creates the schema (the CLI migrates before it writes the catalogue).
    await operatorIngest('Scale Seed', SEED);
    db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: createPool(database.url, { max: 4 }) }) });
    cleanups.push(() => db.destroy());
    // Each instance its own DATA_DIR (nothing of it is shared); the index directory is shared.
    const dataDirs = ['a', 'b'].map((name) => path.join(scratch, `data-${name}`));
    for (const dir of dataDirs) fs.mkdirSync(dir);
    const started = await Promise.allSettled(dataDirs.map((dir) => startServerProcess({ ...env, DATA_DIR: dir }, 120_000)));
    for (const result of started) if (result.status === 'fulfilled') cleanups.push(() => result.value.stop());
    for (const result of started) if (result.status === 'rejected') throw result.reason;
    instances = started.map((result, i) => Object.assign((result as PromiseFulfilledResult<ServerProcess>).value, { name: i === 0 ? 'A' : 'B' }));
    cleanups.push(async () => {
      await Promise.all(instances.map((p) => p.stop()));
      const mailed = await readOutbox(db).catch(() => []);
      // The log is the JSON lines; the outbox prints its links on the console apart from it, by design.
      const logLines = instances.flatMap((p) => p.output().split('\n').filter((line) => line.startsWith('{')));
      const leaks = findLeaks(logLines.join('\n'), [...secrets, ...oneTimeTokens(mailed.flatMap((m) => extractLinks(m.text_body)))]);
      assert.deepEqual(leaks, [], 'no secret in either log');
    });
  });

  after(async () => {
    const failures: unknown[] = [];
    while (cleanups.length) await cleanups.pop()!().catch((error: unknown) => failures.push(error));
    if (failures.length) throw failures[0];
  });

  test('a segment published by the operator ingest is searchable on both instances within 5 s', async () => {
    const found = (target: Instance, token: string) => dashboardSearch(target, token, PUBLISHED[0]!.email).then((r) => r.body.total_results === 1);
    const tokens = await pollersOnEach();
    assert.deepEqual(await Promise.all(instances.map((t, i) => found(t, tokens[i]!))), [false, false], 'not there before');
    const seen = whenTrueOnEach(found, tokens);
    await operatorIngest('Scale Published', PUBLISHED);
    // The manifest is swapped last, when the segment is published: the clock starts there.
    const publishedAt = fs.statSync(path.join(indexDir, 'MANIFEST')).mtimeMs;
    const delays = (await seen).map((at) => at - publishedAt);
    console.log(`new segment visible after ${delays.map((d) => `${Math.round(d)} ms`).join(' (A), ')} (B); load ${load()}`);
    for (const delay of delays) assert.ok(delay <= VISIBLE_WITHIN_MS, `visible after ${Math.round(delay)} ms`);
  });

  test('an entry removed through one instance is gone on both within 5 s', async () => {
    const [a] = instances;
    const owner = await createUser({ searchDays: 30 });
    const token = await login(a!, owner.email);
    const entry = (await dashboardSearch(a!, token, 'dave@scale.example')).body.results[0];
    assert.ok(entry?.id, 'the entry is there first');
    assert.equal((await call(a!.url, 'POST', '/request-entry-removal', { token, ip: freshIp(), body: { id: entry.id, email: 'dave@scale.example', breach_id: '' } })).status, 200);
    const mail = await eventually(async () => (await readOutbox(db, { to: 'dave@scale.example' })).find((m) => /removal/i.test(m.subject)));
    const v = new URL(extractLinks(mail.text_body)[0]!).searchParams.get('v')!;
    const gone = (target: Instance, pollToken: string) => dashboardSearch(target, pollToken, 'dave@scale.example').then((r) => r.status === 200 && r.body.total_results === 0);
    const tokens = await pollersOnEach();
    const confirmedAt = Date.now();
    assert.equal((await call(a!.url, 'POST', '/remove-entry', { token, ip: freshIp(), body: { id: entry.id, v } })).status, 200);
    const delays = (await whenTrueOnEach(gone, tokens)).map((at) => at - confirmedAt);
    console.log(`removal visible after ${delays.map((d) => `${Math.round(d)} ms`).join(' (A), ')} (B), from the confirming request; load ${load()}`);
    for (const delay of delays) assert.ok(delay <= VISIBLE_WITHIN_MS, `gone after ${Math.round(delay)} ms`);
  });

  test('rate limits are one bucket for both instances', async () => {
    // The entry-removal requests: 10 at once per user and address, then one a minute.
    const user = await createUser({ searchDays: 30 });
    const tokens = await Promise.all(instances.map((t) => login(t, user.email)));
    const ip = freshIp();
    const request = (i: number) => call(instances[i % 2]!.url, 'POST', '/request-entry-removal', { token: tokens[i % 2], ip, body: { id: '0-0', email: 'nobody@scale.example', breach_id: '' } });
    for (let i = 0; i < 10; i++) assert.equal((await request(i)).status, 200, `request ${i + 1} of the burst, alternating A and B`);
    assert.deepEqual([(await request(0)).status, (await request(1)).status], [429, 429], 'the 11th is refused on either');

    // The Monitor API V1: a key that overflows its bucket on one instance is blocked on both.
    const monitorKey = (await createUser({ apiKey: true })).apiKey!;
    const monitorCall = (target: Instance) =>
      call(target.url, 'POST', '/monitor-api/v1/get-user-info', { body: {}, headers: { authorization: `Bearer ${monitorKey}` }, ip: freshIp() });
    let overflowed = -1;
    for (let i = 0; i < MONITOR_V1_BURST * 3 && overflowed < 0; i++) if ((await monitorCall(instances[i % 2]!)).status === 429) overflowed = i;
    assert.ok(overflowed >= MONITOR_V1_BURST, `the burst of ${MONITOR_V1_BURST} was served first (refused at request ${overflowed + 1})`);
    for (const target of instances) assert.equal((await monitorCall(target)).status, 429, `blocked on ${target.name} too`);

    // The public API: a burst on A, then one on B, against one bucket of API_RATE_BURST
    // refilled at API_RATE_PER_SECOND. Shared, both together get at most the burst plus what
    // leaked in meanwhile; two buckets would serve both bursts.
    const key = (await createUser({ searchDays: 30, searchCredits: 1000, apiKey: true })).apiKey!;
    const started = performance.now();
    const first = await Promise.all(Array.from({ length: API_RATE_BURST }, () => apiSearch(instances[0]!, key)));
    const second = await Promise.all(Array.from({ length: API_RATE_BURST }, () => apiSearch(instances[1]!, key)));
    const seconds = (performance.now() - started) / 1000;
    const served = [first, second].map((replies) => replies.filter((r) => r.status === 200).length);
    const limit = API_RATE_BURST + Math.ceil(API_RATE_PER_SECOND * seconds) + 1;
    console.log(`API bursts of ${API_RATE_BURST} on A then B in ${seconds.toFixed(2)} s: ${served[0]} + ${served[1]} served (one bucket allows ≤ ${limit}); load ${load()}`);
    assert.ok([...first, ...second].every((r) => r.status === 200 || r.status === 429), 'only served or limited');
    assert.ok(served[0]! + served[1]! <= limit, `${served[0]! + served[1]!} served`);
    for (const p of instances) assert.doesNotMatch(p.output(), /rate limits kept in memory/, 'Redis held the limits throughout');
  });

  /**
   * Searches with `key` from `workers` clients on each instance at once until every client
   * got a final answer (`final` is true for it); a rate-limited or busy answer is retried.
   */
  async function spendOnBoth(key: string, workers: number, final: (reply: Reply) => boolean) {
    const replies: Reply[] = [];
    await Promise.all(
      instances.flatMap((target) =>
        Array.from({ length: workers }, async () => {
          for (;;) {
            const reply = await apiSearch(target, key);
            replies.push(reply);
            if (final(reply)) return;
            if (reply.status === 429) await new Promise((r) => setTimeout(r, 30));
            else assert.equal(reply.status, 200, JSON.stringify(reply.body));
          }
        }),
      ),
    );
    return replies;
  }

  async function usage(userId: string) {
    const user = await db.selectFrom('users').select(['search_credits', 'search_locked_until']).where('id', '=', userId).executeTakeFirstOrThrow();
    const counted = await db.selectFrom('search_counts').select('searches').where('user_id', '=', userId).where('day', '=', sql<Date>`current_date`).executeTakeFirst();
    const ledger = await db.selectFrom('credit_ledger').select(['delta', 'balance_after']).where('user_id', '=', userId).where('kind', '=', 'search').orderBy('balance_after', 'desc').execute();
    return { credits: user.search_credits, lockedUntil: user.search_locked_until, searches: counted?.searches ?? 0, ledger };
  }

  test('credits and the daily limit hold across both instances, and the counts add up', async () => {
    const credits = 130;
    const payer = await createUser({ searchDays: 30, searchCredits: credits, apiKey: true });
    const heavy = await createUser({ searchDays: 30, searchCredits: 10_000, apiKey: true });
    const locked = (r: Reply) => r.status === 429 && Number(r.headers.get('retry-after')) > 60;
    const started = performance.now();
    const [paid, daily] = await Promise.all([
      spendOnBoth(payer.apiKey!, 3, (r) => r.status === 403),
      spendOnBoth(heavy.apiKey!, 3, locked),
    ]);
    const seconds = (performance.now() - started) / 1000;

    const served = paid.filter((r) => r.status === 200).length;
    const refused = paid.filter((r) => r.status === 403);
    assert.ok(refused.every((r) => r.body.error === 'Insufficient Credits'), JSON.stringify(refused[0]?.body));
    const payerUsage = await eventually(async () => {
      const u = await usage(payer.id);
      return u.searches === served + refused.length && u;
    });
    const dailyServed = daily.filter((r) => r.status === 200).length;
    const heavyUsage = await usage(heavy.id);
    console.log(
      `metering on both instances in ${seconds.toFixed(1)} s: ${served} searches served for ${credits} credits (${refused.length} refused), ` +
        `${dailyServed} served under a daily limit of ${SEARCH_DAILY_LIMIT}; load ${load()}`,
    );
    assert.equal(served, credits, 'every credit spent, no search served uncharged');
    assert.equal(payerUsage.credits, 0);
    assert.deepEqual(
      payerUsage.ledger.map((row) => [row.delta, row.balance_after]),
      Array.from({ length: credits }, (_, i) => [-1, credits - 1 - i]),
      'one ledger row per credit',
    );
    assert.equal(dailyServed, SEARCH_DAILY_LIMIT, 'exactly the daily limit was served');
    assert.ok(heavyUsage.lockedUntil && heavyUsage.lockedUntil.getTime() > Date.now(), 'and then search was locked');
    assert.equal(heavyUsage.credits, 10_000 - SEARCH_DAILY_LIMIT);
    assert.ok(heavyUsage.searches >= SEARCH_DAILY_LIMIT + 1, 'the searches past the limit are counted');
    for (const target of instances) {
      const answer = await eventually(async () => {
        const reply = await apiSearch(target, heavy.apiKey!);
        return (reply.status !== 429 || locked(reply)) && reply;
      });
      assert.ok(locked(answer), `locked on ${target.name}: ${answer.status}`);
    }
    for (const p of instances) {
      assert.doesNotMatch(p.output(), /not charged/, 'no batched charge went past the balance');
      assert.doesNotMatch(p.output(), /SEARCH_BATCH_RESERVE is below/, 'the reserve covers the shared rate limit');
    }
  });

  test('a websocket on either instance receives what a job on the other publishes', async () => {
    const buyer = await createUser({});
    const token = await login(instances[0]!, buyer.email);
    const invoice = await call(instances[0]!.url, 'POST', '/payments/crypto-invoice', { token, body: { sku: 'search-credits', quantity: 10 } });
    assert.equal(invoice.status, 200);
    const channel = `crypto-payment-${invoice.body.id}`;
    const sockets = await Promise.all(instances.map((t) => connectWebSocket(t)));
    for (const client of sockets) {
      client.send({ type: 'auth', token });
      assert.deepEqual(await client.next(), { type: 'auth', ok: true });
      client.send({ type: 'action', action: 'join-channel', channel });
      assert.deepEqual(await client.next(), { type: 'joined', channel });
    }
    // The payment event goes through the queue: whichever instance's worker applies it
    // publishes once, and the other instance's socket gets it only through Redis.
    const queues = createQueueSystem({ connectionString: env.DATABASE_URL!, redisUrl: env.REDIS_URL, namespace: 'leakwell' });
    try {
      const sentAt = Date.now();
      await simulateCryptoPayment({ config: loadConfig(env), db, queues }, { paymentId: invoice.body.id });
      const received = await Promise.all(sockets.map(async (client) => ({ message: await client.next(15_000), at: Date.now() })));
      for (const { message } of received) assert.deepEqual(message, { type: 'message', channel, data: { status: 'complete' } });
      console.log(`payment message on A after ${received[0]!.at - sentAt} ms, on B after ${received[1]!.at - sentAt} ms (event stored, queued, applied, published); load ${load()}`);
    } finally {
      await queues.close();
      for (const client of sockets) client.socket.close();
    }
  });
});
