import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { packSearch } from '../../src/common/obfuscation';
import { eventually, startTestServer, type TestServer, signedIn } from '../support/harness';
import { call, callV2, freshIp } from '../support/helpers';

let server: TestServer;
const RECORDS = [
  { email: 'alice.smith@example.com', password: 'hunter2', username: 'alice_s', name: 'Alice Smith' },
  { email: 'Bob@Example.com', password: 'letmein', ip_address: '10.1.2.3' },
  { email: 'carol@other.org', hashed_password: 'E10ADC3949BA59ABBE56E057F20F883E', phone: '+1 (555) 010-9999' },
  { email: 'dave@example.com', username: '<script>alert(1)</script>', url: 'javascript:alert(1)' },
];

before(async () => {
  server = await startTestServer({ env: { TRUSTED_PROXIES: '127.0.0.1' } });
  await server.ingest('Example Breach 2024', RECORDS);
  await server.ingest('Second Source', [{ email: 'alice.smith@example.com', password: 'hunter2', username: 'alice_s', name: 'Alice Smith' }]);
});
after(() => server.close());

function dashboardSearch(token: string, query: string, options: Partial<{ type: string; page: number; regex: boolean; wildcard: boolean; deduplicate: boolean }> = {}) {
  return call(server.url, 'POST', '/search', {
    token,
    body: packSearch({ query, type: options.type ?? 'all', page: options.page ?? 1, regex: options.regex ?? false, wildcard: options.wildcard ?? false, deduplicate: options.deduplicate ?? true }),
  });
}

