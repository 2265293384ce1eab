/**
 * The live WHOIS provider against real loopback servers: port-43 WHOIS servers (node:net)
 * for IANA (127.0.0.1), a registry (127.0.0.2) and a registrar (127.0.0.3) on one port,
 * and an RDAP server (node:http). Referral host names resolve through an injected resolver;
 * the RDAP base of a TLD is injected too, so nothing leaves the machine.
 */
import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { Kysely, PostgresDialect } from 'kysely';
import type { Database } from '../../src/db/schema';
import { createPool, migrateToLatest } from '../../src/infra/database';
import { recordSnapshot } from '../../src/whois/snapshots';
import { createTestDatabase } from '../support/harness';
import { ProviderError } from '../../src/whois/provider';
import { createLiveProvider, isReservedDomain, type LiveProvider, type LiveProviderOptions } from '../../src/whois/live/live-provider';
import { checkBootstrap, rdapBaseLookup, shippedRdapBaseFor } from '../../src/whois/live/bootstrap';
import { referralHost } from '../../src/whois/live/port43';
import { ianaReferral, parseWhoisText } from '../../src/whois/live/whois-text';

const DOMAIN = 'blue-widgets.com';

/** What a fake WHOIS server answers a query: text, or 'hang' (accept, never answer). */
type Port43Reply = string | Buffer | 'hang';

interface FakeWhois {
  host: string;
  queries: string[];
  connections: number;
  reply: (query: string) => Port43Reply;
}

const IANA: FakeWhois = { host: '127.0.0.1', queries: [], connections: 0, reply: () => '' };
const REGISTRY: FakeWhois = { host: '127.0.0.2', queries: [], connections: 0, reply: () => '' };
const REGISTRAR: FakeWhois = { host: '127.0.0.3', queries: [], connections: 0, reply: () => '' };
const FAKES = [IANA, REGISTRY, REGISTRAR];

/** Names in referral text → loopback addresses (the injected resolver). */
const HOSTS: Record<string, string> = {
  'whois.nic.com': REGISTRY.host,
  'whois.registrar.com': REGISTRAR.host,
};
const resolve = async (host: string) => {
  const address = HOSTS[host];
  if (!address) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  return [address];
};

const servers: net.Server[] = [];
let port = 0;

function listenWhois(fake: FakeWhois, at: number): Promise<net.Server> {
  const server = net.createServer((socket) => {
    fake.connections++;
    let input = '';
    socket.on('error', () => {});
    socket.on('data', (chunk) => {
      input += chunk.toString('utf8');
      const end = input.indexOf('\r\n');
      if (end < 0) return;
      const query = input.slice(0, end);
      fake.queries.push(query);
      const reply = fake.reply(query);
      if (reply === 'hang') return;
      socket.end(reply);
    });
  });
  return new Promise((done, fail) => {
    server.once('error', fail);
    server.listen(at, fake.host, () => done(server));
  });
}

/** Three WHOIS servers on one port (WHOIS_PORT43 is one setting), at three loopback addresses. */
async function startWhoisServers(): Promise<void> {
  for (let attempt = 0; attempt < 10; attempt++) {
    const first = await listenWhois(IANA, 0);
    port = (first.address() as AddressInfo).port;
    try {
      servers.push(first, await listenWhois(REGISTRY, port), await listenWhois(REGISTRAR, port));
      return;
    } catch {
      await new Promise((done) => first.close(done)); // port taken on another address: try another
    }
  }
  throw new Error('no port free on 127.0.0.1-3');
}

/** The RDAP server: a handler per test. */
let rdapHandler: (req: http.IncomingMessage, res: http.ServerResponse) => void = (_req, res) => res.writeHead(404).end();
const rdapRequests: string[] = [];
let rdapServer: http.Server;
let rdapBase = '';

const providers: LiveProvider[] = [];
function provider(overrides: Partial<LiveProviderOptions> = {}): LiveProvider {
  const live = createLiveProvider({
    timeoutMs: 2000,
    maxBytes: 64 * 1024,
    port43: port,
    ianaHost: IANA.host,
    allowPrivate: true,
    rdapBaseFor: () => null,
    resolve,
    ...overrides,
  });
  providers.push(live);
  return live;
}
const call = () => ({ signal: new AbortController().signal });

