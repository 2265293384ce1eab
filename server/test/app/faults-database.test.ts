/**
 * Reliability test 34: PostgreSQL down or slow during traffic. The server reaches the
 * real PostgreSQL through a loopback TCP proxy the test controls (the shared server is
 * never stopped). Down (connections reset, new ones refused), silent (replies held) and
 * slow (every chunk later than the statement timeout): requests answer 503 within the
 * statement timeout, never hang, never a 500; /readyz says not ready. When the proxy
 * passes traffic again the service recovers on its own, with its whole pool.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDatabase, startTestServer, testDatabaseServer, type TestServer } from '../support/harness';
import { percentile, startTcpProxy, timedFetch, type ProxyMode, type TcpProxy, type Timed } from '../support/fault-tools';

const STATEMENT_TIMEOUT_MS = 1000;
const POOL_SIZE = 4;
// What a failing request may take beyond the statement timeout (a loaded 2-core machine).
const SLACK_MS = 1000;

let proxy: TcpProxy;
let server: TestServer;
let token = '';
// One key per client loop: a key runs at most 2 searches at a time (429 beyond).
const apiKeys: string[] = [];
let database: Awaited<ReturnType<typeof createTestDatabase>> | undefined;

after(async () => {
  await proxy?.setMode({ kind: 'pass' });
  await server?.close();
  await proxy?.close();
  await database?.drop();
});

before(async () => {
  const admin = new URL(await testDatabaseServer());
  proxy = await startTcpProxy({ host: admin.hostname, port: Number(admin.port || 5432) });
  database = await createTestDatabase();
  server = await startTestServer({
    // Jobs on PostgreSQL too, through the proxy: the workers live through the outage as well.
    redis: false,
    env: {
      DATABASE_URL: proxy.rewrite(database.url),
      DB_STATEMENT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS),
      DB_POOL_SIZE: String(POOL_SIZE),
      API_RATE_PER_SECOND: '10000',
      API_RATE_BURST: '10000',
      SEARCH_DAILY_LIMIT: '1000000',
    },
  });
  for (let i = 0; i < 8; i++) apiKeys.push((await server.createUser({ searchDays: 30, searchCredits: 100_000, apiKey: true })).apiKey!);
  const user = await server.createUser();
  const login = await server.login(user.email);
  assert.equal(login.status, 200);
  token = login.token;
});

type Kind = 'info' | 'search' | 'ready';

function request(kind: Kind, n = 0): Promise<Timed> {
  const { url } = server;
  if (kind === 'info') return timedFetch(`${url}/user/info`, { headers: { authorization: `Bearer ${token}` } });
  if (kind === 'ready') return timedFetch(`${url}/readyz`);
  return timedFetch(`${url}/v2/search`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', [server.runtime.config.apiKeyHeader]: apiKeys[n % apiKeys.length]! },
    body: JSON.stringify({ query: 'email:"nobody@example.com"' }),
  });
}

interface Sample extends Timed {
  kind: Kind;
  /** The proxy mode when the request was sent. */
  mode: ProxyMode['kind'];
}

/** `clients` loops sending requests of every kind in turn until stopped; every answer kept. */
function traffic(clients = 6) {
  const samples: Sample[] = [];
  let running = true;
  const kinds: Kind[] = ['info', 'search', 'ready'];
  const loops = Array.from({ length: clients }, async (_, i) => {
    for (let n = i; running; n++) {
      const kind = kinds[n % kinds.length]!;
      const mode = proxy.mode().kind;
      const sample = { ...(await request(kind, i)), kind, mode };
      trace(sample.mode, sample.kind, sample.status, sample.error ?? '', Math.round(sample.ms), sample.body.slice(0, 80));
      samples.push(sample);
      await new Promise((r) => setTimeout(r, 20));
    }
  });
  return {
    samples,
    async stop() {
      running = false;
      await Promise.all(loops);
      return samples;
    },
  };
}

const trace = (...args: unknown[]) => process.env.FAULTS_TRACE && console.error(new Date().toISOString(), ...args);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls every kind of request until all answer 200; returns how long that took. */
async function recovery(limitMs: number): Promise<number> {
  const started = Date.now();
  for (;;) {
    const replies = await Promise.all((['info', 'search', 'ready'] as Kind[]).map((kind) => request(kind)));
    trace('recovery', replies.map((r) => `${r.status} ${r.error ?? ''} ${Math.round(r.ms)}`));
    if (replies.every((r) => r.status === 200)) return Date.now() - started;
    if (Date.now() - started > limitMs) {
      assert.fail(`not recovered after ${limitMs} ms: ${replies.map((r) => `${r.status} ${r.error ?? ''} ${r.body.slice(0, 80)}`).join(' | ')}`);
    }
    await sleep(100);
  }
}