describe('POST /search (dashboard)', () => {
  test('every search validation is enforced by the server', async () => {
    const { token } = await signedIn(server, { searchDays: 30 });
    const cases: [string, string, Partial<{ type: string; wildcard: boolean }>][] = [
      ['', 'Empty Query', {}],
      ['abc', 'Query not long enough (minimum 4 characters)', {}],
      ['a'.repeat(201), 'Query Too Long', {}],
      ['999.1.1.1', 'Invalid IP Address Format', { type: 'ip_address' }],
      ['10.1.*.*', 'Invalid IP Address Format', { type: 'ip_address' }],
      ['phone-number', 'Invalid Phone Format', { type: 'phone' }],
      ['1234567890123456', 'Invalid Phone Format', { type: 'phone' }],
    ];
    for (const [query, message, options] of cases) {
      const reply = await dashboardSearch(token, query, options);
      assert.equal(reply.status, 400, query);
      assert.equal(reply.body.error, message);
    }
    assert.equal((await dashboardSearch(token, '10.1.*.*', { type: 'ip_address', wildcard: true })).status, 200, 'an IPv4 pattern with wildcard on');
    assert.equal((await dashboardSearch(token, '"10.1.2.3"', { type: 'ip_address' })).status, 200);
    const both = await dashboardSearch(token, 'email:alice*', { regex: true, wildcard: true });
    assert.equal(both.status, 400);
    // A leading wildcard needs a field: named, or the tab's.
    const wildStart = await dashboardSearch(token, '*lice', { wildcard: true });
    assert.equal(wildStart.status, 400);
    assert.ok(wildStart.body.error.length > 5, 'the engine explains the rejection');
    assert.equal((await dashboardSearch(token, '*lice', { wildcard: true, type: 'email' })).status, 200, 'on a field tab it is that field\'s');
  });

  test('subscribers see values; raw records only for law enforcement; others get counts and a notice', async () => {
    const subscriber = await signedIn(server, { searchDays: 30 });
    const reply = await dashboardSearch(subscriber.token, 'alice.smith@example.com', { type: 'email', deduplicate: false });
    assert.equal(reply.status, 200);
    assert.equal(reply.body.total_results, 2);
    assert.equal(reply.body.values_hidden, false);
    assert.equal(reply.body.data_wells, 2);
    assert.ok(reply.body.assets_searched >= 5);
    assert.equal(typeof reply.body.elapsed_time, 'number');
    const first = reply.body.results[0];
    assert.equal(first.primary_field, 'email');
    assert.deepEqual(first.email, ['alice.smith@example.com']);
    assert.equal(first.raw_record, undefined, 'no raw record for a plain subscriber');

    const deduped = await dashboardSearch(subscriber.token, 'alice.smith@example.com', { type: 'email' });
    assert.equal(deduped.body.total_results, 1, 'dedup folds the same record from two sources');

    const le = await signedIn(server, { searchDays: 30, lawEnforcement: true });
    const leReply = await dashboardSearch(le.token, 'alice.smith@example.com', { type: 'email' });
    assert.match(leReply.body.results[0].raw_record, /alice\.smith@example\.com/);

    const free = await signedIn(server);
    const hidden = await dashboardSearch(free.token, 'alice.smith@example.com', { type: 'email' });
    assert.equal(hidden.status, 200);
    assert.equal(hidden.body.values_hidden, true);
    assert.deepEqual(hidden.body.results, []);
    assert.equal(hidden.body.total_results, 1, 'the count is shown without the values');
  });

  test('only the number of searches is stored, never the query', async () => {
    const user = await signedIn(server, { searchDays: 30 });
    await dashboardSearch(user.token, 'carol@other.org');
    await dashboardSearch(user.token, 'carol@other.org');
    // Counts are written in batches, within SEARCH_FLUSH_MS.
    const rows = await eventually(async () => {
      const found = await server.runtime.db.selectFrom('search_counts').selectAll().where('user_id', '=', user.id).execute();
      return found[0]?.searches === 2 && found;
    });
    assert.equal(rows.length, 1);
    const dump = JSON.stringify(await server.runtime.db.selectFrom('search_counts').selectAll().execute());
    assert.ok(!dump.includes('carol'));
    assert.ok(!server.logs().includes('carol@other.org'), 'nor logged');
  });

  test('too many searches lock search for a while; repeated locks bar paid features', async () => {
    const limited = await startTestServer({ env: { SEARCH_DAILY_LIMIT: '10', SEARCH_BAR_AFTER_LOCKS: '2' } });
    try {
      const user = await limited.createUser({ searchDays: 30 });
      const { token } = await limited.login(user.email);
      const search = () => call(limited.url, 'POST', '/search', { token, body: packSearch({ query: 'someone@example.com', type: 'all', page: 1, regex: false, wildcard: false, deduplicate: true }) });
      for (let i = 0; i < 10; i++) assert.equal((await search()).status, 200);
      const locked = await search();
      assert.equal(locked.status, 429);
      assert.ok(Number(locked.headers.get('retry-after')) > 3600);
      // The lock runs out; the next search over the limit locks again, which bars the account.
      await limited.runtime.db.updateTable('users').set({ search_locked_until: new Date(Date.now() - 1000) }).where('id', '=', user.id).execute();
      assert.equal((await search()).status, 429);
      const barred = await search();
      assert.equal(barred.status, 403);
      assert.match(barred.body.error, /suspended/);
    } finally {
      await limited.close();
    }
  });
});

