/**
 * One interface for every source of WHOIS data (docs/whois.md "Providers").
 * A provider declares the tools it supports; the service tries the configured providers of
 * a tool in order.
 *
 * The three outcomes of a call:
 * - an answer (`ProviderAnswer`): "no data" is an answer too (a record with dataError
 *   MISSING_WHOIS_DATA, an empty list): it stands, and costs nothing (`hasData` in
 *   common/whois-rules.ts, the one charging rule of every tool);
 * - `null`: this provider has nothing to say about this query (not configured for it, a
 *   reserved TLD, a domain the local store never saw): the next provider is asked, and if
 *   none answers the last "no data" answer stands (the local store always answers);
 * - a thrown `ProviderError`: the provider failed (timeout, 5xx, 429, an answer too big or
 *   unparseable, a refused referral): the next provider is asked; if every one failed, the
 *   request's credits are refunded and the caller gets 503.
 */
import type {
  ReverseLookupAnswer,
  ReverseWhoisAnswer,
  ReverseWhoisQuery,
  SubdomainAnswer,
  WhoisHistoryAnswer,
  WhoisRecord,
} from '../common/whois-rules';

export type ProviderName = 'live' | 'local' | 'whoisxml';

export type ReverseKind = 'ip' | 'mx' | 'ns';

export interface ProviderAnswer<T> {
  data: T;
  /** Where the data came from: 'live-rdap', 'live-whois', 'local', 'whoisxml'. */
  source: string;
  fetchedAt: Date;
}

export interface CallOptions {
  /** Aborted when the request's time is up. */
  signal: AbortSignal;
}

export interface WhoisProvider {
  readonly name: ProviderName;
  whois?(domain: string, options: CallOptions): Promise<ProviderAnswer<WhoisRecord> | null>;
  /** Records of the last HISTORY_YEARS years, newest first. */
  history?(domain: string, options: CallOptions): Promise<ProviderAnswer<WhoisHistoryAnswer> | null>;
  /** `searchAfter`: the previous answer's nextPageSearchAfter. */
  reverseWhois?(query: ReverseWhoisQuery, searchAfter: string | null, options: CallOptions): Promise<ProviderAnswer<ReverseWhoisAnswer> | null>;
  /** `value`: an IP for 'ip', a host for 'mx'/'ns'; `from`: the last name of the previous page. */
  reverse?(kind: ReverseKind, value: string, from: string | null, options: CallOptions): Promise<ProviderAnswer<ReverseLookupAnswer> | null>;
  subdomains?(domain: string, options: CallOptions): Promise<ProviderAnswer<SubdomainAnswer> | null>;
}

export type ProviderFailure = 'timeout' | 'http-5xx' | 'http-429' | 'unparseable' | 'too-large' | 'refused' | 'network' | 'auth';

/** A provider failed; `reason` is logged (never the query), the user's credits come back. */
export class ProviderError extends Error {
  constructor(
    readonly provider: ProviderName,
    readonly reason: ProviderFailure,
    message: string,
  ) {
    super(message);
    this.name = 'ProviderError';
  }
}
