// One table of queries, three judges: the engine (which owns query syntax and paging), the
// module the dashboard checks with before sending (server/src/common/search-rules.ts), and
// the server's POST /search. Where a rule is the engine's (empty, length in characters, a
// typed mode suffix, mixed modes), the module must say what the engine says; the server
// must say what the module says, and otherwise what the engine says.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { EngineQueryError, validateQuery, type SearchMode } from '../../../engine/index';
import { packSearch } from '../../src/common/obfuscation';
import { DASHBOARD_MAX_PAGE, MESSAGES, applyModeSuffix, dashboardPageCount, validateSearch, type SearchType } from '../../src/common/search-rules';
import { engineType } from '../../src/search/search-service';
import { startTestServer, type TestServer } from '../support/harness';
import { call, callV2 } from '../support/helpers';

interface Case {
  query: string;
  type?: SearchType;
  regex?: boolean;
  wildcard?: boolean;
}

const CASES: Case[] = [
  { query: '' },
  { query: '   ' },
  { query: 'abc' },
  { query: 'abcd' },
  { query: ' abcd ' },
  { query: 'a'.repeat(200) },
  { query: 'a'.repeat(201) },
  { query: 'é'.repeat(200) },
  { query: 'é'.repeat(201) },
  // Four characters in eight UTF-16 units, 150 characters in 300 units: characters count.
  { query: '😀😀😀😀' },
  { query: '😀'.repeat(150) },
  { query: '😀'.repeat(201) },
  { query: '😀😀😀' },
  // Unicode White_Space is trimmed (U+0085 too), U+FEFF is not (it is not white space).
  { query: '\u0085abcd\u3000' },
  { query: '\u0085abc\u0085' },
  { query: '\uFEFFabc' },
  // A typed mode suffix is removed, turns its mode on, and does not count toward the length.
  { query: 'abc&wildcard' },
  { query: 'abc &REGEX ' },
  { query: 'username:wildcat*&wildcard' },
  { query: 'username:wildcat*&wildcard', wildcard: true },
  { query: `username:${'a'.repeat(182)}*&wildcard` },
  { query: `username:${'a'.repeat(183)}*&wildcard` },
  { query: 'username:john&regex&wildcard' },
  { query: 'username:john*&regex', wildcard: true },
  { query: 'username:/jo.n/&regex', regex: true },
  { query: '&wildcard' },
  { query: 'email:a@b.c', regex: true, wildcard: true },
  // Dashboard-only rules: IP and phone formats.
  { query: '10.1.2.3', type: 'ip_address' },
  { query: '"10.1.2.3"', type: 'ip_address' },
  { query: '010.1.2.3', type: 'ip_address' },
  { query: '10.1.*.*', type: 'ip_address' },
  { query: '10.1.*.*', type: 'ip_address', wildcard: true },
  { query: '010.1.*.*', type: 'ip_address', wildcard: true },
  { query: '10.1.*.*&wildcard', type: 'ip_address' },
  { query: '::ffff:10.1.2.3', type: 'ip_address' },
  { query: 'fe80::1%eth0', type: 'ip_address' },
  { query: '2001:db8::1', type: 'ip_address' },
  { query: '5550109999', type: 'phone' },
  { query: '+15550109999', type: 'phone' },
  { query: '1234567890123456', type: 'phone' },
];

const ENGINE_RULES = new Set<string>([MESSAGES.empty, MESSAGES.short, MESSAGES.long, MESSAGES.mixedModes]);

/** The module's verdict: the messages the dashboard would toast (empty: sent). */
function moduleVerdict(c: Case): { messages: string[]; sent: { query: string; mode: SearchMode } } {
  const applied = applyModeSuffix({ query: c.query, regex: c.regex ?? false, wildcard: c.wildcard ?? false });
  const messages = applied.error ? [applied.error] : validateSearch(applied.query, c.type ?? 'all', applied.wildcard);
  return { messages, sent: { query: applied.query, mode: applied.regex ? 'regex' : applied.wildcard ? 'wildcard' : 'exact' } };
}

/** The engine's verdict on the query as a client sends it (suffix and all): null when accepted. */
async function engineVerdict(c: Case): Promise<{ code: string; message: string } | null> {
  if (c.regex && c.wildcard) return { code: 'mixed_modes', message: MESSAGES.mixedModes };
  const mode: SearchMode = c.regex ? 'regex' : c.wildcard ? 'wildcard' : 'exact';
  try {
    await validateQuery({ query: c.query, mode, type: engineType(c.type ?? 'all') });
    return null;
  } catch (error) {
    if (error instanceof EngineQueryError) return { code: error.code, message: error.message };
    throw error;
  }
}

