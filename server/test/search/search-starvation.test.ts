/**
 * Reliability test 14: while expensive queries run, cheap searches, logins and the
 * event loop stay responsive; and one account cannot hold more than its share of searches.
 *
 * Expensive: regexes without a literal the planner could narrow to, whose automaton the
 * lazy DFA cannot hold (a bounded repetition between character classes), over 150,000
 * distinct 160-byte terms: more than a second each here. Eight accounts keep one each in
 * flight for the whole measurement (every query text different, so no count is remembered).
 * Cheap: exact dashboard searches and logins, sent one at a time, first with the server
 * idle, then under that load, the same number of each; their p99 under load must stay
 * within 2× of idle or within idle + 50 ms (`SLACK_MS`), and the event loop delay (measured
 * in this process, where the server runs) under 20 ms. Without the engine's own threads,
 * the regexes would fill libuv's pool (4 threads) that argon2 and every search also wait
 * for: cheap p99 would go from milliseconds to seconds.
 *
 * Why the slack: the heavy lane runs under SCHED_IDLE, which keeps the CPU for the cheap work but
 * not the caches and memory bandwidth that eight scans share with argon2 (memory-hard) on two
 * cores. On the CI machines that adds tens of milliseconds to a p99 under load (30 logins:
 * the p99 is the slowest one), which a user does not notice; that is contention. Starvation
 * is seconds, and fails every attempt at once (`gross`).
 *
 * Costly refusals: a regex refused as too large once compiled (`[\w\W]{1000}[\w\W]{1000}`)
 * costs heavy CPU to find out. Refused on the quick lane that serves exact lookups, neither
 * counted nor charged, four free accounts looping such patterns would take another user's
 * exact search from milliseconds to seconds. So the refusal runs on the heavy lane and
 * counts as a search; exact searches keep their p99 within 2× idle or idle + 10 ms
 * (`COSTLY_SLACK_MS`: no scan runs, nothing shares the caches).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { packLogin, packSearch } from '../../src/common/obfuscation';
import { TEST_PASSWORD, startTestServer, type TestServer } from '../support/harness';
import { call, callV2, freshIp } from '../support/helpers';

const RECORDS = 150_000;
// Long terms (the engine indexes up to 256 bytes) so that a scan stays expensive (the test
// asks for half a second at least) even as the engine's scans get faster.
const TERM_BYTES = 240;
const HEAVY_USERS = 8;
// The machine is shared (2 cores, other suites running): a comparison is repeated when the
// neighbours' load made it fail; starvation fails every attempt by orders of magnitude.
const ATTEMPTS = 3;
const SEARCH_SAMPLES = 150;
const LOGIN_SAMPLES = 30;
/** A measurement stops collecting past this (a starved cheap search takes seconds). */
const PHASE_LIMIT_MS = 30_000;
/** Above 2× idle, what contention for caches and memory may add to a p99 (see the header). */
const SLACK_MS = 50;
/** Free accounts looping regexes refused for their cost, two at a time each (the cap). */
const COSTLY_USERS = 4;
const COSTLY_PER_USER = 2;
/** Above 2× idle, what serving those refusals may add to an exact search's p99. */
const COSTLY_SLACK_MS = 10;
/**
 * Each loop's pause between answers: 8 loops send at most 160 requests a second, many times
 * what they could if a refusal were costly. Unpaced, any loop of requests, cheap ones too,
 * keeps busy the one JS thread this process's clients share with the server (the limit to
 * that is the API's rate limit, not the engine's), and the exact searches would measure
 * that thread's load, not the engine's.
 */
const COSTLY_PAUSE_MS = 50;

let server: TestServer;

/** Deterministic lower-case text (a linear congruential generator). */
function corpus(): object[] {
  let seed = 42;
  const letter = () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return String.fromCharCode(97 + (seed % 26));
  };
  return Array.from({ length: RECORDS }, (_, i) => ({
    email: `user${i}@example.com`,
    company: Array.from({ length: TERM_BYTES }, letter).join(''),
  }));
}

