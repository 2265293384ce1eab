/**
 * What the Breach API v3's keyed calls read from the engine (v3-account-service.ts), bounded:
 * the wells holding an account, and the entries of an address, a domain's addresses or a
 * website. Only well names, addresses (of a verified domain) and website host names leave
 * here; no record value is answered, and nothing read is logged.
 */
import type { Entry, SearchMode } from '../../../engine/index';
import { Errors } from '../infra/errors';
import { QUERY_MAX_LENGTH, domainAddresses } from '../common/search-rules';
import { domainCovers, normalizeDomain } from '../common/monitoring-rules';
import type { SearchService } from '../search/search-service';

/** Records read for one address's stealer logs (the engine's deepest page without an operator's raise). */
export const ACCOUNT_MAX_RECORDS = 10_000;
/** Records read for one domain's addresses or one website (breacheddomain, subscribeddomains, stealer logs). */
export const DOMAIN_MAX_RECORDS = 10_000;
/** The longest account accepted (characters), as the service's addresses. */
export const ACCOUNT_MAX_CHARS = 255;

export const BAD_ACCOUNT = 'Bad request — the account does not comply with an acceptable format.';
export const BAD_DOMAIN = 'Bad request — the domain does not comply with an acceptable format.';

/** The search service's engine call (timed in the metrics, bounded by SEARCH_TIME_BUDGET_MS). */
export type RunSearch = SearchService['run'];

/** A value as one quoted exact term: `"` and `\` escaped, as the engine reads them. */
function quoted(value: string): string {
  return `"${value.replace(/["\\]/g, (c) => `\\${c}`)}"`;
}

/** The query, or 400 when the engine would refuse it for its length. */
function bounded(query: string, message: string): string {
  if ([...query].length > QUERY_MAX_LENGTH) throw Errors.badRequest(message);
  return query;
}

/**
 * The exact search for an account (as Fastify decoded the path once): trimmed; empty, longer
 * than ACCOUNT_MAX_CHARS, holding a control character, or too long for the engine's query, a
 * 400. With an `@` it is an email address, else a username (never any other field).
 */
export function accountQuery(raw: string): string {
  const account = raw.trim();
  // eslint-disable-next-line no-control-regex
  if (!account || [...account].length > ACCOUNT_MAX_CHARS || /[\u0000-\u001f\u007f-\u009f]/.test(account)) throw Errors.badRequest(BAD_ACCOUNT);
  return bounded(`${account.includes('@') ? 'email' : 'username'}:${quoted(account)}`, BAD_ACCOUNT);
}

/** An email address's exact search and its domain (lower case), or 400. */
export function emailQuery(raw: string): { query: string; domain: string } {
  const email = raw.trim();
  const at = email.lastIndexOf('@');
  const domain = at > 0 ? normalizeDomain(email.slice(at + 1)) : null;
  if (!domain) throw Errors.badRequest(BAD_ACCOUNT);
  return { query: accountQuery(email), domain };
}

/** A domain in its normalised form (lower case, ASCII), or 400. */
export function domainName(raw: string): string {
  const domain = normalizeDomain(raw);
  if (!domain) throw Errors.badRequest(BAD_DOMAIN);
  return domain;
}

/** Every address of the domain (one exact lookup of the engine's email domains). */
export const domainAddressesQuery = (domain: string) => bounded(domainAddresses(domain), BAD_DOMAIN);
/** URLs holding the domain's name (then kept only when their host is the domain or under it). */
export const websiteQuery = (domain: string) => bounded(`url:*${domain}*`, BAD_DOMAIN);

/** The first `max` records matching the query (removed and opted-out records are never read). */
export async function readEntries(run: RunSearch, query: string, mode: SearchMode, max: number): Promise<Entry[]> {
  const result = await run({ query, type: 'all', mode, page: 1, size: max, dedup: false });
  return result.entries;
}

/** The names of the wells holding records that match an account's exact search (every one: counted in the engine). */
export async function wellsHolding(wellCounts: SearchService['wellCounts'], query: string): Promise<string[]> {
  const counts = await wellCounts({ query, type: 'all', mode: 'exact', oneTerm: false });
  return counts.wells.map((w) => w.well);
}

/** The host name of a captured URL (with or without its scheme), or undefined. */
export function websiteHost(url: string): string | undefined {
  const text = url.trim();
  try {
    const parsed = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `http://${text}`);
    return normalizeDomain(parsed.hostname) ?? undefined;
  } catch {
    return undefined;
  }
}

/** The entry's website hosts that are `domain` or under it (all of them without `domain`). */
export function entryHosts(entry: Entry, domain?: string): string[] {
  const hosts = (entry.url ?? []).map(websiteHost).filter((h): h is string => h !== undefined);
  return domain === undefined ? hosts : hosts.filter((h) => domainCovers(domain, h));
}

/** The aliases (local parts, lower case) of the entry's addresses at `domain`. */
export function entryAliases(entry: Entry, domain: string): string[] {
  const suffix = `@${domain}`;
  return (entry.email ?? [])
    .map((e) => e.trim().toLowerCase())
    .filter((e) => e.endsWith(suffix) && e.length > suffix.length)
    .map((e) => e.slice(0, -suffix.length));
}

/** Adds `value` to the set of `key`. */
export function addTo<K, V>(map: Map<K, Set<V>>, key: K, value: V): void {
  const set = map.get(key);
  if (set) set.add(value);
  else map.set(key, new Set([value]));
}

/** The map as the service's JSON object: keys sorted, each key's values sorted. */
export function sortedObject(map: Map<string, Set<string>>): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const key of [...map.keys()].sort()) out[key] = [...map.get(key)!].sort();
  return out;
}
