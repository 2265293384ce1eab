/**
 * The IANA RDAP bootstrap for domains (RFC 9224): which RDAP server serves a TLD. A
 * snapshot ships in rdap-bootstrap.json (its `source` says where it came from);
 * `npm run whois-bootstrap` (scripts/whois-bootstrap.ts) refreshes it from
 * WHOIS_RDAP_BOOTSTRAP_URL.
 */
import shipped from './rdap-bootstrap.json' with { type: 'json' };

/** `{version, publication, services: [[[labels], [base URLs]], …]}` (RFC 9224 §4). */
export interface RdapBootstrap {
  version?: string;
  publication?: string;
  services: [string[], string[]][];
}

export type RdapBaseFor = (tld: string) => string | null;

/** A file fit to use: a services array of [labels, URLs] pairs with at least one http(s) URL. */
export function checkBootstrap(value: unknown): RdapBootstrap {
  const services = (value as { services?: unknown } | null)?.services;
  if (!Array.isArray(services) || services.length === 0) throw new Error('RDAP bootstrap: no services');
  for (const service of services) {
    const ok =
      Array.isArray(service) &&
      service.length >= 2 &&
      Array.isArray(service[0]) &&
      Array.isArray(service[1]) &&
      (service[0] as unknown[]).every((label) => typeof label === 'string') &&
      (service[1] as unknown[]).some((url) => typeof url === 'string' && /^https?:\/\//.test(url));
    if (!ok) throw new Error('RDAP bootstrap: a service is not [[labels], [URLs]]');
  }
  return value as RdapBootstrap;
}

/**
 * The RDAP base URL of each TLD in a bootstrap file, ending in '/'. Of a service's URLs the
 * first https one is taken (RFC 9224 §5 prefers https), else the first http one.
 */
export function rdapBaseLookup(bootstrap: RdapBootstrap): RdapBaseFor {
  const bases = new Map<string, string>();
  for (const [labels, urls] of bootstrap.services) {
    const base = urls.find((url) => url.startsWith('https://')) ?? urls.find((url) => url.startsWith('http://'));
    if (!base) continue;
    for (const label of labels) bases.set(label.toLowerCase(), base.endsWith('/') ? base : `${base}/`);
  }
  return (tld) => bases.get(tld.toLowerCase()) ?? null;
}

let shippedLookup: RdapBaseFor | undefined;

/** The shipped snapshot's lookup (parsed once). */
export function shippedRdapBaseFor(tld: string): string | null {
  shippedLookup ??= rdapBaseLookup(checkBootstrap(shipped));
  return shippedLookup(tld);
}