async function failureOf(promise: Promise<unknown>): Promise<ProviderError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof ProviderError, `a ProviderError, got ${String(error)}`);
    return error;
  }
  assert.fail('expected a ProviderError');
}

// --- fixtures ------------------------------------------------------------------------

const IANA_COM = `% IANA WHOIS server
domain:       COM
organisation: VeriSign Global Registry Services
whois:        whois.nic.com
status:       ACTIVE
`;
const IANA_COM_REFER = `% IANA WHOIS server\nrefer:        whois.nic.com\n\ndomain:       COM\n`;

const THIN_REGISTRY = `   Domain Name: BLUE-WIDGETS.COM
   Registry Domain ID: 2138514_DOMAIN_COM-VRSN
   Registrar WHOIS Server: whois.registrar.com
   Registrar URL: http://www.registrar.com
   Updated Date: 2024-05-01T10:00:00Z
   Creation Date: 2001-03-04T05:06:07Z
   Registry Expiry Date: 2030-03-04T05:06:07Z
   Registrar: Widget Registrar, Inc.
   Registrar IANA ID: 9999
   Domain Status: clientTransferProhibited https://icann.org/epp#clientTransferProhibited
   Name Server: NS1.BLUE-WIDGETS.COM
   Name Server: NS2.BLUE-WIDGETS.COM
   DNSSEC: unsigned
>>> Last update of whois database: 2026-11-23T00:00:00Z <<<

Registrant Name: text after the marker is terms of use, never fields
`;

const FULL_REGISTRAR = `Domain Name: blue-widgets.com
Registrar WHOIS Server: whois.registrar.com
Updated Date: 2024-05-02T11:00:00Z
Creation Date: 2001-03-04T05:06:07Z
Registrar Registration Expiration Date: 2030-03-04T05:06:07Z
Registrar: Widget Registrar, Inc.
Domain Status: clientTransferProhibited https://icann.org/epp#clientTransferProhibited
Domain Status: clientDeleteProhibited https://icann.org/epp#clientDeleteProhibited
Registrant Name: Jane Doe
Registrant Organization: Blue Widgets Ltd
Registrant State/Province: Ontario
Registrant Country: CA
Registrant Email: owner@blue-widgets.com
Admin Name: Ops Team
Admin Organization: Blue Widgets Ltd
Admin Email: ops@blue-widgets.com
Tech Organization: Widget Hosting
Tech Country: DE
Name Server: ns1.blue-widgets.com
Name Server: ns2.blue-widgets.com
`;

const REDACTED_RECORD = `Domain Name: BLUE-WIDGETS.COM
Creation Date: 2001-03-04T05:06:07Z
Registrar: Widget Registrar, Inc.
Registrant Name: REDACTED FOR PRIVACY
Registrant Organization: REDACTED FOR PRIVACY
Registrant State/Province: Ontario
Registrant Country: CA
Registrant Email: Please query the RDDS service of the Registrar of Record identified in this output for information on how to contact the Registrant
Name Server: NS1.BLUE-WIDGETS.COM
`;

function rdapDomain(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    objectClassName: 'domain',
    ldhName: 'BLUE-WIDGETS.COM',
    status: ['client transfer prohibited'],
    events: [
      { eventAction: 'registration', eventDate: '2001-03-04T05:06:07Z' },
      { eventAction: 'expiration', eventDate: '2030-03-04T05:06:07Z' },
    ],
    entities: [{ objectClassName: 'entity', roles: ['registrar'], vcardArray: ['vcard', [['version', {}, 'text', '4.0'], ['fn', {}, 'text', 'Widget Registrar, Inc.']]] }],
    nameservers: [{ objectClassName: 'nameserver', ldhName: 'NS1.BLUE-WIDGETS.COM' }],
    port43: 'whois.nic.com',
    ...extra,
  };
}

function sendJson(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/rdap+json' }).end(JSON.stringify(body));
}

// --- lifecycle -----------------------------------------------------------------------