describe('hidden values stay hidden from counts', () => {
  /**
   * The extraction as an attacker ran it: a visible condition (an email they know) joined
   * with a guess about a hidden field. Without a subscription, a true and a false guess
   * must answer alike (they did: 1 against 0), so the count cannot be read as an oracle.
   */
  const ORACLE_PAIRS: { name: string; truth: string; lie: string; regex?: boolean; wildcard?: boolean }[] = [
    { name: 'AND with an exact password', truth: 'email:"alice.smith@example.com" AND password:"hunter2"', lie: 'email:"alice.smith@example.com" AND password:"hunter3"' },
    { name: 'juxtaposed terms', truth: 'email:alice.smith@example.com password:hunter2', lie: 'email:alice.smith@example.com password:hunter3' },
    { name: 'a regex on the password', truth: 'email:/^alice\\.smith@example\\.com$/ AND password:/^[a-m]/', lie: 'email:/^alice\\.smith@example\\.com$/ AND password:/^[n-z]/', regex: true },
    { name: 'a typed &regex', truth: 'password:/^hunt/&regex', lie: 'password:/^zzzz/&regex' },
    { name: 'a wildcard on the password', truth: 'password:hunt*', lie: 'password:zzzz*', wildcard: true },
    { name: 'OR', truth: 'password:"hunter2" OR email:"nobody@none.example"', lie: 'password:"hunter3" OR email:"nobody@none.example"' },
    { name: 'a source filter', truth: 'email:alice.smith@example.com&database_name=Second Source', lie: 'email:bob@example.com&database_name=Second Source' },
  ];

  async function assertNoOracle(target: TestServer, token: string) {
    for (const pair of ORACLE_PAIRS) {
      const ask = (query: string) =>
        call(target.url, 'POST', '/search', { token, body: packSearch({ query, type: 'all', page: 1, regex: pair.regex ?? false, wildcard: pair.wildcard ?? false, deduplicate: true }) });
      const [truth, lie] = [await ask(pair.truth), await ask(pair.lie)];
      assert.equal(truth.status, 403, `${pair.name}: ${JSON.stringify(truth.body)}`);
      assert.deepEqual(truth.body, lie.body, `${pair.name}: a true and a false guess answer alike`);
      assert.equal(truth.body.total_results, undefined, `${pair.name}: no count`);
      assert.match(truth.body.error, /search subscription/, `${pair.name}: the refusal points to the subscription`);
    }
  }

  test('without a subscription a search holds one exact term; a guess about a hidden field answers nothing', async () => {
    // The oracle was real: a subscriber's counts tell the guesses apart.
    const subscriber = await signedIn(server, { searchDays: 30 });
    const seen = await dashboardSearch(subscriber.token, ORACLE_PAIRS[0]!.truth);
    assert.equal(seen.body.total_results, 1);
    assert.equal((await dashboardSearch(subscriber.token, ORACLE_PAIRS[0]!.lie)).body.total_results, 0);
    assert.equal((await dashboardSearch(subscriber.token, 'password:hunt*', { wildcard: true })).body.total_results, 1);

    const free = await signedIn(server);
    await assertNoOracle(server, free.token);
    // One term keeps its count, whatever the tab, quoted or not, with wildcard on but no wildcard.
    for (const [query, options] of [
      ['alice.smith@example.com', { type: 'email' }],
      ['password:"hunter2"', {}],
      ['"Alice Smith"', { type: 'name' }],
      ['alice_s', { type: 'username', wildcard: true }],
    ] as const) {
      const reply = await dashboardSearch(free.token, query, options);
      assert.equal(reply.status, 200, `${query}: ${JSON.stringify(reply.body)}`);
      assert.equal(reply.body.total_results, 1, query);
      assert.deepEqual(reply.body.results, []);
    }
    // Refusals count nothing: only the four searches above are counted.
    await eventually(async () => (await server.runtime.db.selectFrom('search_counts').select('searches').where('user_id', '=', free.id).executeTakeFirst())?.searches === 4);
  });

  test('the same on the exact path (near the daily limit) and for an expired subscription', async () => {
    // A daily limit under SEARCH_BATCH_RESERVE: every search takes the exact path (the query checked, then one statement).
    const near = await startTestServer({ env: { SEARCH_DAILY_LIMIT: '50' } });
    try {
      await near.ingest('Example Breach 2024', RECORDS);
      await near.ingest('Second Source', [RECORDS[0]!]);
      const free = await near.createUser({});
      await assertNoOracle(near, (await near.login(free.email)).token);
      const lapsed = await near.createUser({ searchDays: 30 });
      await near.runtime.db.updateTable('users').set({ search_subscribed_until: new Date(Date.now() - 1000) }).where('id', '=', lapsed.id).execute();
      await assertNoOracle(near, (await near.login(lapsed.email)).token);
      const rows = await near.runtime.db.selectFrom('search_counts').select('searches').where('user_id', 'in', [free.id, lapsed.id]).execute();
      assert.deepEqual(rows, [], 'refusals are not counted');
    } finally {
      await near.close();
    }
  });
});

