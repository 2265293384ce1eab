import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RdapMapError, rdapToWhoisRecord } from '../../src/whois/rdap-map';

const FETCHED = new Date('2026-11-23T00:00:00Z');

function vcard(...props: unknown[][]): unknown[] {
  return ['vcard', [['version', {}, 'text', '4.0'], ...props]];
}

/** Shaped like RFC 9083 §5.3's example and the ICANN gTLD profile's answers. */
const FULL = {
  objectClassName: 'domain',
  handle: 'XXXX',
  ldhName: 'Shop.Example.TEST',
  status: ['client transfer prohibited', 'active', 'server delete prohibited'],
  port43: 'whois.registrar.test',
  events: [
    { eventAction: 'registration', eventDate: '2020-03-01T12:30:00Z' },
    { eventAction: 'last changed', eventDate: '2025-02-10T08:00:00Z' },
    { eventAction: 'expiration', eventDate: '2027-03-01T12:30:00Z' },
    { eventAction: 'last update of RDAP database', eventDate: '2026-11-22T00:00:00Z' },
  ],
  nameservers: [
    { objectClassName: 'nameserver', ldhName: 'NS1.Example.NET.', ipAddresses: { v4: ['192.0.2.53'], v6: ['2001:DB8:0:0::53'] } },
    { objectClassName: 'nameserver', ldhName: 'ns2.example.net' },
    { objectClassName: 'nameserver', ldhName: 'ns1.example.net' },
  ],
  entities: [
    {
      objectClassName: 'entity',
      roles: ['registrar'],
      publicIds: [{ type: 'IANA Registrar ID', identifier: '9999' }],
      vcardArray: vcard(['fn', {}, 'text', 'Example Registrar, Inc.']),
      entities: [
        {
          objectClassName: 'entity',
          roles: ['abuse'],
          vcardArray: vcard(['fn', {}, 'text', 'Abuse desk'], ['email', {}, 'text', 'abuse@registrar.test']),
        },
      ],
    },
    {
      objectClassName: 'entity',
      roles: ['registrant'],
      vcardArray: vcard(
        ['fn', {}, 'text', 'Jane Roe'],
        ['org', {}, 'text', 'Roe Widgets'],
        ['adr', { cc: 'de' }, 'text', ['', '', 'Street 1', 'Berlin', 'Berlin', '10115', 'Germany']],
        ['email', {}, 'text', 'jane@example.test'],
        ['tel', { type: 'voice' }, 'uri', 'tel:+49.301234567'],
      ),
    },
    {
      objectClassName: 'entity',
      roles: ['administrative', 'technical'],
      vcardArray: vcard(['fn', {}, 'text', 'Hostmaster'], ['email', {}, 'text', 'hostmaster@example.test'], ['adr', {}, 'text', ['', '', '', 'Paris', '', '', 'FR']]),
    },
  ],
};

test('a full domain object: registrar, contacts, dates, status, name servers, age', () => {
  const record = rdapToWhoisRecord(FULL, FETCHED);
  assert.deepEqual(record, {
    domainName: 'shop.example.test',
    registrarName: 'Example Registrar, Inc.',
    contactEmail: 'jane@example.test',
    createdDate: '2020-03-01T12:30:00Z',
    createdDateNormalized: '2020-03-01 12:30:00 UTC',
    updatedDate: '2025-02-10T08:00:00Z',
    expiresDate: '2027-03-01T12:30:00Z',
    estimatedDomainAge: 2457,
    domainAvailability: 'UNAVAILABLE',
    status: ['clientTransferProhibited', 'ok', 'serverDeleteProhibited'],
    nameServers: { hostNames: ['ns1.example.net', 'ns2.example.net'], ips: ['192.0.2.53', '2001:db8::53'] },
    registrant: { name: 'Jane Roe', organization: 'Roe Widgets', email: 'jane@example.test', state: 'Berlin', country: 'Germany', countryCode: 'DE' },
    administrativeContact: { name: 'Hostmaster', email: 'hostmaster@example.test', countryCode: 'FR' },
    technicalContact: { name: 'Hostmaster', email: 'hostmaster@example.test', countryCode: 'FR' },
    registryData: {
      registrarName: 'Example Registrar, Inc.',
      whoisServer: 'whois.registrar.test',
      createdDate: '2020-03-01T12:30:00Z',
      updatedDate: '2025-02-10T08:00:00Z',
      expiresDate: '2027-03-01T12:30:00Z',
      status: ['clientTransferProhibited', 'ok', 'serverDeleteProhibited'],
      nameServers: { hostNames: ['ns1.example.net', 'ns2.example.net'] },
    },
  });
});