before(async () => {
  await startWhoisServers();
  rdapServer = http.createServer((req, res) => {
    rdapRequests.push(req.url ?? '');
    rdapHandler(req, res);
  });
  await new Promise<void>((done) => rdapServer.listen(0, '127.0.0.1', done));
  rdapBase = `http://127.0.0.1:${(rdapServer.address() as AddressInfo).port}/rdap/`;
});

after(async () => {
  await Promise.all(providers.map((p) => p.close()));
  rdapServer.closeAllConnections();
  await new Promise((done) => rdapServer.close(done));
  for (const server of servers) await new Promise((done) => server.close(done));
});

beforeEach(() => {
  for (const fake of FAKES) {
    fake.queries = [];
    fake.connections = 0;
    fake.reply = () => '';
  }
  rdapRequests.length = 0;
  rdapHandler = (_req, res) => res.writeHead(404).end();
});

// --- port-43 -------------------------------------------------------------------------

describe('port-43 WHOIS', () => {
  test('a referral chain of two hops: IANA → registry (thin) → registrar; registrar values, registry view kept', async () => {
    IANA.reply = () => IANA_COM_REFER;
    REGISTRY.reply = () => THIN_REGISTRY;
    REGISTRAR.reply = () => FULL_REGISTRAR;
    const answer = await provider().whois!(DOMAIN, call());
    assert.ok(answer);
    assert.equal(answer.source, 'live-whois');
    assert.deepEqual([IANA.queries, REGISTRY.queries, REGISTRAR.queries], [['com'], [DOMAIN], [DOMAIN]]);
    const record = answer.data;
    assert.equal(record.domainName, DOMAIN);
    assert.equal(record.domainAvailability, 'UNAVAILABLE');
    assert.equal(record.registrarName, 'Widget Registrar, Inc.');
    assert.equal(record.createdDate, '2001-03-04T05:06:07Z');
    assert.equal(record.createdDateNormalized, '2001-03-04 05:06:07 UTC');
    assert.equal(record.updatedDate, '2024-05-02T11:00:00Z'); // the registrar's
    assert.equal(record.expiresDate, '2030-03-04T05:06:07Z');
    assert.ok(record.estimatedDomainAge! > 9000);
    assert.deepEqual(record.status, ['clientTransferProhibited', 'clientDeleteProhibited']);
    assert.deepEqual(record.nameServers, { hostNames: ['ns1.blue-widgets.com', 'ns2.blue-widgets.com'] });
    assert.deepEqual(record.registrant, { name: 'Jane Doe', organization: 'Blue Widgets Ltd', state: 'Ontario', countryCode: 'CA', email: 'owner@blue-widgets.com' });
    assert.deepEqual(record.administrativeContact, { name: 'Ops Team', organization: 'Blue Widgets Ltd', email: 'ops@blue-widgets.com' });
    assert.deepEqual(record.technicalContact, { organization: 'Widget Hosting', countryCode: 'DE' });
    assert.equal(record.contactEmail, 'owner@blue-widgets.com');
    assert.equal(record.dataError, undefined);
    assert.deepEqual(record.registryData, {
      registrarName: 'Widget Registrar, Inc.',
      whoisServer: 'whois.nic.com',
      createdDate: '2001-03-04T05:06:07Z',
      updatedDate: '2024-05-01T10:00:00Z',
      expiresDate: '2030-03-04T05:06:07Z',
      status: ['clientTransferProhibited'],
      nameServers: { hostNames: ['ns1.blue-widgets.com', 'ns2.blue-widgets.com'] },
    });
  });

  test('IANA without refer: its whois: line names the server; a thick registry answers alone', async () => {
    IANA.reply = () => IANA_COM;
    REGISTRY.reply = () => FULL_REGISTRAR.replace('Registrar WHOIS Server: whois.registrar.com\n', '');
    const answer = await provider().whois!(DOMAIN, call());
    assert.equal(answer?.data.registrant?.name, 'Jane Doe');
    assert.equal(REGISTRAR.connections, 0);
  });

  test('a redacted record: MASKED_WHOIS_DATA, placeholders dropped, the rest kept', async () => {
    IANA.reply = () => IANA_COM_REFER;
    REGISTRY.reply = () => REDACTED_RECORD;
    const answer = await provider().whois!(DOMAIN, call());
    assert.equal(answer?.data.dataError, 'MASKED_WHOIS_DATA');
    assert.equal(answer?.data.domainAvailability, 'UNAVAILABLE');
    assert.deepEqual(answer?.data.registrant, { state: 'Ontario', countryCode: 'CA', email: 'Please query the RDDS service of the Registrar of Record identified in this output for information on how to contact the Registrant' });
  });

  test('"No match for": an answer saying the domain is not registered (AVAILABLE, no data: free)', async () => {
    IANA.reply = () => IANA_COM_REFER;
    REGISTRY.reply = () => `No match for "${DOMAIN.toUpperCase()}".\r\n>>> Last update of whois database: 2026-11-23T00:00:00Z <<<\r\n`;
    const answer = await provider().whois!(DOMAIN, call());
    assert.deepEqual(answer?.data, { domainName: DOMAIN, domainAvailability: 'AVAILABLE', dataError: 'MISSING_WHOIS_DATA' });
    assert.equal(REGISTRAR.connections, 0);
  });

  test('an answer that is neither a record nor "no match" (a rate-limit notice) is a failure, not an answer', async () => {
    IANA.reply = () => IANA_COM_REFER;
    REGISTRY.reply = () => 'WHOIS LIMIT EXCEEDED - SEE WWW.NIC.COM FOR DETAILS\r\n';
    const error = await failureOf(provider().whois!(DOMAIN, call()));
    assert.equal(error.reason, 'unparseable');
  });

  test('a registrar hop that fails, or answers no record, leaves the registry record', async () => {
    IANA.reply = () => IANA_COM_REFER;
    REGISTRY.reply = () => THIN_REGISTRY;
    for (const registrarReply of [Buffer.alloc(64 * 1024 + 1, 'x'), 'Rate limit exceeded\r\n', `No match for ${DOMAIN}\r\n`]) {
      REGISTRAR.reply = () => registrarReply;
      const answer = await provider().whois!(DOMAIN, call());
      assert.equal(answer?.data.registrarName, 'Widget Registrar, Inc.');
      assert.equal(answer?.data.domainAvailability, 'UNAVAILABLE');
      assert.equal(answer?.data.registrant, undefined);
      assert.equal(answer?.data.registryData?.whoisServer, 'whois.nic.com');
    }
    assert.equal(REGISTRAR.queries.length, 3);
  });

  test('a slow server: ProviderError timeout within WHOIS_TIMEOUT_MS and a little', async () => {
    IANA.reply = () => IANA_COM_REFER;
    REGISTRY.reply = () => 'hang';
    const started = Date.now();
    const error = await failureOf(provider({ timeoutMs: 300 }).whois!(DOMAIN, call()));
    const elapsed = Date.now() - started;
    assert.equal(error.reason, 'timeout');
    assert.ok(elapsed >= 290 && elapsed < 1300, `took ${elapsed} ms`);
  });

  test("the caller's signal ends the lookup too", async () => {
    IANA.reply = () => 'hang';
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const started = Date.now();
    const error = await failureOf(provider({ timeoutMs: 5000 }).whois!(DOMAIN, { signal: controller.signal }));
    assert.equal(error.reason, 'timeout');
    assert.ok(Date.now() - started < 1000);
  });

  test('an oversized answer: too-large, reading stops at WHOIS_MAX_BYTES', async () => {
    IANA.reply = () => IANA_COM_REFER;
    REGISTRY.reply = () => Buffer.alloc(4096 + 1, 'a');
    const error = await failureOf(provider({ maxBytes: 4096 }).whois!(DOMAIN, call()));
    assert.equal(error.reason, 'too-large');
    const exactly = FULL_REGISTRAR + '%'.repeat(4096 - Buffer.byteLength(FULL_REGISTRAR) - 1) + '\n';
    assert.equal(Buffer.byteLength(exactly), 4096);
    REGISTRY.reply = () => exactly;
    assert.equal((await provider({ maxBytes: 4096 }).whois!(DOMAIN, call()))?.data.registrant?.name, 'Jane Doe', 'exactly the cap is read');
  });

  test('referrals to private addresses are refused unless WHOIS_ALLOW_PRIVATE: no connection is made', async () => {
    REGISTRY.reply = () => FULL_REGISTRAR;
    for (const refer of ['127.0.0.2', 'whois.nic.com' /* resolves to 127.0.0.2 */]) {
      IANA.reply = () => `refer: ${refer}\n`;
      const error = await failureOf(provider({ allowPrivate: false }).whois!(DOMAIN, call()));
      assert.equal(error.reason, 'refused', refer);
      assert.match(error.message, /not a public address|non-public address/);
    }
    assert.equal(REGISTRY.connections, 0);
    assert.equal(IANA.connections, 2, 'IANA (the operator setting) is asked');
  });

  test('a referral that is no host name is refused as no server', async () => {
    IANA.reply = () => 'refer: 2130706433\n'; // decimal 127.0.0.1
    assert.equal(await provider().whois!(DOMAIN, call()), null, 'no usable WHOIS server, no RDAP: nothing to say');
    assert.equal(REGISTRY.connections + REGISTRAR.connections, 0);
  });
});