describe('public API v2', () => {
  const header = () => server.runtime.config.apiKeyHeader;

  test('search: entry shape, one credit per search, took as a string', async () => {
    const user = await server.createUser({ searchDays: 30, searchCredits: 5, apiKey: true });
    const reply = await callV2(server, user.apiKey, { query: 'email:"alice.smith@example.com"', page: 1, size: 100, regex: false, wildcard: false, de_dupe: false });
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    assert.equal(reply.body.balance, 4);
    assert.equal(reply.body.total, 2);
    assert.match(reply.body.took, /^\d+(µs|ms)$|^\d+\.\d+s$/);
    for (const entry of reply.body.entries) {
      assert.equal(typeof entry.id, 'string');
      assert.equal(typeof entry.database_name, 'string');
      assert.deepEqual(entry.email, ['alice.smith@example.com']);
      assert.equal(entry.ip_address, undefined, 'empty fields are omitted');
      assert.equal(entry.raw_record, undefined);
    }
    const ledger = await server.runtime.db.selectFrom('credit_ledger').selectAll().where('user_id', '=', user.id).execute();
    assert.deepEqual(ledger.map((r) => [r.delta, r.balance_after]), [[-1, 4]]);
  });

  test('errors: 400 bad key or body, 401 no subscription, 403 Insufficient Credits; refusals charge nothing', async () => {
    const user = await server.createUser({ searchDays: 30, searchCredits: 1, apiKey: true });
    assert.equal((await callV2(server, undefined, { query: 'alice_s' })).status, 400);
    assert.equal((await callV2(server, 'f'.repeat(48), { query: 'alice_s' })).status, 400);
    assert.equal((await callV2(server, user.apiKey, { query: 'alice_s', regex: true, wildcard: true })).status, 400);
    assert.equal((await callV2(server, user.apiKey, { query: 'alice_s', page: 101, size: 100 })).status, 400);
    assert.equal((await callV2(server, user.apiKey, { query: 'email:/(a)\\1/', regex: true })).status, 400, 'backreferences are refused');
    const balance = async () => (await server.runtime.db.selectFrom('users').select('search_credits').where('id', '=', user.id).executeTakeFirstOrThrow()).search_credits;
    assert.equal(await balance(), 1, 'no refusal charged a credit');
    // An undeclared property is dropped, never acted on: `credits: 99` buys nothing (the next search is refused).
    assert.equal((await callV2(server, user.apiKey, { query: 'alice_s', credits: 99 })).status, 200);
    const broke = await callV2(server, user.apiKey, { query: 'alice_s' });
    assert.deepEqual([broke.status, broke.body], [403, { error: 'Insufficient Credits' }]);

    const unsubscribed = await server.createUser({ searchCredits: 5, apiKey: true });
    assert.equal((await callV2(server, unsubscribed.apiKey, { query: 'alice_s' })).status, 401);
  });

  test('law enforcement gets raw_record as {le_only, unstructured}', async () => {
    const user = await server.createUser({ searchDays: 30, searchCredits: 5, lawEnforcement: true, apiKey: true });
    const reply = await callV2(server, user.apiKey, { query: 'carol@other.org' });
    assert.equal(reply.body.entries[0].raw_record.le_only, true);
    assert.match(reply.body.entries[0].raw_record.unstructured, /carol@other\.org/);
  });

  test('search-password: free, accepts sha256_hashed_password and hash', async () => {
    const user = await server.createUser({ searchCredits: 0, apiKey: true });
    const upper = 'E10ADC3949BA59ABBE56E057F20F883E';
    assert.deepEqual((await callV2(server, user.apiKey, { hash: upper.toLowerCase() }, { path: '/v2/search-password' })).body, { results_found: 1 });
    assert.deepEqual((await callV2(server, user.apiKey, { sha256_hashed_password: 'a'.repeat(64) }, { path: '/v2/search-password' })).body, { results_found: 0 });
    assert.equal((await callV2(server, user.apiKey, { hash: 'not-hex' }, { path: '/v2/search-password' })).status, 400);
    assert.equal((await callV2(server, user.apiKey, {}, { path: '/v2/search-password' })).status, 400);
  });

  test('100 concurrent searches with 1 credit left: exactly one succeeds, one ledger row', async () => {
    // The per-account cap on searches at once (SEARCH_CONCURRENCY_PER_USER) lifted, so that all
    // 100 race for the credit.
    const busy = await startTestServer({ env: { API_RATE_BURST: '1000', API_RATE_PER_SECOND: '1000', SEARCH_CONCURRENCY_PER_USER: '1000' }, shareWith: server });
    try {
      const user = await busy.createUser({ searchDays: 30, searchCredits: 1, apiKey: true });
      const replies = await Promise.all(
        Array.from({ length: 100 }, () => callV2(busy, user.apiKey, { query: 'alice_s' })),
      );
      const statuses = replies.map((r) => r.status);
      assert.equal(statuses.filter((s) => s === 200).length, 1, statuses.join(','));
      assert.equal(statuses.filter((s) => s === 403).length, 99, statuses.join(','));
      const row = await busy.runtime.db.selectFrom('users').select('search_credits').where('id', '=', user.id).executeTakeFirstOrThrow();
      assert.equal(row.search_credits, 0);
      const ledger = await busy.runtime.db.selectFrom('credit_ledger').selectAll().where('user_id', '=', user.id).execute();
      assert.equal(ledger.length, 1);
    } finally {
      await busy.close();
    }
  });

  test('rate limit: 10/s sustained passes, a burst gets 429 with Retry-After', async () => {
    const user = await server.createUser({ searchDays: 30, searchCredits: 100, apiKey: true });
    const ip = freshIp();
    const send = () => callV2(server, user.apiKey, { hash: 'b'.repeat(64) }, { path: '/v2/search-password', ip });
    for (let i = 0; i < 15; i++) {
      const started = Date.now();
      assert.equal((await send()).status, 200, `request ${i} at 10/s`);
      await new Promise((r) => setTimeout(r, Math.max(0, 105 - (Date.now() - started))));
    }
    const burst = await Promise.all(Array.from({ length: 25 }, send));
    // Only the rate limit's refusals (the requests it lets through may also meet the cap on
    // searches at once of one account, with its own message).
    const limited = burst.filter((r) => r.status === 429 && r.body.error === 'too many requests');
    assert.ok(limited.length >= 10, `${limited.length} of 25 limited`);
    assert.ok(Number(limited[0]!.headers.get('retry-after')) >= 1);
    assert.deepEqual(limited[0]!.body, { error: 'too many requests' });
  });

  test('two instances share one limit through Redis', { skip: !process.env.TEST_REDIS_URL && 'TEST_REDIS_URL not set' }, async () => {
    // Two more instances of this server, refilling 1 token a second: 20 calls at once, half on
    // each, pass at most the burst plus what refilled while they ran. Separate buckets would
    // pass all 20. Counting what passes, rather than expecting one 429, holds on a loaded
    // machine, which can refill a token between two calls.
    const env = { API_RATE_PER_SECOND: '1', API_RATE_BURST: '10' };
    const first = await startTestServer({ shareWith: server, redis: true, env });
    const second = await startTestServer({ shareWith: server, redis: true, env });
    try {
      const hit = (target: TestServer) => call(target.url, 'POST', '/v2/search-password', { body: { hash: 'c'.repeat(64) }, headers: { [header()]: 'nope' } });
      const started = Date.now();
      const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => hit(i % 2 === 0 ? first : second)));
      const seconds = (Date.now() - started) / 1000;
      const statuses = answers.map((a) => a.status);
      assert.ok(statuses.every((s) => s === 400 || s === 429), `a bad key or a 429: ${statuses.join(',')}`);
      const passed = statuses.filter((s) => s === 400).length;
      assert.ok(passed <= 10 + Math.ceil(seconds), `one bucket for both: ${passed} of 20 passed in ${seconds.toFixed(2)} s`);
    } finally {
      await Promise.all([first.close(), second.close()]);
    }
  });
});