test('a redacted registrant (placeholders, ICANN remarks) gives MASKED_WHOIS_DATA and no placeholder text', () => {
  const record = rdapToWhoisRecord(
    {
      objectClassName: 'domain',
      ldhName: 'private.example.test',
      entities: [
        {
          roles: ['registrant'],
          remarks: [{ title: 'REDACTED FOR PRIVACY', description: ['Some of the data in this object has been removed.'] }],
          vcardArray: vcard(
            ['fn', {}, 'text', 'REDACTED FOR PRIVACY'],
            ['org', {}, 'text', 'Privacy Org'],
            ['adr', { cc: 'IS' }, 'text', ['', '', 'REDACTED FOR PRIVACY', 'REDACTED FOR PRIVACY', 'Capital Region', 'REDACTED FOR PRIVACY', '']],
            ['email', {}, 'text', 'Data redacted'],
          ),
        },
      ],
    },
    FETCHED,
  );
  assert.equal(record.dataError, 'MASKED_WHOIS_DATA');
  assert.deepEqual(record.registrant, { organization: 'Privacy Org', state: 'Capital Region', countryCode: 'IS' });
  assert.equal(record.contactEmail, undefined);
});

test('RFC 9537 redaction by removal: a `redacted` member naming a registrant field', () => {
  const record = rdapToWhoisRecord(
    {
      ldhName: 'removed.example.test',
      redacted: [{ name: { type: 'Registrant Email' }, prePath: "$.entities[?(@.roles[0]=='registrant')].vcardArray[1][?(@[0]=='email')]", method: 'removal' }],
    },
    FETCHED,
  );
  assert.equal(record.dataError, 'MASKED_WHOIS_DATA');
  const notRegistrant = rdapToWhoisRecord({ ldhName: 'tech.example.test', redacted: [{ name: { type: 'Tech Email' }, method: 'removal' }] }, FETCHED);
  assert.equal(notRegistrant.dataError, undefined);
});

test('a thin answer: only the name; unicodeName to punycode; no invented values', () => {
  assert.deepEqual(rdapToWhoisRecord({ objectClassName: 'domain', ldhName: 'bare.example.test' }, FETCHED), {
    domainName: 'bare.example.test',
    domainAvailability: 'UNAVAILABLE',
  });
  assert.equal(rdapToWhoisRecord({ unicodeName: 'bücher.example' }, FETCHED).domainName, 'xn--bcher-kva.example');
});

test('entities nested under others are found (breadth first); deeper than 8 are ignored', () => {
  const nestedRegistrant = { roles: ['registrant'], vcardArray: vcard(['fn', {}, 'text', 'Deep Holder']) };
  let chain: Record<string, unknown> = nestedRegistrant;
  for (let i = 0; i < 2; i++) chain = { roles: ['reseller'], entities: [chain] };
  assert.equal(rdapToWhoisRecord({ ldhName: 'a.example.test', entities: [chain] }, FETCHED).registrant?.name, 'Deep Holder');

  chain = nestedRegistrant;
  for (let i = 0; i < 8; i++) chain = { roles: ['reseller'], entities: [chain] };
  assert.equal(rdapToWhoisRecord({ ldhName: 'a.example.test', entities: [chain] }, FETCHED).registrant, undefined);
});

test('hostile values are bounded: long strings dropped, bad dates and hosts ignored, many items cut', () => {
  const record = rdapToWhoisRecord(
    {
      ldhName: 'big.example.test',
      status: Array.from({ length: 500 }, (_, i) => `status ${i}`),
      events: [{ eventAction: 'registration', eventDate: 'yesterday-ish' }],
      nameservers: [{ ldhName: 'x'.repeat(2000) }, { ldhName: 'not a host' }, { ldhName: 'ns.example.org', ipAddresses: { v4: ['999.1.1.1', '198.51.100.7'] } }],
      entities: [{ roles: ['registrant'], vcardArray: vcard(['fn', {}, 'text', 'y'.repeat(1001)], ['org', {}, 'text', 'Fine\u0000\nOrg'], ['email', {}, 'text', 'lone\ud800@example.test']) }],
      __proto__: { polluted: true },
    },
    FETCHED,
  );
  assert.equal(record.createdDate, undefined);
  assert.equal(record.estimatedDomainAge, undefined);
  assert.ok(record.status!.length <= 32);
  assert.deepEqual(record.nameServers, { hostNames: ['ns.example.org'], ips: ['198.51.100.7'] });
  // NUL and lone surrogates cannot be stored (text, jsonb): spaces and U+FFFD.
  assert.deepEqual(record.registrant, { organization: 'Fine Org', email: 'lone\ufffd@example.test' });
  assert.equal(({} as Record<string, unknown>).polluted, undefined);

  let deep: unknown = 'bottom';
  for (let i = 0; i < 10_000; i++) deep = [deep];
  assert.equal(rdapToWhoisRecord({ ldhName: 'deep.example.test', remarks: deep }, FETCHED).domainName, 'deep.example.test');
});

test('what is not a domain object is refused with RdapMapError', () => {
  for (const bad of [null, 'text', [], { objectClassName: 'entity', ldhName: 'a.example.test' }, { errorCode: 404, title: 'Not Found' }, {}, { ldhName: 'no_tld' }, { ldhName: 'a'.repeat(1200) + '.test' }]) {
    assert.throws(() => rdapToWhoisRecord(bad, FETCHED), RdapMapError, JSON.stringify(bad)?.slice(0, 60));
  }
});
