/**
 * The WHOIS calls (docs/whois.md "Calls", "Credits"): `POST /whois`,
 * `GET /user/whois-credits`, `POST /v2/whois/search`, `GET /v2/whois/credits`, answered
 * from the local store; credits taken in one statement (50 concurrent requests with 10
 * credits spend exactly 10), an answer without data of any tool free on both APIs, stale
 * holds refunded by the sweeper (a failing provider: whois-refund.test.ts). Real PostgreSQL.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql, startTestServer, type TestServer } from '../support/harness';
import { call, callV2, freshIp, type Reply } from '../support/helpers';
import { packWhois } from '../../src/common/obfuscation';
import { HISTORY_COST, WHOIS_MESSAGES, v2TypeOfTool, v2WhoisData, type WhoisRecord, type WhoisTool } from '../../src/common/whois-rules';
import { writeCache } from '../../src/whois/whois-repository';
import { recordSnapshot } from '../../src/whois/snapshots';
import { reverseName } from '../../src/whois/names';

let server: TestServer;

const DAY = 86_400_000;

const record = (domain: string, registrar: string, org: string): WhoisRecord => ({
  domainName: domain,
  registrarName: registrar,
  createdDate: '2015-03-01T00:00:00Z',
  expiresDate: '2030-03-01T00:00:00Z',
  domainAvailability: 'UNAVAILABLE',
  registrant: { name: 'Jane Example', organization: org, country: 'Testland', email: `hostmaster@${domain}` },
  nameServers: { hostNames: ['ns1.dns-host.test', 'ns2.dns-host.test'] },
  status: ['clientTransferProhibited', 'serverDeleteProhibited'],
  registryData: { registrarName: registrar, status: ['serverDeleteProhibited'] },
});

before(async () => {
  server = await startTestServer({
    env: { API_RATE_BURST: '1000', API_RATE_PER_SECOND: '1000', WHOIS_LOOKUP_PROVIDERS: 'local', WHOIS_DATA_PROVIDERS: 'local' },
  });
  const db = server.runtime.db;
  // Two versions of one domain a year apart (history), and a second domain of the same org.
  await recordSnapshot(db, record('acme.test', 'Old Registrar LLC', 'Acme Widgets'), 'test', new Date(Date.now() - 400 * DAY));
  await recordSnapshot(db, record('acme.test', 'New Registrar Inc', 'Acme Widgets'), 'test', new Date(Date.now() - 10 * DAY));
  await recordSnapshot(db, record('acme-shop.test', 'New Registrar Inc', 'Acme Widgets'), 'test', new Date(Date.now() - 5 * DAY));
  await recordSnapshot(db, record('other.test', 'New Registrar Inc', 'Other Corp'), 'test', new Date(Date.now() - 5 * DAY));
  const seen = { first_seen: new Date(Date.now() - 30 * DAY), last_seen: new Date(Date.now() - DAY), count: 3, source: 'test' };
  const pdns = [
    ['www.acme.test', 'A', '192.0.2.10'],
    ['shop.acme.test', 'A', '192.0.2.10'],
    ['acme.test', 'MX', 'mx.mail-host.test'],
    ['acme.test', 'NS', 'ns1.dns-host.test'],
    ['other.test', 'NS', 'ns1.dns-host.test'],
  ].map(([name, rrtype, rdata]) => ({ rrname_rev: reverseName(name!), rrtype: rrtype!, rdata: rdata!, ...seen }));
  await db.insertInto('pdns').values(pdns).execute();
  await db
    .insertInto('subdomains')
    .values(['www.acme.test', 'shop.acme.test', 'mail.acme.test'].map((name) => ({ name_rev: reverseName(name), first_seen: seen.first_seen, last_seen: seen.last_seen, sources: ['test'] })))
    .execute();
});
after(() => server.close());

async function signedIn(whoisCredits: number) {
  const user = await server.createUser({ whoisCredits, apiKey: true });
  const { token } = await server.login(user.email);
  return { ...user, token, apiKey: user.apiKey! };
}

const whois = (token: string, searchType: string, query: string) => call(server.url, 'POST', '/whois', { token, body: packWhois({ searchType, query }), ip: freshIp() });
const credits = async (token: string) => (await call(server.url, 'GET', '/user/whois-credits', { token })).body.whois_credits as number;
const v2 = (key: string, body: unknown) => callV2(server, key, body, { path: '/v2/whois/search' });

function ok(reply: Reply, searchType: string) {
  assert.equal(reply.status, 200, JSON.stringify(reply.body));
  assert.equal(reply.body.search_type, searchType);
  assert.equal(reply.body.source, 'local');
  assert.ok(!Number.isNaN(Date.parse(reply.body.fetched_at)));
  return reply.body.data;
}

describe('POST /whois from the local store', () => {
  test('every tool answers in its shape and takes its cost (history 25)', async () => {
    const user = await signedIn(100);
    const lookup = ok(await whois(user.token, 'whois', 'ACME.test.'), 'whois');
    assert.equal(lookup.domainName, 'acme.test');
    assert.equal(lookup.registrarName, 'New Registrar Inc');
    assert.ok(lookup.estimatedDomainAge > 365 * 10, 'domain age in days from createdDate');

    const history = ok(await whois(user.token, 'whois_history', 'acme.test'), 'whois_history');
    assert.equal(history.records.length, 2);
    assert.equal(history.records[0].registrarName, 'New Registrar Inc', 'newest first');
    assert.equal(history.records[1].registrarName, 'Old Registrar LLC');

    const current = ok(await whois(user.token, 'reverse_whois', 'current:acme widgets:'), 'reverse_whois');
    assert.deepEqual([...current.domainsList].sort(), ['acme-shop.test', 'acme.test']);
    const excluded = ok(await whois(user.token, 'reverse_whois', 'current:new registrar:other corp'), 'reverse_whois');
    assert.deepEqual([...excluded.domainsList].sort(), ['acme-shop.test', 'acme.test']);
    const historic = ok(await whois(user.token, 'reverse_whois', 'historic:old registrar:'), 'reverse_whois');
    assert.deepEqual(historic.domainsList, ['acme.test']);
    // Only in an old version: no domain, no charge.
    assert.deepEqual(ok(await whois(user.token, 'reverse_whois', 'current:old registrar:'), 'reverse_whois').domainsList, [], 'only in an old version');

    const names = (data: { result: { name: string }[] }) => data.result.map((r) => r.name).sort();
    assert.deepEqual(names(ok(await whois(user.token, 'reverse_ip', '192.0.2.10'), 'reverse_ip')), ['shop.acme.test', 'www.acme.test']);
    assert.deepEqual(names(ok(await whois(user.token, 'reverse_mx', 'mx.mail-host.test'), 'reverse_mx')), ['acme.test']);
    assert.deepEqual(names(ok(await whois(user.token, 'reverse_ns', 'NS1.dns-host.test'), 'reverse_ns')), ['acme.test', 'other.test']);
    const subdomains = ok(await whois(user.token, 'subdomain_scan', 'acme.test'), 'subdomain_scan');
    assert.deepEqual(subdomains.result.records.map((r: { domain: string }) => r.domain).sort(), ['mail.acme.test', 'shop.acme.test', 'www.acme.test']);
    assert.equal(typeof subdomains.result.records[0].firstSeen, 'number');

    // 1 + 25 + 3 + 3 + 1 = 33 spent (the empty reverse WHOIS was free); each answer said what was left.
    assert.equal(await credits(user.token), 100 - 33);
    // A domain no source knows: "no data", undetermined (not "not registered"), and the credit goes back.
    const last = await whois(user.token, 'whois', 'unknown-domain.test');
    assert.equal(last.body.remaining_credits, 100 - 33);
    assert.deepEqual(last.body.data, { domainName: 'unknown-domain.test', domainAvailability: 'UNDETERMINED', dataError: 'MISSING_WHOIS_DATA' });
    assert.equal(last.body.source, 'none');
    assert.equal(await credits(user.token), 100 - 33);
    const ledger = await server.runtime.db.selectFrom('credit_ledger').select(['delta', 'reason']).where('user_id', '=', user.id).where('kind', '=', 'whois').execute();
    assert.equal(ledger.reduce((sum, row) => sum + row.delta, 0), -33);
    assert.ok(ledger.some((row) => row.reason === 'whois:whois_history' && row.delta === -HISTORY_COST));
  });

  test('validation messages, before any credit is taken', async () => {
    const user = await signedIn(5);
    const cases: [WhoisTool | string, string, string][] = [
      ['whois', '', WHOIS_MESSAGES.emptyQuery],
      ['whois', 'not a domain', WHOIS_MESSAGES.invalidDomain],
      ['whois_history', 'bad_domain.t', WHOIS_MESSAGES.invalidDomain],
      ['reverse_ip', '', WHOIS_MESSAGES.emptyLookup],
      ['reverse_ip', '999.1.1.1', WHOIS_MESSAGES.invalidIp],
      ['reverse_mx', '', WHOIS_MESSAGES.emptyLookup],
      ['subdomain_scan', '', WHOIS_MESSAGES.emptyLookup],
      ['reverse_whois', 'current::', WHOIS_MESSAGES.emptyReverseWhois],
      ['reverse_whois', 'current:a,b,c,d,e:', WHOIS_MESSAGES.tooManyTerms],
      ['reverse_whois', 'sometimes:a:', WHOIS_MESSAGES.invalidMode],
      ['whois-history', 'acme.test', WHOIS_MESSAGES.invalidSearchType],
    ];
    for (const [tool, query, message] of cases) {
      const reply = await whois(user.token, tool, query);
      assert.equal(reply.status, 400, `${tool} ${query}`);
      assert.equal(reply.body.error, message, `${tool} ${query}`);
    }
    const tampered = { ...packWhois({ searchType: 'whois', query: 'acme.test' }), search_type: 'reverse_ip' };
    const malformed = await call(server.url, 'POST', '/whois', { token: user.token, body: tampered });
    assert.equal(malformed.status, 400);
    assert.equal((await call(server.url, 'POST', '/whois', { body: packWhois({ searchType: 'whois', query: 'acme.test' }) })).status, 401);
    assert.equal(await credits(user.token), 5);
  });

  test('too few credits: 403 with the documented message, nothing taken; history refused below 25', async () => {
    const user = await signedIn(HISTORY_COST - 1);
    const history = await whois(user.token, 'whois_history', 'acme.test');
    assert.equal(history.status, 403);
    assert.equal(history.body.error, WHOIS_MESSAGES.creditsRequired);
    assert.equal(await credits(user.token), HISTORY_COST - 1);
    assert.equal((await whois(user.token, 'whois', 'acme.test')).status, 200, 'a lookup still fits');

    const broke = await signedIn(0);
    const reply = await whois(broke.token, 'reverse_ip', '192.0.2.10');
    assert.equal(reply.status, 403);
    assert.equal(reply.body.error, WHOIS_MESSAGES.creditsRequired);
  });

  test('50 concurrent lookups with 10 credits spend exactly 10', async () => {
    const user = await signedIn(10);
    const replies = await Promise.all(Array.from({ length: 50 }, (_, i) => whois(user.token, i % 2 ? 'whois' : 'reverse_ns', i % 2 ? 'acme.test' : 'ns1.dns-host.test')));
    assert.equal(replies.filter((r) => r.status === 200).length, 10);
    assert.equal(replies.filter((r) => r.status === 403).length, 40);
    assert.equal(await credits(user.token), 0);
    const { rows } = await sql<{ n: number; holds: number }>`
      select (select count(*)::int from credit_ledger where user_id = ${user.id} and kind = 'whois') as n,
             (select count(*)::int from whois_holds where user_id = ${user.id} and status = 'captured') as holds`.execute(server.runtime.db);
    assert.deepEqual(rows[0], { n: 10, holds: 10 });
  });

  test('the query text never reaches the log', async () => {
    const user = await signedIn(3);
    const secretDomain = 'very-private-lookup-7f3a.test';
    server.markSecret(secretDomain, 'private-term-91xq');
    assert.equal((await whois(user.token, 'whois', secretDomain)).status, 200);
    assert.equal((await whois(user.token, 'reverse_whois', 'current:private-term-91xq:')).status, 200);
    assert.ok(!server.logs().includes(secretDomain));
  });
});

describe('/v2/whois', () => {
  test('every search type, the value in any of the four fields, credits', async () => {
    const user = await signedIn(60);
    const body = async (payload: object, type: string) => {
      const reply = await v2(user.apiKey, { search_type: type, ...payload });
      return ok(reply, type);
    };
    // The record nests under WhoisRecord with status as one string, as WhoisXML-style clients decode it.
    const lookup = await body({ domain: 'acme.test' }, 'whois');
    assert.deepEqual(Object.keys(lookup), ['WhoisRecord']);
    assert.equal(lookup.WhoisRecord.registrarName, 'New Registrar Inc');
    assert.equal(lookup.WhoisRecord.domainName, 'acme.test');
    assert.equal(lookup.WhoisRecord.status, 'clientTransferProhibited serverDeleteProhibited');
    assert.equal(lookup.WhoisRecord.registryData.status, 'serverDeleteProhibited');
    assert.equal((await body({ domain: 'acme.test' }, 'whois-history')).records.length, 2);
    assert.deepEqual([...(await body({ include: ['Acme Widgets'], exclude: ['shop'] }, 'reverse-whois')).domainsList], ['acme.test']);
    assert.deepEqual((await body({ include: ['old registrar'], reverse_type: 'historic' }, 'reverse-whois')).domainsList, ['acme.test']);
    assert.equal((await body({ ip_address: '192.0.2.10' }, 'reverse-ip')).result.length, 2);
    assert.equal((await body({ domain: '192.0.2.10' }, 'reverse-ip')).result.length, 2, 'some clients send the IP as domain');
    assert.equal((await body({ mx_address: 'mx.mail-host.test' }, 'reverse-mx')).result.length, 1);
    assert.equal((await body({ ns_address: 'ns1.dns-host.test' }, 'reverse-ns')).result.length, 2);
    assert.equal((await body({ domain: 'acme.test' }, 'subdomain-scan')).result.count, 3);

    const balance = await call(server.url, 'GET', '/v2/whois/credits', { headers: { [server.runtime.config.apiKeyHeader]: user.apiKey }, ip: freshIp() });
    assert.equal(balance.status, 200);
    assert.deepEqual(balance.body, { whois_credits: 60 - 25 - 8 });
  });

  test('errors: type, terms, missing value, credits, key', async () => {
    const user = await signedIn(1);
    const expect = async (payload: object, status: number, message?: string) => {
      const reply = await v2(user.apiKey, payload);
      assert.equal(reply.status, status, JSON.stringify(payload));
      if (message) assert.equal(reply.body.error, message);
    };
    await expect({ search_type: 'whois_history', domain: 'acme.test' }, 400, WHOIS_MESSAGES.invalidSearchType);
    await expect({ search_type: 'reverse-whois' }, 400, WHOIS_MESSAGES.emptyReverseWhois);
    await expect({ search_type: 'reverse-whois', include: ['a', 'b', 'c', 'd', 'e'] }, 400, WHOIS_MESSAGES.tooManyTerms);
    await expect({ search_type: 'reverse-whois', include: ['a'], reverse_type: 'someday' }, 400, WHOIS_MESSAGES.invalidMode);
    await expect({ search_type: 'whois' }, 400, WHOIS_MESSAGES.emptyQuery);
    await expect({ search_type: 'reverse-ip', ip_address: 'acme.test' }, 400, WHOIS_MESSAGES.invalidIp);
    await expect({ search_type: 'whois-history', domain: 'acme.test' }, 403, WHOIS_MESSAGES.creditsRequired);
    assert.equal((await callV2(server, 'not-a-key', { search_type: 'whois', domain: 'acme.test' }, { path: '/v2/whois/search' })).status, 400);
    // An undeclared property is dropped (clients send extras), never acted on.
    await expect({ search_type: 'whois', domain: 'acme.test', extra: 1 }, 200);
    await expect({ search_type: 'whois', domain: 'acme.test' }, 403, WHOIS_MESSAGES.creditsRequired);
  });
});

/**
 * One charging rule for every tool, the same on the dashboard's POST /whois and on
 * /v2 (docs/whois.md "Credits"): an answer without data costs nothing. A registry's "not
 * registered" (kept in the answer cache as the service keeps a live answer) is AVAILABLE;
 * a domain no source knows is UNDETERMINED; every other tool answers its empty shape.
 */
