/**
 * The WHOIS local store filled for browser tests (migration 0006 tables), with fictitious
 * names only: the sample files of samples/whois loaded by the ingest command's own code
 * (`npm run whois-ingest -- --samples`), and beside them a set of `e2e-*.test` names sized
 * for the screen's paging: snapshots kept as the server keeps them (whois/snapshots.ts
 * recordSnapshot), passive DNS and subdomain rows written as the ingest writes them (names
 * reversed by label, MX/NS answers as the bare host).
 */
import type * as WhoisIngest from '../../../server/src/whois/ingest/whois-ingest-service';
import type * as Snapshots from '../../../server/src/whois/snapshots';
import type * as WhoisRepository from '../../../server/src/whois/whois-repository';
import type { WhoisRecord } from '../../../server/src/common/whois-rules';
import type { TestServer } from './server';

const SNAPSHOTS_URL = new URL('../../../server/src/whois/snapshots.ts', import.meta.url).href;
const INGEST_URL = new URL('../../../server/src/whois/ingest/whois-ingest-service.ts', import.meta.url).href;
const REPOSITORY_URL = new URL('../../../server/src/whois/whois-repository.ts', import.meta.url).href;

/** Values of samples/whois (see its README) the screen is tried with. */
export const SAMPLE = {
  domain: 'acme-widgets.test',
  historyVersions: 3,
  masked: 'hollow-pine.test',
  term: 'acme widgets',
  ip: '192.0.2.10',
  mx: 'mx1.mailhost.example.net',
  ns: 'ns1.dnshost.example.org',
  subdomain: 'www.acme-widgets.test',
};

/** Loads every sample file as `npm run whois-ingest -- --samples` does. */
export async function loadWhoisSamples(server: TestServer): Promise<void> {
  const { ingestSamples } = (await import(INGEST_URL)) as typeof WhoisIngest;
  const results = await ingestSamples(server.runtime.config.DATABASE_URL!);
  const failed = results.flatMap((result) => result.files).filter((file) => file.status === 'failed');
  if (failed.length) throw new Error(`samples not loaded: ${JSON.stringify(failed)}`);
}

export const HISTORY_DOMAIN = 'e2e-widgets.test';
export const MASKED_DOMAIN = 'masked-owner.test';
/** Reverse WHOIS: RETAIL_DOMAINS name the term; PRIVACY_DOMAINS of them also name 'privacy'. */
export const RETAIL_TERM = 'globex retail';
export const RETAIL_DOMAINS = Array.from({ length: 25 }, (_, i) => `shop-${String(i + 1).padStart(2, '0')}.test`);
export const PRIVACY_DOMAINS = RETAIL_DOMAINS.slice(0, 2);
/** Reverse IP: this many hosts answer A with SHARED_IP. */
export const SHARED_IP = '198.51.100.77';
export const IP_HOSTS = Array.from({ length: 60 }, (_, i) => `host-${String(i + 1).padStart(2, '0')}.e2e-widgets.test`);
export const MAIL_HOST = 'mx.e2e-widgets.test';
export const MAIL_DOMAINS = ['e2e-widgets.test', 'e2e-globex.test', 'e2e-initech.test'];
export const NAME_SERVER = 'ns1.e2e-widgets.test';
export const NS_DOMAINS = ['e2e-widgets.test', 'e2e-globex.test', 'e2e-initech.test', 'e2e-umbrella.test'];
export const SUBDOMAINS = ['api.e2e-widgets.test', 'mail.e2e-widgets.test', 'www.e2e-widgets.test'];
/** Hostile text in a record: it must show as text. */
export const HOSTILE_ORG = '<img src=x onerror="window.__whoisXss=1">E2E & Co';

const reversed = (name: string) => name.split('.').reverse().join('.');