describe('records by id (favourites after a reload)', () => {
  test('values only with a subscription, counted as one search, unknown ids left out, at most 50', async () => {
    const subscriber = await signedIn(server, { searchDays: 30 });
    const entry = (await dashboardSearch(subscriber.token, 'bob@example.com', { type: 'email' })).body.results[0];
    const counted = async (userId: string) =>
      Number((await server.runtime.db.selectFrom('search_counts').select((eb) => eb.fn.sum<string>('searches').as('n')).where('user_id', '=', userId).executeTakeFirst())?.n ?? 0);
    await eventually(async () => (await counted(subscriber.id)) >= 1);
    const before = await counted(subscriber.id);
    const reply = await call(server.url, 'POST', '/search/records', { token: subscriber.token, body: { ids: [entry.id, '999-0-0', entry.id] } });
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    assert.equal(reply.body.values_hidden, false);
    assert.deepEqual(reply.body.results.map((r: { id: string }) => r.id), [entry.id, entry.id]);
    assert.deepEqual(reply.body.results[0].email, ['Bob@Example.com']);
    assert.equal(reply.body.results[0].raw_record, undefined, 'no raw record without law-enforcement status');
    await eventually(async () => (await counted(subscriber.id)) === before + 1);

    const free = await signedIn(server, {});
    const hidden = await call(server.url, 'POST', '/search/records', { token: free.token, body: { ids: [entry.id] } });
    assert.deepEqual([hidden.status, hidden.body], [200, { results: [], values_hidden: true }]);

    assert.equal((await call(server.url, 'POST', '/search/records', { token: subscriber.token, body: { ids: Array.from({ length: 51 }, (_, i) => `1-0-${i}`) } })).status, 400);
    assert.equal((await call(server.url, 'POST', '/search/records', { token: subscriber.token, body: { ids: [] } })).status, 400);
    assert.equal((await call(server.url, 'POST', '/search/records', { body: { ids: [entry.id] } })).status, 401);
  });
});

