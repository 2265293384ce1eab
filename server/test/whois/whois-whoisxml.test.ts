/**
 * The WhoisXML API adapter against a loopback stub (WHOISXML_BASE_URL) that answers with the
 * documented shapes (WhoisXML's Go client models), `example` and
 * `.test` names only: every tool's request (path, parameters, key) and its mapping to the
 * wire shapes, and every failure (auth, 429, 5xx, bad JSON, an error in the body, too big,
 * too slow), none of whose messages holds the key or the query.
 */
import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ProviderError } from '../../src/whois/provider';
import { createWhoisXmlProvider, whoisXmlUrl, type WhoisXmlProvider } from '../../src/whois/whoisxml-provider';

const KEY = 'at_stubKey0123456789';

interface Seen {
  method: string;
  path: string;
  params: Record<string, string>;
  body: unknown;
}
let seen: Seen[] = [];
let reply: (req: Seen, res: http.ServerResponse) => void = (_req, res) => res.writeHead(404).end();
let server: http.Server;
let base = '';
const providers: WhoisXmlProvider[] = [];

function provider(overrides: { timeoutMs?: number; maxBytes?: number } = {}): WhoisXmlProvider {
  const p = createWhoisXmlProvider({ apiKey: KEY, baseUrl: base, timeoutMs: 2000, maxBytes: 256 * 1024, ...overrides });
  providers.push(p);
  return p;
}
const call = () => ({ signal: new AbortController().signal });
const json = (res: http.ServerResponse, body: unknown, status = 200) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));