// --- RDAP ----------------------------------------------------------------------------

describe('RDAP', () => {
  const withRdap = (overrides: Partial<LiveProviderOptions> = {}) => provider({ rdapBaseFor: (tld) => (tld === 'com' ? rdapBase : null), ...overrides });

  test('RDAP is preferred over port-43 when both exist', async () => {
    IANA.reply = () => IANA_COM_REFER;
    REGISTRY.reply = () => FULL_REGISTRAR;
    rdapHandler = (req, res) => {
      assert.match(req.headers.accept ?? '', /application\/rdap\+json/);
      sendJson(res, 200, rdapDomain());
    };
    const answer = await withRdap().whois!(DOMAIN, call());
    assert.equal(answer?.source, 'live-rdap');
    assert.deepEqual(rdapRequests, [`/rdap/domain/${DOMAIN}`]);
    assert.equal(answer?.data.registrarName, 'Widget Registrar, Inc.');
    assert.deepEqual(answer?.data.status, ['clientTransferProhibited']);
    assert.equal(IANA.connections + REGISTRY.connections, 0);
  });

  test('a 404 is an answer: MISSING_WHOIS_DATA, no fallback', async () => {
    rdapHandler = (_req, res) => sendJson(res, 404, { errorCode: 404, title: 'Not Found' });
    const answer = await withRdap().whois!(DOMAIN, call());
    assert.equal(answer?.source, 'live-rdap');
    assert.deepEqual(answer?.data, { domainName: DOMAIN, domainAvailability: 'AVAILABLE', dataError: 'MISSING_WHOIS_DATA' });
    assert.equal(IANA.connections, 0);
  });

  test('a 500 falls back to port-43', async () => {
    IANA.reply = () => IANA_COM_REFER;
    REGISTRY.reply = () => FULL_REGISTRAR;
    rdapHandler = (_req, res) => res.writeHead(500).end('oops');
    const answer = await withRdap().whois!(DOMAIN, call());
    assert.equal(answer?.source, 'live-whois');
    assert.equal(answer?.data.registrant?.name, 'Jane Doe');
    assert.equal(rdapRequests.length, 1);
  });

  test('RDAP failures name their reason when port-43 has nothing either', async () => {
    IANA.reply = () => '% no such TLD\n'; // no refer, no whois
    const cases: [(res: http.ServerResponse) => void, string][] = [
      [(res) => res.writeHead(429).end(), 'http-429'],
      [(res) => res.writeHead(503).end(), 'http-5xx'],
      [(res) => res.writeHead(200, { 'content-type': 'application/rdap+json' }).end('{"objectClassName": "domain",'), 'unparseable'],
      [(res) => sendJson(res, 200, { objectClassName: 'nameserver', ldhName: 'ns1.blue-widgets.com' }), 'unparseable'],
      [(res) => res.writeHead(200).end(JSON.stringify(rdapDomain({ pad: 'x'.repeat(70_000) }))), 'too-large'],
      [
        (res) => {
          // no content-length: the cap applies while reading
          res.writeHead(200, { 'content-type': 'application/rdap+json' });
          res.write(`{"objectClassName":"domain","pad":"`);
          res.end(`${'x'.repeat(70_000)}"}`);
        },
        'too-large',
      ],
    ];
    for (const [handler, reason] of cases) {
      rdapHandler = (_req, res) => handler(res);
      const error = await failureOf(withRdap().whois!(DOMAIN, call()));
      assert.equal(error.reason, reason, error.message);
      assert.doesNotMatch(error.message, /blue-widgets/, 'no query in the message');
    }
  });

  test('a slow RDAP server: timeout within WHOIS_TIMEOUT_MS and a little, for RDAP and port-43 together', async () => {
    rdapHandler = () => {}; // never answers
    IANA.reply = () => IANA_COM_REFER;
    REGISTRY.reply = () => FULL_REGISTRAR;
    const started = Date.now();
    const error = await failureOf(withRdap({ timeoutMs: 300 }).whois!(DOMAIN, call()));
    const elapsed = Date.now() - started;
    assert.equal(error.reason, 'timeout');
    assert.ok(elapsed < 1300, `took ${elapsed} ms`);
  });

  test('one related link is followed (thin registry): the registrar record with the registry view', async () => {
    rdapHandler = (req, res) => {
      if (req.url === `/rdap/domain/${DOMAIN}`) {
        return sendJson(res, 200, rdapDomain({ links: [{ rel: 'self', href: `${rdapBase}domain/${DOMAIN}` }, { rel: 'related', href: `${rdapBase}registrar/domain/${DOMAIN}`, type: 'application/rdap+json' }] }));
      }
      if (req.url === `/rdap/registrar/domain/${DOMAIN}`) {
        return sendJson(res, 200, rdapDomain({
          events: [{ eventAction: 'registration', eventDate: '2001-03-04T05:06:07Z' }, { eventAction: 'last changed', eventDate: '2024-05-02T11:00:00Z' }],
          entities: [
            { roles: ['registrar'], vcardArray: ['vcard', [['fn', {}, 'text', 'Widget Registrar, Inc.']]] },
            { roles: ['registrant'], vcardArray: ['vcard', [['fn', {}, 'text', 'Jane Doe'], ['org', {}, 'text', 'Blue Widgets Ltd'], ['email', {}, 'text', 'owner@blue-widgets.com']]] },
          ],
          // a registrar's links are not followed again
          links: [{ rel: 'related', href: `${rdapBase}third/domain/${DOMAIN}` }],
        }));
      }
      res.writeHead(404).end();
    };
    const answer = await withRdap().whois!(DOMAIN, call());
    assert.deepEqual(rdapRequests, [`/rdap/domain/${DOMAIN}`, `/rdap/registrar/domain/${DOMAIN}`]);
    assert.equal(answer?.data.registrant?.organization, 'Blue Widgets Ltd');
    assert.equal(answer?.data.contactEmail, 'owner@blue-widgets.com');
    assert.equal(answer?.data.updatedDate, '2024-05-02T11:00:00Z');
    assert.equal(answer?.data.expiresDate, '2030-03-04T05:06:07Z', "the registry's where the registrar has none");
    assert.equal(answer?.data.registryData?.whoisServer, 'whois.nic.com');
  });

  test('a related link that fails leaves the registry record', async () => {
    rdapHandler = (req, res) => {
      if (req.url === `/rdap/domain/${DOMAIN}`) return sendJson(res, 200, rdapDomain({ links: [{ rel: 'related', href: `${rdapBase}registrar/domain/${DOMAIN}` }] }));
      res.writeHead(502).end();
    };
    const answer = await withRdap().whois!(DOMAIN, call());
    assert.equal(answer?.source, 'live-rdap');
    assert.equal(answer?.data.registrarName, 'Widget Registrar, Inc.');
    assert.equal(rdapRequests.length, 2);
  });

  test('an RDAP server on a private address is refused unless allowed (then port-43 is tried)', async () => {
    IANA.reply = () => '% nothing\n';
    rdapHandler = (_req, res) => sendJson(res, 200, rdapDomain());
    const error = await failureOf(withRdap({ allowPrivate: false }).whois!(DOMAIN, call()));
    assert.equal(error.reason, 'refused');
    assert.equal(rdapRequests.length, 0);
    assert.equal(IANA.connections, 1);
  });

  test('redirects are followed (each hop through the same connect-time guard)', async () => {
    rdapHandler = (req, res) => {
      if (req.url === `/rdap/domain/${DOMAIN}`) return res.writeHead(301, { location: `/rdap/moved/domain/${DOMAIN}` }).end();
      sendJson(res, 200, rdapDomain());
    };
    const answer = await withRdap().whois!(DOMAIN, call());
    assert.equal(answer?.data.registrarName, 'Widget Registrar, Inc.');
    assert.deepEqual(rdapRequests, [`/rdap/domain/${DOMAIN}`, `/rdap/moved/domain/${DOMAIN}`]);
  });
});