describe('entry removal', () => {
  test('request, confirm by the mailed link, gone everywhere, stays gone after re-ingest', async () => {
    const user = await signedIn(server, { searchDays: 30, searchCredits: 10, apiKey: true });
    const found = await dashboardSearch(user.token, 'dave@example.com', { type: 'email' });
    const entry = found.body.results[0];
    assert.ok(entry, 'the entry is there first');
    assert.equal((await call(server.url, 'POST', '/request-entry-removal', { token: user.token, body: { id: entry.id, email: 'someone-else@example.com', breach_id: '' } })).status, 200, 'an email not in the entry gets the answer of a real one');
    const requested = await call(server.url, 'POST', '/request-entry-removal', { token: user.token, body: { id: entry.id, email: 'DAVE@example.com', breach_id: '' } });
    assert.equal(requested.status, 200);
    const mail = await server.waitForMail('dave@example.com', /removal/);
    const link = new URL(mail.links[0]!);
    assert.equal(link.pathname, '/entry-removal');
    assert.equal(link.searchParams.get('ref'), entry.id);
    const v = link.searchParams.get('v')!;
    assert.equal((await call(server.url, 'POST', '/remove-entry', { token: user.token, body: { id: 'other-id', v } })).status, 400, 'the link is bound to its entry');
    // The link is the proof: confirmed without signing in.
    assert.equal((await call(server.url, 'POST', '/remove-entry', { ip: freshIp(), body: { id: entry.id, v } })).status, 200);
    assert.equal((await call(server.url, 'POST', '/remove-entry', { token: user.token, body: { id: entry.id, v } })).status, 400, 'single use');

    assert.equal((await dashboardSearch(user.token, 'dave@example.com', { type: 'email' })).body.total_results, 0);
    const api = await callV2(server, user.apiKey, { query: 'dave@example.com' });
    assert.equal(api.body.total, 0);
    await server.ingest('Reupload', [RECORDS[3]!]);
    assert.equal((await dashboardSearch(user.token, 'dave@example.com', { type: 'email' })).body.total_results, 0, 'still gone after the same record is ingested again');
  });

  test('an expired removal link is refused', async () => {
    const user = await signedIn(server, { searchDays: 30 });
    const entry = (await dashboardSearch(user.token, 'carol@other.org', { type: 'email' })).body.results[0];
    await call(server.url, 'POST', '/request-entry-removal', { token: user.token, body: { id: entry.id, email: 'carol@other.org' } });
    const v = new URL((await server.waitForMail('carol@other.org', /removal/)).links[0]!).searchParams.get('v')!;
    await server.runtime.db.updateTable('one_time_tokens').set({ expires_at: new Date(Date.now() - 1000) }).where('purpose', '=', 'remove-entry').execute();
    assert.equal((await call(server.url, 'POST', '/remove-entry', { token: user.token, body: { id: entry.id, v } })).status, 400);
    assert.equal((await dashboardSearch(user.token, 'carol@other.org', { type: 'email' })).body.total_results, 1);
  });
});