/** A different text for every call (the engine remembers counts per query text). */
let heavyCount = 0;
function heavyQuery(): string {
  const n = heavyCount++;
  return `company:/[a-m][a-z]{${30 + (n % 20)}}[n-z][a-c][d-k][w-z][a-b]{1,${1 + Math.floor(n / 20)}}/`;
}

/** Refused as too large once compiled, a different text every call (no cache helps). */
let costlyCount = 0;
function costlyQuery(): string {
  const n = costlyCount++;
  return String.raw`email:/[\w\W]{${1000 + (n % 997)}}[\w\W]{${1000 - (Math.floor(n / 997) % 500)}}/`;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

async function timed(fn: () => Promise<number>): Promise<number> {
  const start = performance.now();
  const status = await fn();
  const ms = performance.now() - start;
  assert.equal(status, 200);
  return ms;
}

before(async () => {
  server = await startTestServer({ env: { TRUSTED_PROXIES: '127.0.0.1', SEARCH_TIME_BUDGET_MS: '60000', API_RATE_BURST: '1000', API_RATE_PER_SECOND: '1000', SEARCH_CONCURRENCY_WAIT_MS: '0' } });
  await server.ingest('Starvation Corpus', corpus());
});

after(() => server.close());

describe('search under heavy queries (test 14)', () => {
  test('while 8 expensive queries run, cheap searches and logins keep their p99 (≤ 2× idle, or idle + 50 ms) and the event loop its delay (< 20 ms)', async () => {
    const searcher = await server.createUser({ searchDays: 30 });
    const { token } = await server.login(searcher.email);
    const loginUser = await server.createUser();
    let n = 0;
    const cheapSearch = () =>
      timed(async () => {
        const i = (n++ * 7919) % RECORDS;
        const reply = await call(server.url, 'POST', '/search', {
          token,
          body: packSearch({ query: `user${i}@example.com`, type: 'email', page: 1, regex: false, wildcard: false, deduplicate: true }),
        });
        assert.equal(reply.body.total_results, 1);
        return reply.status;
      });
    const login = () =>
      timed(async () => {
        const reply = await call(server.url, 'POST', '/authentication/login', {
          ip: freshIp(),
          body: packLogin({ email: loginUser.email, password: TEST_PASSWORD, remember: false }),
        });
        server.markSecret(reply.body.auth_token ?? '');
        return reply.status;
      });
    /** The same requests every time, one at a time: cheap searches with a login every fifth; and the loop's delay meanwhile. */
    const measure = async () => {
      const searches: number[] = [];
      const logins: number[] = [];
      const delay = monitorEventLoopDelay({ resolution: 10 });
      delay.enable();
      const deadline = performance.now() + PHASE_LIMIT_MS;
      for (let i = 0; i < SEARCH_SAMPLES && performance.now() < deadline; i++) {
        searches.push(await cheapSearch());
        if (i % 5 === 0 && logins.length < LOGIN_SAMPLES) logins.push(await login());
      }
      delay.disable();
      return { search: percentile(searches, 99), login: percentile(logins, 99), loop: delay.percentile(99) / 1e6, loopMax: delay.max / 1e6, samples: searches.length + logins.length };
    };

    // Warm up (JIT, connections, the corpus's pages in memory), then the idle figures.
    for (let i = 0; i < 20; i++) await cheapSearch();
    for (let i = 0; i < 3; i++) await login();

    const heavyUsers = await Promise.all(Array.from({ length: HEAVY_USERS }, () => server.createUser({ searchDays: 30, searchCredits: 10_000, apiKey: true })));
    const failures: string[] = [];
    const passes: string[] = [];
    let gross = false;
    for (let attempt = 1; attempt <= ATTEMPTS && passes.length === 0 && !gross; attempt++) {
      const idle = await measure();

      // Eight expensive queries in flight for the whole measurement, from eight accounts.
      let loading = true;
      let heavyDone = 0;
      let heavyMs = 0;
      let inFlight = 0;
      const workers = heavyUsers.map(async (user) => {
        while (loading) {
          inFlight++;
          const start = performance.now();
          const reply = await callV2(server, user.apiKey, { query: heavyQuery(), regex: true, size: 10 });
          inFlight--;
          assert.equal(reply.status, 200, JSON.stringify(reply.body));
          heavyDone++;
          heavyMs = Math.max(heavyMs, performance.now() - start);
        }
      });
      // Every query queued or running before measuring.
      while (inFlight < HEAVY_USERS) await new Promise((r) => setTimeout(r, 10));
      await new Promise((r) => setTimeout(r, 300));
      const loaded = await measure();
      const stillRunning = inFlight;
      loading = false;
      await Promise.all(workers);

      const line =
        `attempt ${attempt}: cheap search p99 idle ${idle.search.toFixed(1)} ms, loaded ${loaded.search.toFixed(1)} ms; ` +
        `login p99 idle ${idle.login.toFixed(1)} ms, loaded ${loaded.login.toFixed(1)} ms; event loop delay p99 idle ${idle.loop.toFixed(1)} ms, loaded ${loaded.loop.toFixed(1)} ms (max ${loaded.loopMax.toFixed(1)} ms); ` +
        `${heavyDone} expensive queries answered, the slowest in ${heavyMs.toFixed(0)} ms, ${stillRunning} in flight at the end; ${loaded.samples} of ${SEARCH_SAMPLES + LOGIN_SAMPLES} requests in ${PHASE_LIMIT_MS / 1000} s`;
      console.log(`# ${line}`);
      assert.equal(stillRunning, HEAVY_USERS, 'the expensive queries ran for the whole measurement');
      // The loop's delay must stay under 20 ms; on a machine so loaded that it is already
      // above that idle, under 2× its idle figure.
      const kept = (idleMs: number, loadedMs: number) => loadedMs <= Math.max(2 * idleMs, idleMs + SLACK_MS);
      const ok = kept(idle.search, loaded.search) && kept(idle.login, loaded.login) && loaded.loop < Math.max(20, 2 * idle.loop);
      (ok ? passes : failures).push(line);
      // Noise from neighbours is retried; starvation (10× and more) is not.
      gross = loaded.search > 10 * idle.search || loaded.login > 10 * idle.login;
      assert.ok(heavyMs >= 500, `the expensive queries are expensive (slowest ${heavyMs.toFixed(0)} ms)`);
    }
    assert.ok(passes.length > 0, `no attempt kept the latencies:\n${failures.join('\n')}`);
  });

  test('while four accounts (two free, two subscribed) loop costly regexes (two at a time each), exact searches keep their p99 (≤ 2× idle, or idle + 10 ms)', async () => {
    const searcher = await server.createUser({ searchDays: 30 });
    const { token } = await server.login(searcher.email);
    let n = 0;
    const exactSearch = () =>
      timed(async () => {
        const i = (n++ * 7919 + 13) % RECORDS;
        const reply = await call(server.url, 'POST', '/search', {
          token,
          body: packSearch({ query: `user${i}@example.com`, type: 'email', page: 1, regex: false, wildcard: false, deduplicate: true }),
        });
        assert.equal(reply.body.total_results, 1);
        return reply.status;
      });
    const measure = async () => {
      const searches: number[] = [];
      const deadline = performance.now() + PHASE_LIMIT_MS;
      for (let i = 0; i < SEARCH_SAMPLES && performance.now() < deadline; i++) searches.push(await exactSearch());
      return { p99: percentile(searches, 99), samples: searches.length };
    };
    for (let i = 0; i < 20; i++) await exactSearch();

    // Free accounts (no subscription, no credits) may not send a regex at all:
    // refused before the engine parses it. Subscribed accounts may: refused for its cost, before
    // it is compiled. Both are dashboard searches, which charge no credit.
    const attackers = await Promise.all(
      Array.from({ length: COSTLY_USERS }, async (_, i) => (await server.login((await server.createUser(i % 2 === 0 ? {} : { searchDays: 30 })).email)).token),
    );
    const failures: string[] = [];
    const passes: string[] = [];
    let gross = false;
    for (let attempt = 1; attempt <= ATTEMPTS && passes.length === 0 && !gross; attempt++) {
      const idle = await measure();

      let loading = true;
      let refused = 0;
      let slowestMs = 0;
      const unexpected: string[] = [];
      const loops = attackers.flatMap((attackerToken) =>
        Array.from({ length: COSTLY_PER_USER }, async () => {
          while (loading) {
            const start = performance.now();
            const reply = await call(server.url, 'POST', '/search', {
              token: attackerToken,
              body: packSearch({ query: costlyQuery(), type: 'email', page: 1, regex: true, wildcard: false, deduplicate: true }),
            });
            slowestMs = Math.max(slowestMs, performance.now() - start);
            // Refused for its cost, or (free) for want of a subscription; 429 once the account passed its daily limit (counted).
            if (reply.status === 400 && /too large once compiled/.test(JSON.stringify(reply.body))) refused++;
            else if (reply.status === 403 && /search subscription/.test(JSON.stringify(reply.body))) refused++;
            else if (reply.status !== 429) unexpected.push(`${reply.status} ${JSON.stringify(reply.body)}`);
            await new Promise((r) => setTimeout(r, COSTLY_PAUSE_MS));
          }
        }),
      );
      // Every loop answered once (starved, it takes seconds).
      while (refused + unexpected.length < COSTLY_USERS * COSTLY_PER_USER) await new Promise((r) => setTimeout(r, 1));
      const loaded = await measure();
      loading = false;
      await Promise.all(loops);

      const line =
        `attempt ${attempt}: exact search p99 idle ${idle.p99.toFixed(1)} ms, loaded ${loaded.p99.toFixed(1)} ms (${loaded.samples} of ${SEARCH_SAMPLES}); ` +
        `${refused} costly regexes refused meanwhile, the slowest answer in ${slowestMs.toFixed(1)} ms`;
      console.log(`# ${line}`);
      assert.deepEqual(unexpected.slice(0, 3), [], 'every costly regex is refused');
      assert.ok(refused > 0, 'costly regexes were refused during the measurement');
      (loaded.p99 <= Math.max(2 * idle.p99, idle.p99 + COSTLY_SLACK_MS) ? passes : failures).push(line);
      gross = loaded.p99 > 10 * idle.p99;
    }
    assert.ok(passes.length > 0, `no attempt kept the exact searches' p99:\n${failures.join('\n')}`);
  });

  test('a regex refused for its cost counts toward the daily limit and is not charged, counted in memory or exactly', async () => {
    // 10,000 credits: counted and charged in memory; 5 (under SEARCH_BATCH_RESERVE): each search one exact statement.
    for (const credits of [10_000, 5]) {
      const user = await server.createUser({ searchDays: 30, searchCredits: credits, apiKey: true });
      const counts = async () => {
        const row = await server.runtime.db.selectFrom('users').select('search_credits').where('id', '=', user.id).executeTakeFirstOrThrow();
        const searched = await server.runtime.db.selectFrom('search_counts').select((eb) => eb.fn.sum<number>('searches').as('n')).where('user_id', '=', user.id).executeTakeFirst();
        return { credits: row.search_credits, searches: Number(searched?.n ?? 0) };
      };
      for (let i = 0; i < 2; i++) {
        const reply = await callV2(server, user.apiKey, { query: costlyQuery(), regex: true, size: 1 });
        assert.equal(reply.status, 400);
        assert.match(JSON.stringify(reply.body), /too large once compiled/);
      }
      // A syntax error is still neither counted nor charged.
      assert.equal((await callV2(server, user.apiKey, { query: 'email:/(ab/', regex: true, size: 1 })).status, 400);
      // The flush of in-memory counts (SEARCH_FLUSH_MS) is waited for.
      await new Promise((r) => setTimeout(r, 1000));
      assert.deepEqual(await counts(), { credits, searches: 2 }, `with ${credits} credits`);
    }
  });

  test("a third search at once of one account gets 429 (Retry-After: 1) and is neither counted nor charged; other accounts are not held up", async () => {
    const user = await server.createUser({ searchDays: 30, searchCredits: 10, apiKey: true });
    const other = await server.createUser({ searchDays: 30, searchCredits: 10, apiKey: true });
    const { token } = await server.login(user.email);
    const counts = async () => {
      const row = await server.runtime.db.selectFrom('users').select('search_credits').where('id', '=', user.id).executeTakeFirstOrThrow();
      const searched = await server.runtime.db.selectFrom('search_counts').select((eb) => eb.fn.sum<number>('searches').as('n')).where('user_id', '=', user.id).executeTakeFirst();
      return { credits: row.search_credits, searches: Number(searched?.n ?? 0) };
    };
    const slow = [callV2(server, user.apiKey, { query: heavyQuery(), regex: true, size: 1 }), callV2(server, user.apiKey, { query: heavyQuery(), regex: true, size: 1 })];
    await new Promise((r) => setTimeout(r, 20));
    // Over the cap a search is refused once SEARCH_CONCURRENCY_WAIT_MS passed (0 on this server: at once).
    const [third, dashboard, password] = await Promise.all([
      callV2(server, user.apiKey, { query: 'user1@example.com' }),
      call(server.url, 'POST', '/search', {
        token,
        body: packSearch({ query: 'user1@example.com', type: 'email', page: 1, regex: false, wildcard: false, deduplicate: true }),
      }),
      callV2(server, user.apiKey, { hash: 'a'.repeat(64) }, { path: '/v2/search-password' }),
    ]);
    assert.equal(third.status, 429);
    assert.equal(third.headers.get('retry-after'), '1');
    assert.match(third.body.error, /Too many searches at once: at most 2 per account/);
    assert.equal(dashboard.status, 429, 'the dashboard shares the cap');
    assert.match(dashboard.body.error, /at most 2 per account/);
    assert.equal(password.status, 429, 'password checks share the cap');
    // Another account searches meanwhile.
    assert.equal((await callV2(server, other.apiKey, { query: 'user2@example.com' })).status, 200);
    const done = await Promise.all(slow);
    assert.deepEqual(done.map((r) => r.status), [200, 200]);
    // The flush of in-memory counts and charges (SEARCH_FLUSH_MS) is waited for.
    await new Promise((r) => setTimeout(r, 1000));
    assert.deepEqual(await counts(), { credits: 8, searches: 2 }, 'only the two searches that ran were counted and charged');
    // The slots are given back: the account searches again.
    const again = await callV2(server, user.apiKey, { query: 'user1@example.com' });
    assert.equal(again.status, 200);
    assert.equal(again.body.balance, 7);
  });

  test('a burst of quick searches of one account (what the API rate limit allows) waits for slots and is served', async () => {
    // A second instance with the default wait for a slot (SEARCH_CONCURRENCY_WAIT_MS).
    const patient = await startTestServer({ env: { API_RATE_BURST: '10', API_RATE_PER_SECOND: '10' }, shareWith: server });
    try {
      const user = await patient.createUser({ searchDays: 30, searchCredits: 20, apiKey: true });
      const replies = await Promise.all(Array.from({ length: 10 }, (_, i) => callV2(patient, user.apiKey, { query: `user${i + 1}@example.com` }, { ip: '198.51.100.9' })));
      assert.deepEqual(replies.map((r) => r.status), Array(10).fill(200));
    } finally {
      await patient.close();
    }
  });
});