before(async () => {
  server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://stub');
      const request: Seen = { method: req.method ?? '', path: url.pathname, params: Object.fromEntries(url.searchParams), body: raw ? JSON.parse(raw) : undefined };
      seen.push(request);
      reply(request, res);
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`; // the final slash is dropped
});
after(async () => {
  await Promise.all(providers.map((p) => p.close()));
  server.closeAllConnections();
  await new Promise((done) => server.close(done));
});
beforeEach(() => {
  seen = [];
});

async function failureOf(promise: Promise<unknown>): Promise<ProviderError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof ProviderError, `a ProviderError, got ${String(error)}`);
    assert.equal(error.provider, 'whoisxml');
    return error;
  }
  assert.fail('expected a ProviderError');
}

test('URLs: WhoisXML hosts by default; under WHOISXML_BASE_URL, paths named after each host', () => {
  assert.equal(whoisXmlUrl('whois').href, 'https://www.whoisxmlapi.com/whoisserver/WhoisService');
  assert.equal(whoisXmlUrl('history').href, 'https://whois-history.whoisxmlapi.com/api/v1');
  assert.equal(whoisXmlUrl('reverse-whois').href, 'https://reverse-whois.whoisxmlapi.com/api/v2');
  assert.equal(whoisXmlUrl('reverse-mx').href, 'https://reverse-mx.whoisxmlapi.com/api/v1');
  assert.equal(whoisXmlUrl('subdomains').href, 'https://subdomains.whoisxmlapi.com/api/v1');
  assert.equal(whoisXmlUrl('whois', 'https://proxy.example/wx/').href, 'https://proxy.example/wx/whoisserver/WhoisService');
  assert.equal(whoisXmlUrl('reverse-ns', 'https://proxy.example/wx').href, 'https://proxy.example/wx/reverse-ns/api/v1');
});

describe('every tool: request and mapping', () => {
  test('WHOIS: GET WhoisService; the record checked and bounded, registry values where the top level has none', async () => {
    reply = (_req, res) =>
      json(res, {
        WhoisRecord: {
          domainName: 'example-shop.test',
          parseCode: 3579,
          audit: { createdDate: '2026-11-20 10:00:00 UTC', updatedDate: '2026-11-20 10:00:00 UTC' },
          registrarName: 'Example Registrar, LLC',
          registrarIANAID: '9999',
          contactEmail: 'hostmaster@example-shop.test',
          createdDate: '1997-09-15T04:00:00Z',
          createdDateNormalized: '1997-09-15 04:00:00 UTC',
          estimatedDomainAge: 10661,
          domainAvailability: 'UNAVAILABLE',
          status: 'clientDeleteProhibited clientTransferProhibited',
          rawText: 'Domain Name: example-shop.test\n...',
          nameServers: { rawText: 'ns1.example-shop.test\n', hostNames: ['NS1.EXAMPLE-SHOP.TEST', 'ns2.example-shop.test', 'not a host'], ips: ['192.0.2.53'] },
          registrant: { organization: 'Example Shop', state: 'CA', country: 'UNITED STATES', countryCode: 'US', street1: '1 Example Way', rawText: 'x', name: 'y'.repeat(5000) },
          technicalContact: { email: 'tech@example-shop.test', countryCode: 'not a code' },
          registryData: {
            createdDate: '1997-09-15T04:00:00Z',
            updatedDate: '2026-08-14T07:01:31Z',
            expiresDate: '2028-09-14T04:00:00Z',
            registrarName: 'Example Registrar, LLC',
            whoisServer: 'whois.example-registrar.test',
            status: 'clientDeleteProhibited serverTransferProhibited',
            nameServers: { hostNames: ['NS1.EXAMPLE-SHOP.TEST'] },
            rawText: '…',
          },
          ips: ['192.0.2.10', '999.1.1.1'],
          subRecords: [{ injected: true }],
        },
      });
    const answer = await provider().whois!('example-shop.test', call());
    assert.equal(answer?.source, 'whoisxml');
    assert.deepEqual(seen.map((s) => [s.method, s.path, s.params]), [['GET', '/whoisserver/WhoisService', { apiKey: KEY, domainName: 'example-shop.test', outputFormat: 'JSON' }]]);
    assert.deepEqual(answer?.data, {
      domainName: 'example-shop.test',
      registrarName: 'Example Registrar, LLC',
      contactEmail: 'hostmaster@example-shop.test',
      createdDate: '1997-09-15T04:00:00Z',
      createdDateNormalized: '1997-09-15 04:00:00 UTC',
      updatedDate: '2026-08-14T07:01:31Z',
      expiresDate: '2028-09-14T04:00:00Z',
      estimatedDomainAge: 10661,
      domainAvailability: 'UNAVAILABLE',
      status: ['clientDeleteProhibited', 'clientTransferProhibited'],
      ips: ['192.0.2.10'],
      nameServers: { hostNames: ['ns1.example-shop.test', 'ns2.example-shop.test'], ips: ['192.0.2.53'] },
      registrant: { organization: 'Example Shop', state: 'CA', country: 'UNITED STATES', countryCode: 'US' },
      technicalContact: { email: 'tech@example-shop.test' },
      registryData: {
        registrarName: 'Example Registrar, LLC',
        whoisServer: 'whois.example-registrar.test',
        createdDate: '1997-09-15T04:00:00Z',
        updatedDate: '2026-08-14T07:01:31Z',
        expiresDate: '2028-09-14T04:00:00Z',
        status: ['clientDeleteProhibited', 'serverTransferProhibited'],
        nameServers: { hostNames: ['ns1.example-shop.test'] },
      },
    });
  });

  test('WHOIS: NUL, control characters and lone surrogates are replaced (PostgreSQL keeps neither)', async () => {
    reply = (_req, res) => json(res, { WhoisRecord: { registrarName: 'Evil\u0000Registrar\u001b[31m', registrant: { organization: 'Org \ud800' } } });
    const answer = await provider().whois!('example-shop.test', call());
    assert.equal(answer?.data.registrarName, 'Evil Registrar [31m');
    assert.equal(answer?.data.registrant?.organization, 'Org \ufffd');
  });

  test('WHOIS of a name nobody holds: an answer with MISSING_WHOIS_DATA (AVAILABLE)', async () => {
    reply = (_req, res) => json(res, { WhoisRecord: { domainName: 'free-name.test', dataError: 'MISSING_WHOIS_DATA', parseCode: 0 } });
    const answer = await provider().whois!('free-name.test', call());
    assert.deepEqual(answer?.data, { domainName: 'free-name.test', domainAvailability: 'AVAILABLE', dataError: 'MISSING_WHOIS_DATA' });
  });

  test('history: GET whois-history, mode purchase, the last ten years, newest first', async () => {
    const record = (updated: string, registrar: string) => ({
      domainName: 'example-shop.test',
      domainType: 'added',
      createdDateISO8601: '1997-09-15T04:00:00+00:00',
      updatedDateISO8601: updated,
      expiresDateISO8601: '2028-09-14T04:00:00+00:00',
      createdDateRaw: '1997-09-15T04:00:00Z',
      updatedDateRaw: updated,
      expiresDateRaw: '2028-09-14T04:00:00Z',
      audit: { createdDate: updated, updatedDate: updated },
      nameServers: ['ns1.example-shop.test', 'NS2.EXAMPLE-SHOP.TEST'],
      whoisServer: 'whois.example-registrar.test',
      registrarName: registrar,
      status: ['clientTransferProhibited'],
      cleanText: '…',
      rawText: '…',
      registrantContact: { name: '', organization: 'Example Shop', state: 'CA', country: 'UNITED STATES', email: '', telephone: '+1.5555550100' },
      administrativeContact: {},
      technicalContact: { organization: 'Example Hosting' },
      billingContact: {},
      zoneContact: {},
    });
    reply = (_req, res) => json(res, { recordsCount: 3, records: [record('2019-01-01T00:00:00+00:00', 'Old Registrar'), record('2025-06-01T00:00:00+00:00', 'Example Registrar, LLC'), 'junk'] });
    const answer = await provider().history!('example-shop.test', call());
    const [request] = seen;
    assert.equal(request?.path, '/whois-history/api/v1');
    const since = new Date();
    since.setUTCFullYear(since.getUTCFullYear() - 10);
    assert.deepEqual(request?.params, { apiKey: KEY, domainName: 'example-shop.test', mode: 'purchase', sinceDate: since.toISOString().slice(0, 10), outputFormat: 'JSON' });
    assert.equal(answer?.data.recordsCount, 2);
    assert.deepEqual(answer?.data.records.map((r) => r.registrarName), ['Example Registrar, LLC', 'Old Registrar']);
    assert.deepEqual(answer?.data.records[0], {
      domainName: 'example-shop.test',
      registrarName: 'Example Registrar, LLC',
      whoisServer: 'whois.example-registrar.test',
      createdDateRaw: '1997-09-15T04:00:00Z',
      updatedDateRaw: '2025-06-01T00:00:00+00:00',
      expiresDateRaw: '2028-09-14T04:00:00Z',
      createdDateISO8601: '1997-09-15T04:00:00+00:00',
      updatedDateISO8601: '2025-06-01T00:00:00+00:00',
      expiresDateISO8601: '2028-09-14T04:00:00+00:00',
      audit: { createdDate: '2025-06-01T00:00:00+00:00', updatedDate: '2025-06-01T00:00:00+00:00' },
      nameServers: ['ns1.example-shop.test', 'ns2.example-shop.test'],
      status: ['clientTransferProhibited'],
      registrantContact: { organization: 'Example Shop', state: 'CA', country: 'UNITED STATES' },
      technicalContact: { organization: 'Example Hosting' },
    });
  });

  test('reverse WHOIS: POST v2 with the terms, search type, mode purchase and searchAfter; key in the body', async () => {
    reply = (_req, res) => json(res, { nextPageSearchAfter: 'cursor-2', domainsCount: 10001, domainsList: ['shop-one.test', 'SHOP-TWO.TEST', 42] });
    const answer = await provider().reverseWhois!({ mode: 'historic', include: ['example shop'], exclude: ['hosting'] }, 'cursor-1', call());
    const [request] = seen;
    assert.equal(request?.method, 'POST');
    assert.equal(request?.path, '/reverse-whois/api/v2');
    assert.deepEqual(request?.params, {});
    assert.deepEqual(request?.body, { searchType: 'historic', mode: 'purchase', responseFormat: 'json', basicSearchTerms: { include: ['example shop'], exclude: ['hosting'] }, searchAfter: 'cursor-1', apiKey: KEY });
    assert.deepEqual(answer?.data, { domainsCount: 10001, domainsList: ['shop-one.test', 'shop-two.test'], nextPageSearchAfter: 'cursor-2' });

    reply = (_req, res) => json(res, { domainsCount: 0 });
    const empty = await provider().reverseWhois!({ mode: 'current', include: ['nobody'], exclude: [] }, null, call());
    assert.equal((seen[1]?.body as Record<string, unknown>).searchAfter, undefined);
    assert.deepEqual(empty?.data, { domainsCount: 0, domainsList: [], nextPageSearchAfter: null });
  });

  test('reverse IP, MX, NS: GET reverse-{ip,mx,ns} with the value and `from`; rows checked, one page at most', async () => {
    const rows = [
      { name: 'shop-one.test', first_seen: 1_600_000_000, last_visit: 1_700_000_000 },
      { name: 'shop-two.test', first_seen: '1600000001', last_visit: 1_700_000_001 },
      { name: 'broken.test', first_seen: 'yesterday', last_visit: 1 },
      ...Array.from({ length: 400 }, (_, i) => ({ name: `bulk-${i}.test`, first_seen: 1, last_visit: 2 })),
    ];
    reply = (_req, res) => json(res, { current_page: '0', size: rows.length, result: rows });
    for (const [kind, value] of [['ip', '192.0.2.10'], ['mx', 'mx.example-shop.test'], ['ns', 'ns1.example-shop.test']] as const) {
      seen = [];
      const answer = await provider().reverse!(kind, value, kind === 'ip' ? null : 'shop-zero.test', call());
      assert.equal(seen[0]?.path, `/reverse-${kind}/api/v1`);
      assert.deepEqual(seen[0]?.params, kind === 'ip' ? { apiKey: KEY, ip: value, outputFormat: 'JSON' } : { apiKey: KEY, [kind]: value, from: 'shop-zero.test', outputFormat: 'JSON' });
      assert.equal(answer?.data.current_page, '0');
      assert.equal(answer?.data.result.length, 299, 'a page is 300 rows; the bad one dropped');
      assert.equal(answer?.data.size, 299);
      assert.deepEqual(answer?.data.result.slice(0, 2), [
        { name: 'shop-one.test', first_seen: 1_600_000_000, last_visit: 1_700_000_000 },
        { name: 'shop-two.test', first_seen: 1_600_000_001, last_visit: 1_700_000_001 },
      ]);
    }
  });

  test('subdomains: GET subdomains with domainName; records checked', async () => {
    reply = (_req, res) =>
      json(res, {
        search: 'example-shop.test',
        result: { count: 2, records: [{ domain: 'www.example-shop.test', firstSeen: 1_600_000_000, lastSeen: 1_700_000_000 }, { domain: 'mail.example-shop.test', firstSeen: 1_600_000_100, lastSeen: 1_700_000_100 }, { domain: null }] },
      });
    const answer = await provider().subdomains!('example-shop.test', call());
    assert.equal(seen[0]?.path, '/subdomains/api/v1');
    assert.deepEqual(seen[0]?.params, { apiKey: KEY, domainName: 'example-shop.test', outputFormat: 'JSON' });
    assert.deepEqual(answer?.data, {
      search: 'example-shop.test',
      result: {
        count: 2,
        records: [
          { domain: 'www.example-shop.test', firstSeen: 1_600_000_000, lastSeen: 1_700_000_000 },
          { domain: 'mail.example-shop.test', firstSeen: 1_600_000_100, lastSeen: 1_700_000_100 },
        ],
      },
    });
  });
});

describe('failures', () => {
  const tools = (p: WhoisXmlProvider) => [
    () => p.whois!('example-shop.test', call()),
    () => p.history!('example-shop.test', call()),
    () => p.reverseWhois!({ mode: 'current', include: ['example shop'], exclude: [] }, null, call()),
    () => p.reverse!('ip', '192.0.2.10', null, call()),
    () => p.subdomains!('example-shop.test', call()),
  ];

  async function everyToolFails(reason: string, respond: typeof reply, overrides: Parameters<typeof provider>[0] = {}): Promise<void> {
    reply = respond;
    const p = provider(overrides);
    for (const run of tools(p)) {
      const error = await failureOf(run());
      assert.equal(error.reason, reason, error.message);
      assert.ok(!error.message.includes(KEY), 'no key in the message');
      assert.doesNotMatch(error.message, /example-shop|example shop|192\.0\.2\.10/, 'no query in the message');
    }
  }

  test('401 and 403: auth', async () => {
    await everyToolFails('auth', (_req, res) => json(res, { code: 401, messages: 'Invalid API key' }, 401));
    await everyToolFails('auth', (_req, res) => res.writeHead(403).end('Access restricted. Check the credits balance.'));
  });

  test('an error in a 200 body: by its code (403 → auth), otherwise a failure all the same', async () => {
    await everyToolFails('auth', (_req, res) => json(res, { code: 403, messages: 'Access restricted. Check credits balance or enter the correct API key.' }));
    await everyToolFails('unparseable', (_req, res) => json(res, { ErrorMessage: { errorCode: 'WHOIS_01', msg: 'domainName is invalid' } }));
    await everyToolFails('unparseable', (_req, res) => json(res, { ErrorMessage: { errorCode: 'APIKEY_429', msg: 'not a status' } }));
    await everyToolFails('http-429', (_req, res) => json(res, { code: '429', messages: 'Too many requests' }));
  });

  test('429: http-429; 5xx: http-5xx', async () => {
    await everyToolFails('http-429', (_req, res) => json(res, { code: 429, messages: 'Too many requests' }, 429));
    await everyToolFails('http-5xx', (_req, res) => res.writeHead(502).end('<html>bad gateway</html>'));
  });

  test('bad JSON, or JSON of another shape: unparseable', async () => {
    await everyToolFails('unparseable', (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"WhoisRecord": {'));
    await everyToolFails('unparseable', (_req, res) => json(res, ['not', 'an', 'object']));
    reply = (_req, res) => json(res, { something: 'else' });
    const p = provider();
    for (const run of [tools(p)[0]!, tools(p)[1]!, tools(p)[3]!, tools(p)[4]!]) assert.equal((await failureOf(run())).reason, 'unparseable');
  });

  test('an answer over WHOIS_MAX_BYTES: too-large (with or without Content-Length)', async () => {
    await everyToolFails('too-large', (_req, res) => json(res, { pad: 'x'.repeat(5000) }), { maxBytes: 4096 });
    await everyToolFails(
      'too-large',
      (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"pad":"');
        res.end(`${'x'.repeat(5000)}"}`);
      },
      { maxBytes: 4096 },
    );
  });

  test('a slow answer: timeout within WHOIS_TIMEOUT_MS and a little', async () => {
    reply = () => {}; // never answers
    const started = Date.now();
    const error = await failureOf(provider({ timeoutMs: 300 }).whois!('example-shop.test', call()));
    assert.equal(error.reason, 'timeout');
    assert.ok(Date.now() - started < 1300, `took ${Date.now() - started} ms`);
  });

  test('nothing listening: network', async () => {
    const closed = http.createServer();
    await new Promise<void>((done) => closed.listen(0, '127.0.0.1', done));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((done) => closed.close(done));
    const p = createWhoisXmlProvider({ apiKey: KEY, baseUrl: `http://127.0.0.1:${port}`, timeoutMs: 2000, maxBytes: 4096 });
    providers.push(p);
    const error = await failureOf(p.whois!('example-shop.test', call()));
    assert.equal(error.reason, 'network');
    assert.ok(!error.message.includes(KEY));
  });
});