describe('query cost', () => {
  test('catastrophic patterns answer fast; oversized patterns are refused before any charge', async () => {
    // Bait for a backtracking engine: `(a+)+$` against a run of 'a' followed by '!' tries
    // every split of the run (2^n; in V8's RegExp 26 a's already take about a second, and
    // each one more doubles it). The runs stay under the engine's 256-byte indexed term
    // (engine/crates/format/src/fields.rs MAX_TERM_BYTES), so every one is checked whole.
    await server.ingest('Regex Bait', [
      { email: 'bait1@example.com', username: `${'a'.repeat(64)}!` },
      { email: 'bait2@example.com', username: `${'a'.repeat(250)}!` },
      { email: 'bait3@example.com', username: `b${'a'.repeat(40)}` },
    ]);
    const user = await server.createUser({ searchDays: 30, searchCredits: 5, apiKey: true });
    const started = performance.now();
    const evil = await callV2(server, user.apiKey, { query: 'username:/(a+)+$/', regex: true });
    assert.ok(performance.now() - started < 2000, 'linear-time regex: no catastrophic backtracking');
    assert.equal(evil.status, 200, JSON.stringify(evil.body));
    const usernames = evil.body.entries.flatMap((entry: { username?: string[] }) => entry.username ?? []);
    assert.ok(usernames.includes(`b${'a'.repeat(40)}`), 'the pattern ran against the bait');
    assert.ok(usernames.every((name: string) => name.endsWith('a')), usernames.join(', '));
    const long = await callV2(server, user.apiKey, { query: `username:/${'a'.repeat(300)}/`, regex: true });
    const huge = await callV2(server, user.apiKey, { query: 'username:/a{1000}{1000}/', regex: true });
    const lookaround = await callV2(server, user.apiKey, { query: 'username:/(?=a)b/', regex: true });
    for (const reply of [long, huge, lookaround]) assert.equal(reply.status, 400, JSON.stringify(reply.body));
    const row = await server.runtime.db.selectFrom('users').select('search_credits').where('id', '=', user.id).executeTakeFirstOrThrow();
    assert.equal(row.search_credits, 4, 'only the one search that ran was charged');
  });

  test('a search that runs out of its time budget fails and its credit is refunded', async () => {
    const tight = await startTestServer({ env: { SEARCH_TIME_BUDGET_MS: '1' } });
    try {
      await tight.ingest(
        'Big',
        Array.from({ length: 60_000 }, (_, i) => ({ email: `someone${i}@mail${i % 97}.example`, username: `user_${i}_${(i * 7919) % 100_003}` })),
      );
      const user = await tight.createUser({ searchDays: 30, searchCredits: 3, apiKey: true });
      const reply = await callV2(tight, user.apiKey, { query: 'email:/(a|b|c|d|e|[0-9])+[0-9]{2}@/', regex: true });
      assert.equal(reply.status, 400);
      assert.match(reply.body.error, /time budget/);
      const row = await tight.runtime.db.selectFrom('users').select('search_credits').where('id', '=', user.id).executeTakeFirstOrThrow();
      assert.equal(row.search_credits, 3, 'the charge was refunded');
      const ledger = await tight.runtime.db.selectFrom('credit_ledger').select(['delta', 'reason']).where('user_id', '=', user.id).orderBy('id').execute();
      assert.deepEqual(ledger.map((r) => r.delta), [-1, 1]);

      // A rich account is charged in memory: its failed search is never charged at all.
      const rich = await tight.createUser({ searchDays: 30, searchCredits: 1000, apiKey: true });
      const failed = await callV2(tight, rich.apiKey, { query: 'email:/(a|b|c|d|e|[0-9])+[0-9]{2}@/', regex: true });
      assert.equal(failed.status, 400);
      await eventually(async () => (await tight.runtime.db.selectFrom('search_counts').select('searches').where('user_id', '=', rich.id).executeTakeFirst())?.searches === 1);
      const richRow = await tight.runtime.db.selectFrom('users').select('search_credits').where('id', '=', rich.id).executeTakeFirstOrThrow();
      assert.equal(richRow.search_credits, 1000, 'no credit moved');
      const richLedger = await tight.runtime.db.selectFrom('credit_ledger').select('delta').where('user_id', '=', rich.id).execute();
      assert.equal(richLedger.reduce((sum, r) => sum + r.delta, 0), 0, 'the ledger nets to zero');
    } finally {
      await tight.close();
    }
  });
});