// --- reserved names, bootstrap, referral hosts -------------------------------------

test('reserved names: null, and no connection anywhere', async () => {
  IANA.reply = () => IANA_COM_REFER;
  const live = provider({ rdapBaseFor: () => rdapBase });
  for (const name of ['shop.test', 'x.example', 'printer.local', 'a.localhost', 'bad.invalid', 'example.com', 'www.example.org', 'example.net']) {
    assert.equal(isReservedDomain(name), true, name);
    assert.equal(await live.whois!(name, call()), null, name);
  }
  assert.equal(IANA.connections + REGISTRY.connections + REGISTRAR.connections + rdapRequests.length, 0);
  assert.equal(isReservedDomain('myexample.com'), false);
});

test('the shipped bootstrap: IANA services, https preferred, base URLs end in a slash', () => {
  assert.equal(shippedRdapBaseFor('com'), 'https://rdap.verisign.com/com/v1/');
  assert.equal(shippedRdapBaseFor('ORG'), 'https://rdap.publicinterestregistry.org/rdap/');
  assert.equal(shippedRdapBaseFor('no-such-tld'), null);
  const lookup = rdapBaseLookup(checkBootstrap({ services: [[['a', 'b'], ['http://x.example/rdap', 'https://y.example/rdap/']]] }));
  assert.equal(lookup('b'), 'https://y.example/rdap/');
  assert.equal(rdapBaseLookup({ services: [[['c'], ['http://z.example/r']]] })('c'), 'http://z.example/r/');
  for (const bad of [null, {}, { services: [] }, { services: [['com']] }, { services: [[['com'], ['ftp://x']]] }]) {
    assert.throws(() => checkBootstrap(bad), /RDAP bootstrap/);
  }
});