let server: TestServer;
let token: string;

before(async () => {
  server = await startTestServer({ env: { TRUSTED_PROXIES: '127.0.0.1' } });
  await server.ingest('Rules Well', [{ username: 'wildcat1', email: 'rules@example.com', ip_address: '10.1.2.3', phone: '5550109999' }]);
  const user = await server.createUser({ searchDays: 30 });
  ({ token } = await server.login(user.email));
});
after(() => server.close());

test('the engine, the dashboard module and the server agree on one table of queries', async () => {
  for (const c of CASES) {
    const label = JSON.stringify(c).slice(0, 120);
    const { messages } = moduleVerdict(c);
    const engine = await engineVerdict(c);
    const engineRule = messages.find((message) => ENGINE_RULES.has(message));
    if (engineRule) assert.equal(engine?.message, engineRule, `${label}: the engine refuses it as the module does`);
    else assert.ok(!engine || !ENGINE_RULES.has(engine.message), `${label}: the engine refuses it (${engine?.message}) but the module lets it through`);

    const reply = await call(server.url, 'POST', '/search', {
      token,
      body: packSearch({ query: c.query, type: c.type ?? 'all', page: 1, regex: c.regex ?? false, wildcard: c.wildcard ?? false, deduplicate: true }),
    });
    if (messages.length) {
      assert.equal(reply.status, 400, label);
      assert.equal(reply.body.error, messages.join('\n'), label);
    } else if (engine) {
      assert.equal(reply.status, 400, label);
      assert.equal(reply.body.error, engine.message, label);
    } else {
      assert.equal(reply.status, 200, `${label}: ${JSON.stringify(reply.body)}`);
    }
  }
});

test('what the dashboard sends after removing a suffix is what the engine reads from the suffix', async () => {
  for (const c of CASES) {
    const { messages, sent } = moduleVerdict(c);
    if (messages.length || (c.regex && c.wildcard)) continue;
    const asTyped = await engineVerdict(c);
    if (asTyped) continue;
    const parsed = await validateQuery({ query: sent.query, mode: sent.mode, type: engineType(c.type ?? 'all') });
    const typed = await validateQuery({ query: c.query, mode: c.regex ? 'regex' : c.wildcard ? 'wildcard' : 'exact', type: engineType(c.type ?? 'all') });
    assert.equal(parsed.mode, typed.mode, JSON.stringify(c));
  }
});

test('paging is the engine\'s rule: the server answers a too-deep /v2 page with the engine\'s message and charges nothing', async () => {
  const user = await server.createUser({ searchDays: 30, searchCredits: 5, apiKey: true });
  let engineMessage = '';
  await validateQuery({ query: 'wildcat1', page: 2, size: 10_000 }).catch((error: EngineQueryError) => (engineMessage = error.message));
  assert.match(engineMessage, /10,000/);
  for (let i = 0; i < 2; i++) {
    const reply = await callV2(server, user.apiKey, { query: 'wildcat1', page: 2, size: 10_000 });
    assert.equal(reply.status, 400);
    assert.equal(reply.body.error, engineMessage);
  }
  const ok = await callV2(server, user.apiKey, { query: 'wildcat1', page: 1, size: 10_000 });
  assert.equal(ok.status, 200);
  assert.equal(ok.body.balance, 4, 'only the search that ran was charged');
});

test('the dashboard never offers a page the server refuses: exactly 10,000 results are 499 pages, not 500', async () => {
  assert.deepEqual(
    [0, 1, 20, 21, 9960, 9961, 9980, 9981, 10_000, 10_001, 1_000_000].map(dashboardPageCount),
    [1, 1, 1, 2, 498, 499, 499, 499, 499, 499, 499],
  );
  // The deepest page offered is one the server serves, and the next one is refused.
  const user = await server.createUser({ searchDays: 30 });
  const { token } = await server.login(user.email);
  const ask = (page: number) => call(server.url, 'POST', '/search', { token, body: packSearch({ query: 'someone@example.com', type: 'email', page, regex: false, wildcard: false, deduplicate: true }) });
  assert.equal((await ask(dashboardPageCount(10_000))).status, 200);
  assert.equal((await ask(DASHBOARD_MAX_PAGE + 1)).status, 400);
});