/** The failures of one fault: 503 with the generic body, quick; nothing else but 200. */
function checkFailures(samples: Sample[], fault: string, limitMs: number) {
  const during = samples.filter((s) => s.mode === fault);
  assert.ok(during.length >= 6, `traffic during ${fault}: ${during.length} requests`);
  const failed = during.filter((s) => s.status !== 200);
  assert.ok(failed.length >= 3, `${fault}: requests failed (${failed.length} of ${during.length})`);
  for (const s of during) {
    assert.ok(s.status === 200 || s.status === 503, `${fault}: ${s.kind} answered ${s.status} ${s.error ?? ''} ${s.body.slice(0, 200)}`);
    if (s.status === 503) {
      const body = JSON.parse(s.body) as Record<string, unknown>;
      assert.ok(body.error === 'Service temporarily unavailable' || body.status === 'database unavailable', `${fault}: generic 503 body, got ${s.body}`);
      assert.doesNotMatch(s.body, /at .+\.(ts|js):\d+|pg|ECONN|timeout/i, 'no detail of the failure reaches the client');
    }
    assert.ok(s.ms < limitMs, `${fault}: ${s.kind} took ${Math.round(s.ms)} ms (limit ${limitMs})`);
  }
  const ms = failed.map((s) => s.ms);
  return { requests: during.length, failed: failed.length, p50: Math.round(percentile(ms, 50)), max: Math.round(Math.max(...ms)) };
}

/** After recovery: more concurrent requests than the pool has connections, all 200 (no connection lost for good). */
async function wholePool() {
  const replies = await Promise.all(Array.from({ length: POOL_SIZE * 4 }, (_, i) => request(i % 2 ? 'info' : 'search', i)));
  assert.deepEqual(
    replies.map((r) => r.status),
    replies.map(() => 200),
  );
}

describe('test 34: PostgreSQL down or slow during traffic', () => {
  test('down: 503 fast, /readyz not ready, recovers on its own', async () => {
    await recovery(5000);
    const load = traffic();
    await sleep(800);
    await proxy.setMode({ kind: 'refuse' });
    await sleep(2500);
    const ready = await request('ready');
    assert.equal(ready.status, 503);
    assert.deepEqual(JSON.parse(ready.body), { status: 'database unavailable' });
    await proxy.setMode({ kind: 'pass' });
    const recoveredMs = await recovery(5000);
    const samples = await load.stop();
    const figures = checkFailures(samples, 'refuse', STATEMENT_TIMEOUT_MS + SLACK_MS);
    assert.ok(samples.filter((s) => s.mode === 'pass').some((s) => s.status === 200));
    await wholePool();
    console.log(`# down: ${JSON.stringify(figures)} recovered in ${recoveredMs} ms`);
  });

  test('silent (replies held): 503 within the statement timeout, the pool comes back', async () => {
    await recovery(5000);
    const load = traffic();
    await sleep(500);
    await proxy.setMode({ kind: 'hold' });
    await sleep(3500);
    assert.equal((await request('ready')).status, 503);
    await proxy.setMode({ kind: 'pass' });
    const recoveredMs = await recovery(5000);
    const samples = await load.stop();
    const figures = checkFailures(samples, 'hold', STATEMENT_TIMEOUT_MS + SLACK_MS);
    await wholePool();
    console.log(`# silent: ${JSON.stringify(figures)} recovered in ${recoveredMs} ms`);
  });

  test('slow (every chunk later than the statement timeout): 503 within it, then recovers', async () => {
    await recovery(5000);
    const load = traffic();
    await sleep(500);
    await proxy.setMode({ kind: 'delay', ms: STATEMENT_TIMEOUT_MS * 2 });
    await sleep(3500);
    assert.equal((await request('ready')).status, 503);
    await proxy.setMode({ kind: 'pass' });
    const recoveredMs = await recovery(5000 + STATEMENT_TIMEOUT_MS * 2);
    const samples = await load.stop();
    const figures = checkFailures(samples, 'delay', STATEMENT_TIMEOUT_MS + SLACK_MS);
    await wholePool();
    console.log(`# slow: ${JSON.stringify(figures)} recovered in ${recoveredMs} ms`);
  });

  test('the server never answered 500 during the faults', () => {
    const logs = server.logs();
    assert.ok(!/"statusCode":500/.test(logs), 'no 500 answered during the faults');
  });
});