test('referral hosts: names and IP literals as servers write them; anything else refused', () => {
  assert.equal(referralHost('whois.verisign-grs.com'), 'whois.verisign-grs.com');
  assert.equal(referralHost(' WHOIS.Example.NET. '), 'whois.example.net');
  assert.equal(referralHost('whois://whois.example.net:4343/'), 'whois.example.net');
  assert.equal(referralHost('http://whois.example.net/path'), 'whois.example.net');
  assert.equal(referralHost('192.0.2.7'), '192.0.2.7');
  assert.equal(referralHost('[2001:db8::1]'), '2001:db8::1');
  assert.equal(referralHost('2001:db8::1'), '2001:db8::1');
  for (const bad of ['', '2130706433', '0177.0.0.1', '127.1', 'a b', 'evil.com;rm', '-x.com', 'x'.repeat(300)]) {
    assert.equal(referralHost(bad), null, bad);
  }
  assert.equal(ianaReferral('domain: COM\nwhois: whois.nic.com\nrefer: whois.verisign-grs.com\n'), 'whois.verisign-grs.com');
  assert.equal(ianaReferral('% no data\n'), null);
});

test('WHOIS text: ccTLD spellings, bounded lists, dates kept as given', () => {
  const text = [
    'domain:        BLUE-WIDGETS.RU',
    'nserver:       ns1.blue-widgets.ru. 192.0.2.1',
    'nserver:       ns2.blue-widgets.ru.',
    'state:         REGISTERED, DELEGATED',
    'org:           Blue Widgets',
    'registrar:     RU-CENTER-RU',
    'created:       2004-04-28T20:00:00Z',
    'paid-till:     2027-04-30T21:00:00Z',
    ...Array.from({ length: 100 }, (_, i) => `Name Server: ns${i}.x.ru`),
  ].join('\n');
  const { record } = parseWhoisText(text, 'blue-widgets.ru', new Date('2026-11-23T00:00:00Z'));
  assert.equal(record.registrarName, 'RU-CENTER-RU');
  assert.equal(record.createdDateNormalized, '2004-04-28 20:00:00 UTC');
  assert.equal(record.expiresDate, '2027-04-30T21:00:00Z');
  assert.equal(record.estimatedDomainAge, 8243);
  assert.equal(record.nameServers!.hostNames.length, 32);
  assert.deepEqual(record.nameServers!.hostNames.slice(0, 2), ['ns1.blue-widgets.ru', 'ns2.blue-widgets.ru']);
  const odd = parseWhoisText('Creation Date: sometime in 1999\nRegistrar: X\n', 'a.com').record;
  assert.equal(odd.createdDate, 'sometime in 1999');
  assert.equal(odd.createdDateNormalized, undefined);
  assert.equal(odd.estimatedDomainAge, undefined);
  assert.equal(parseWhoisText('% nothing useful\n', 'a.com').record.domainAvailability, 'UNDETERMINED');
  const proto = parseWhoisText('Registrar: X\nRegistrant constructor: a\nRegistrant __proto__: b\nRegistrant toString: c\nRegistrant Name: N\n', 'a.com').record;
  assert.deepEqual(proto.registrant, { name: 'N' });
});

