/**
 * The `live` provider (docs/whois.md "Providers"): WHOIS lookups only, asked
 * of the registries themselves.
 *
 * 1. RDAP (via-rdap.ts): the TLD's base URL from the IANA bootstrap,
 *    `GET {base}domain/{name}`, then at most one `related` link (a thin registry points at
 *    the registrar's record). 404 is an answer: the domain is not registered
 *    (MISSING_WHOIS_DATA).
 * 2. When RDAP fails or the TLD has none: port-43 WHOIS (via-port43.ts). IANA's server names
 *    the TLD's server (`refer:`), whose answer may name the registrar's (`Registrar WHOIS
 *    Server:`): at most two hops after IANA. A registrar hop that fails leaves the
 *    registry's record.
 *
 * Reserved names are never sent out (null). Every host taken from a bootstrap, a referral,
 * a redirect or a link is refused when it is or resolves to a non-public address, unless
 * `allowPrivate`. The whole lookup gets `timeoutMs` (and ends with the caller's signal);
 * every answer is read up to `maxBytes`. Caching and snapshots are the service's.
 */
import type { Agent } from 'undici';
import type { Resolver } from '../../infra/ssrf';
import { guardedAgent } from '../../infra/ssrf';
import type { WhoisRecord } from '../../common/whois-rules';
import { ProviderError, type CallOptions, type ProviderAnswer, type WhoisProvider } from '../provider';
import { shippedRdapBaseFor, type RdapBaseFor } from './bootstrap';
import { viaPort43 } from './via-port43';
import { viaRdap } from './via-rdap';

export interface LiveProviderOptions {
  /** WHOIS_TIMEOUT_MS: the whole lookup, RDAP and port-43 together. */
  timeoutMs: number;
  /** WHOIS_MAX_BYTES: one answer. */
  maxBytes: number;
  /** WHOIS_PORT43. */
  port43: number;
  /** WHOIS_IANA_HOST: the operator's choice, so not subject to the private-address check. */
  ianaHost: string;
  /** WHOIS_ALLOW_PRIVATE (tests): servers and referrals on private and loopback addresses allowed. */
  allowPrivate: boolean;
  /** RDAP base URL of a TLD; default: the shipped IANA bootstrap (live/rdap-bootstrap.json). */
  rdapBaseFor?: RdapBaseFor;
  /** Host name resolver for referral hosts and RDAP servers (tests); default: the system's. */
  resolve?: Resolver;
}

export type LiveProvider = WhoisProvider & {
  /** Closes the RDAP connection pool (at shutdown). */
  close(): Promise<void>;
};

const RESERVED_TLDS = new Set(['test', 'example', 'invalid', 'localhost', 'local']);
const RESERVED_DOMAINS = ['example.com', 'example.net', 'example.org'];

/** RFC 2606 / 6761 names: never asked of anyone. */
export function isReservedDomain(domain: string): boolean {
  const tld = domain.slice(domain.lastIndexOf('.') + 1);
  return RESERVED_TLDS.has(tld) || RESERVED_DOMAINS.some((d) => domain === d || domain.endsWith(`.${d}`));
}

/** Of a failed RDAP and port-43 attempt, one error naming both (the port-43 reason). */
function bothFailed(rdap: ProviderError | null, whois: unknown): ProviderError {
  if (!(whois instanceof ProviderError)) throw whois;
  if (!rdap) return whois;
  return new ProviderError('live', whois.reason, `RDAP: ${rdap.message}; WHOIS: ${whois.message}`);
}

export function createLiveProvider(options: LiveProviderOptions): LiveProvider {
  const ssrf = { allowPrivate: options.allowPrivate, resolve: options.resolve };
  const agent: Agent = guardedAgent({ ...ssrf, connectTimeoutMs: options.timeoutMs });
  const rdap = { rdapBaseFor: options.rdapBaseFor ?? shippedRdapBaseFor, dispatcher: agent, maxBytes: options.maxBytes };

  async function whois(domain: string, call: CallOptions): Promise<ProviderAnswer<WhoisRecord> | null> {
    if (isReservedDomain(domain)) return null;
    const signal = AbortSignal.any([call.signal, AbortSignal.timeout(options.timeoutMs)]);
    const fetchedAt = new Date();
    let rdapError: ProviderError | null = null;
    try {
      const record = await viaRdap(rdap, domain, signal, fetchedAt);
      if (record) return { data: record, source: 'live-rdap', fetchedAt };
    } catch (error) {
      if (!(error instanceof ProviderError)) throw error;
      rdapError = error;
    }
    let record: WhoisRecord | null;
    try {
      record = await viaPort43(options, domain, signal, fetchedAt);
    } catch (error) {
      throw bothFailed(rdapError, error);
    }
    if (record) return { data: record, source: 'live-whois', fetchedAt };
    if (rdapError) throw rdapError;
    return null; // no RDAP service and no WHOIS server for this TLD
  }

  return {
    name: 'live',
    whois,
    close: () => agent.close(),
  };
}