describe('answers without data: every tool, on POST /whois and /v2, costs nothing', () => {
  const NOT_REGISTERED = 'never-registered.test';
  const UNKNOWN = 'nobody-knows.test';
  /** Each tool's query with nothing behind it, and the answer it gets. */
  const EMPTY: [tool: WhoisTool, query: string, v2: Record<string, unknown>, data: unknown][] = [
    ['whois', NOT_REGISTERED, { domain: NOT_REGISTERED }, { domainName: NOT_REGISTERED, domainAvailability: 'AVAILABLE', dataError: 'MISSING_WHOIS_DATA' }],
    ['whois', UNKNOWN, { domain: UNKNOWN }, { domainName: UNKNOWN, domainAvailability: 'UNDETERMINED', dataError: 'MISSING_WHOIS_DATA' }],
    ['whois_history', UNKNOWN, { domain: UNKNOWN }, { recordsCount: 0, records: [] }],
    ['reverse_whois', 'current:no such owner:', { include: ['no such owner'] }, { domainsCount: 0, domainsList: [], nextPageSearchAfter: null }],
    ['reverse_ip', '198.51.100.250', { ip_address: '198.51.100.250' }, { current_page: '0', size: 0, result: [] }],
    ['reverse_mx', 'mx.nowhere.test', { mx_address: 'mx.nowhere.test' }, { current_page: '0', size: 0, result: [] }],
    ['reverse_ns', 'ns.nowhere.test', { ns_address: 'ns.nowhere.test' }, { current_page: '0', size: 0, result: [] }],
    ['subdomain_scan', UNKNOWN, { domain: UNKNOWN }, { search: UNKNOWN, result: { count: 0, records: [] } }],
  ];
  const START = HISTORY_COST + 5;

  before(async () => {
    const answer = { domainName: NOT_REGISTERED, domainAvailability: 'AVAILABLE', dataError: 'MISSING_WHOIS_DATA' };
    await writeCache(server.runtime.db, 'whois', NOT_REGISTERED, { answer, source: 'live-rdap', fetchedAt: new Date() }, 3600);
  });

  /** Every charge of the user came back: one refund row per charge, the ledger sums to 0. */
  async function everyChargeRefunded(userId: string, count: number) {
    const ledger = await server.runtime.db.selectFrom('credit_ledger').select(['delta', 'reason']).where('user_id', '=', userId).where('kind', '=', 'whois').execute();
    assert.equal(ledger.length, 2 * count, 'a charge and its refund per request');
    assert.equal(ledger.reduce((sum, row) => sum + row.delta, 0), 0);
    for (const [tool] of EMPTY) assert.ok(ledger.some((row) => row.reason === `whois-refund:${tool}` && row.delta > 0), `${tool} refunded`);
  }

  test('POST /whois: each tool answers its empty shape and takes nothing', async () => {
    const user = await signedIn(START);
    for (const [tool, query, , data] of EMPTY) {
      const reply = await whois(user.token, tool, query);
      assert.equal(reply.status, 200, `${tool} ${query}: ${JSON.stringify(reply.body)}`);
      assert.deepEqual(reply.body.data, data, `${tool} ${query}`);
      assert.equal(reply.body.remaining_credits, START, `${tool} ${query} is free`);
    }
    assert.equal(await credits(user.token), START);
    await everyChargeRefunded(user.id, EMPTY.length);
    // An answer with data still costs its credit.
    assert.equal((await whois(user.token, 'whois', 'acme.test')).body.remaining_credits, START - 1);
  });

  test('/v2/whois/search: the same answers (a record under WhoisRecord), the same rule', async () => {
    const user = await signedIn(START);
    for (const [tool, , fields, data] of EMPTY) {
      const reply = await v2(user.apiKey, { search_type: v2TypeOfTool(tool), ...fields });
      assert.equal(reply.status, 200, `${tool}: ${JSON.stringify(reply.body)}`);
      assert.deepEqual(reply.body.data, v2WhoisData(tool, data as WhoisRecord), tool);
      assert.equal(reply.body.remaining_credits, START, `${tool} is free`);
    }
    const balance = await call(server.url, 'GET', '/v2/whois/credits', { headers: { [server.runtime.config.apiKeyHeader]: user.apiKey }, ip: freshIp() });
    assert.deepEqual(balance.body, { whois_credits: START });
    await everyChargeRefunded(user.id, EMPTY.length);
    // The first page of a reverse lookup with rows costs 1; the page after its last row is empty and free.
    const page = await v2(user.apiKey, { search_type: 'reverse-ip', ip_address: '192.0.2.10' });
    assert.equal(page.body.remaining_credits, START - 1);
    const after = await v2(user.apiKey, { search_type: 'reverse-ip', ip_address: '192.0.2.10', from: page.body.data.result.at(-1).name });
    assert.deepEqual(after.body.data.result, []);
    assert.equal(after.body.remaining_credits, START - 1);
  });
});