test('WHOIS text: what PostgreSQL cannot keep (NUL, lone surrogates, control characters) never reaches a field', () => {
  const { record } = parseWhoisText('Registrar: Evil\u0000 Registrar\u0007\r\nRegistrant Organization: Bad \ud800 Org\r\nCreation Date: 2001-03-04\r\n', 'a.com');
  assert.equal(record.registrarName, 'Evil  Registrar');
  assert.equal(record.registrant?.organization, 'Bad \ufffd Org');
  assert.doesNotMatch(JSON.stringify(record), /\\u0000|\\ud800|\\u0007/);
});

test('a live answer from hostile bytes is kept as a snapshot in PostgreSQL (as the service does)', async () => {
  const database = await createTestDatabase();
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: createPool(database.url, { max: 1 }) }) });
  try {
    await migrateToLatest(db);
    IANA.reply = () => IANA_COM_REFER;
    REGISTRY.reply = () => Buffer.concat([Buffer.from(FULL_REGISTRAR.replace('Jane Doe', 'Jane\u0000Doe')), Buffer.from([0xff, 0xfe, 0x0a]), Buffer.from('Registrant City: \u001b[2J\n')]);
    const answer = await provider().whois!(DOMAIN, call());
    assert.ok(answer);
    await recordSnapshot(db, answer.data, answer.source, answer.fetchedAt);
    const row = await db.selectFrom('whois_snapshots').select(['domain', 'source', 'is_current']).where('domain', '=', DOMAIN).executeTakeFirstOrThrow();
    assert.deepEqual(row, { domain: DOMAIN, source: 'live-whois', is_current: true });
    assert.equal(answer.data.registrant?.name, 'Jane Doe');

    // RDAP: JSON escapes of NUL and of a lone surrogate (jsonb refuses both)
    rdapHandler = (_req, res) =>
      res.writeHead(200, { 'content-type': 'application/rdap+json' }).end(JSON.stringify(rdapDomain({ ldhName: 'red-widgets.com' })).replace('Widget Registrar, Inc.', 'Widget\\u0000Registrar \\ud800'));
    const rdap = await provider({ rdapBaseFor: () => rdapBase }).whois!('red-widgets.com', call());
    assert.equal(rdap?.data.registrarName, 'Widget Registrar \ufffd');
    await recordSnapshot(db, rdap!.data, rdap!.source, rdap!.fetchedAt);
    assert.equal((await db.selectFrom('whois_snapshots').select('source').where('domain', '=', 'red-widgets.com').executeTakeFirstOrThrow()).source, 'live-rdap');
  } finally {
    await db.destroy();
    await database.drop();
  }
});