function record(domain: string, registrar: string, organization: string, created: string, updated: string): WhoisRecord {
  const contact = { organization, state: 'CA', country: 'UNITED STATES', countryCode: 'US' };
  return {
    domainName: domain,
    registrarName: registrar,
    contactEmail: `hostmaster@${domain}`,
    createdDate: created,
    createdDateNormalized: `${created.slice(0, 10)} ${created.slice(11, 19)} UTC`,
    updatedDate: updated,
    expiresDate: '2030-01-01T00:00:00Z',
    domainAvailability: 'UNAVAILABLE',
    status: ['clientTransferProhibited'],
    ips: ['198.51.100.77'],
    nameServers: { hostNames: [NAME_SERVER, 'ns2.e2e-widgets.test'] },
    registrant: contact,
    administrativeContact: contact,
    technicalContact: { ...contact, organization: 'E2E Hosting' },
    registryData: { registrarName: registrar, whoisServer: 'whois.registrar.test' },
  };
}

/** Fills the store; returns when every row is written. */
export async function seedWhoisStore(server: TestServer): Promise<void> {
  const { recordSnapshot } = (await import(SNAPSHOTS_URL)) as typeof Snapshots;
  const db = server.runtime.db;

  // Three versions of one domain, observed years apart: history lists them newest first.
  const versions: [registrar: string, organization: string, updated: string, observed: string][] = [
    ['First Registrar Ltd', 'E2E Widgets Inc', '2017-03-01T00:00:00Z', '2017-03-02T00:00:00Z'],
    ['Second Registrar GmbH', 'E2E Widgets Inc', '2021-06-01T00:00:00Z', '2021-06-02T00:00:00Z'],
    ['Third Registrar LLC', HOSTILE_ORG, '2025-01-01T00:00:00Z', '2025-01-02T00:00:00Z'],
  ];
  for (const [registrar, organization, updated, observed] of versions) {
    await recordSnapshot(db, record(HISTORY_DOMAIN, registrar, organization, '2016-02-29T12:00:00Z', updated), 'local', new Date(observed));
  }
  await recordSnapshot(
    db,
    { domainName: MASKED_DOMAIN, domainAvailability: 'UNAVAILABLE', registrarName: 'Redacting Registrar', dataError: 'MASKED_WHOIS_DATA' },
    'local',
  );
  for (const domain of RETAIL_DOMAINS) {
    const registrar = PRIVACY_DOMAINS.includes(domain) ? 'Privacy Shield Registrar' : 'Plain Registrar';
    await recordSnapshot(db, record(domain, registrar, 'Globex Retail Group', '2019-05-05T00:00:00Z', '2024-05-05T00:00:00Z'), 'local');
  }

  const first = new Date('2022-05-01T00:00:00Z');
  const last = new Date('2025-04-20T00:00:00Z');
  const pdns = [
    ...IP_HOSTS.map((host) => ({ rrname_rev: reversed(host), rrtype: 'A', rdata: SHARED_IP })),
    ...MAIL_DOMAINS.map((domain) => ({ rrname_rev: reversed(domain), rrtype: 'MX', rdata: MAIL_HOST })),
    ...NS_DOMAINS.map((domain) => ({ rrname_rev: reversed(domain), rrtype: 'NS', rdata: NAME_SERVER })),
  ];
  await db
    .insertInto('pdns')
    .values(pdns.map((row) => ({ ...row, first_seen: first, last_seen: last, count: 1, source: 'e2e' })))
    .execute();
  await db
    .insertInto('subdomains')
    .values(SUBDOMAINS.map((name) => ({ name_rev: reversed(name), first_seen: first, last_seen: last, sources: ['e2e'] })))
    .execute();
}

/** A name a registry said is not registered (see cacheNotRegistered). */
export const NOT_REGISTERED_DOMAIN = 'never-registered-e2e.test';

/**
 * A registry's "not registered" answer for `domain`, kept in the answer cache as the
 * service keeps a live answer (1 h): the next lookup reads it (no registry is reachable
 * from a test, and reserved names are never sent out).
 */
export async function cacheNotRegistered(server: TestServer, domain: string = NOT_REGISTERED_DOMAIN): Promise<void> {
  const { writeCache } = (await import(REPOSITORY_URL)) as typeof WhoisRepository;
  const answer: WhoisRecord = { domainName: domain, domainAvailability: 'AVAILABLE', dataError: 'MISSING_WHOIS_DATA' };
  await writeCache(server.runtime.db, 'whois', domain, { answer, source: 'live-rdap', fetchedAt: new Date() }, 3600);
}