describe('OpenAPI', () => {
  test('the WHOIS calls are documented with their security', async () => {
    const paths = (await call(server.url, 'GET', '/openapi.json')).body.paths;
    assert.deepEqual(paths['/whois'].post.security, [{ bearer: [] }]);
    assert.deepEqual(paths['/user/whois-credits'].get.security, [{ bearer: [] }]);
    assert.deepEqual(paths['/v2/whois/search'].post.security, [{ apiKey: [] }]);
    assert.deepEqual(paths['/v2/whois/credits'].get.security, [{ apiKey: [] }]);
  });
});

describe('holds', () => {
  test('the sweeper refunds a hold left open by a dead request, once', async () => {
    const user = await signedIn(30);
    const db = server.runtime.db;
    const { rows } = await sql<{ id: string }>`
      with charged as (update users set whois_credits = whois_credits - 25 where id = ${user.id} returning whois_credits)
      insert into whois_holds (user_id, tool, cost, created_at) select ${user.id}, 'whois_history', 25, now() - interval '11 minutes' from charged returning id`.execute(db);
    assert.equal(await credits(user.token), 5);
    await server.runtime.app.whois.sweep();
    await server.runtime.app.whois.sweep();
    assert.equal(await credits(user.token), 30);
    const hold = await db.selectFrom('whois_holds').select('status').where('id', '=', rows[0]!.id).executeTakeFirstOrThrow();
    assert.equal(hold.status, 'refunded');
    const refunds = await db.selectFrom('credit_ledger').select(['delta', 'reason']).where('reference', '=', `refund:${rows[0]!.id}`).execute();
    assert.deepEqual(refunds, [{ delta: 25, reason: 'whois-refund:whois_history' }]);
  });
});
