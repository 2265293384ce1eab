/**
 * What the dashboard checks before it sends a search, and the server checks again:
 * one module for both, as credentials.ts is for passwords. The query language, its
 * length limits and paging belong to the engine (engine/crates/query/src/query.rs); the limits here are
 * the same ones, so the browser can answer without a round trip, and
 * server/test/search/search-rules.test.ts feeds one table of queries to the engine, this module
 * and the server to keep them in agreement.
 */

/** The tabs of the search screen, in order, with their type values. */
export const SEARCH_TYPES = [
  { value: 'all', label: 'All' },
  { value: 'email', label: 'Email' },
  { value: 'username', label: 'Username' },
  { value: 'password', label: 'Password' },
  { value: 'hashed_password', label: 'Hashed Password' },
  { value: 'ip_address', label: 'IP Address' },
  { value: 'name', label: 'Name' },
  { value: 'address', label: 'Address' },
  { value: 'phone', label: 'Phone' },
  { value: 'vin', label: 'VIN' },
  { value: 'domain_scan', label: 'Domain Scan' },
] as const;

export type SearchType = (typeof SEARCH_TYPES)[number]['value'];

export function isSearchType(value: unknown): value is SearchType {
  return SEARCH_TYPES.some((tab) => tab.value === value);
}

/** In characters (Unicode code points), as the engine counts them. */
export const QUERY_MIN_LENGTH = 4;
export const QUERY_MAX_LENGTH = 200;
export const PHONE_MIN_LENGTH = 4;
export const PHONE_MAX_LENGTH = 15;

/** The dashboard's page size and its deepest page. */
export const DASHBOARD_PAGE_SIZE = 20;
export const DASHBOARD_MAX_PAGE = 499;

/**
 * Pages the dashboard offers for `total` results: never past DASHBOARD_MAX_PAGE, the deepest
 * page the server serves (exactly 10,000 results would otherwise offer a page 500 that the
 * server refuses), and at least one.
 */
export function dashboardPageCount(total: number): number {
  return Math.min(DASHBOARD_MAX_PAGE, Math.max(1, Math.ceil(total / DASHBOARD_PAGE_SIZE)));
}

export const MESSAGES = {
  empty: 'Empty Query',
  short: 'Query not long enough (minimum 4 characters)',
  long: 'Query Too Long',
  mixedModes: 'Wildcard and regex cannot be used together.',
  ip: 'Invalid IP Address Format',
  phone: 'Invalid Phone Format',
} as const;

// Rust's `char::is_whitespace` (Unicode White_Space), which the engine trims with; String's
// own trim() differs on U+0085 and U+FEFF.
const SPACE = '[\\u0009-\\u000D\\u0020\\u0085\\u00A0\\u1680\\u2000-\\u200A\\u2028\\u2029\\u202F\\u205F\\u3000]';
const LEADING_SPACE = new RegExp(`^${SPACE}+`);
const TRAILING_SPACE = new RegExp(`${SPACE}+$`);
const MODE_SUFFIX = new RegExp(`&(wildcard|regex)${SPACE}*$`, 'i');

export function trimQuery(query: string): string {
  return query.replace(LEADING_SPACE, '').replace(TRAILING_SPACE, '');
}

/** Characters as the engine counts them: code points, not UTF-16 units. */
export function queryLength(query: string): number {
  let n = 0;
  for (const _ of query) n++;
  return n;
}

export interface SearchInput {
  query: string;
  regex: boolean;
  wildcard: boolean;
}

/**
 * A trailing `&wildcard` or `&regex` (any case, repeated) is a toggle typed into the query:
 * it is removed before sending and turns its mode on, as the engine reads it. Asking for
 * both modes, by toggles or suffixes, is refused with `error`.
 */
export function applyModeSuffix(input: SearchInput): SearchInput & { error?: string } {
  let query = trimQuery(input.query);
  let { regex, wildcard } = input;
  for (let match = MODE_SUFFIX.exec(query); match; match = MODE_SUFFIX.exec(query)) {
    if (match[1]!.toLowerCase() === 'regex') regex = true;
    else wildcard = true;
    query = trimQuery(query.slice(0, match.index));
  }
  return regex && wildcard ? { query, regex, wildcard, error: MESSAGES.mixedModes } : { query, regex, wildcard };
}

const OCTET = '(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)';
const IPV4 = new RegExp(`^${OCTET}(?:\\.${OCTET}){3}$`);
/** With wildcard on, the last two parts of an IPv4 may each be "*": 10.1.*.*, 10.1.2.*. */
const IPV4_WILDCARD = new RegExp(`^${OCTET}\\.${OCTET}\\.(?:${OCTET}|\\*)\\.(?:${OCTET}|\\*)$`);

/** Dotted decimal without leading zeros (`010.1.1.1` is ambiguous: octal to some parsers). */
export function isIPv4(value: string): boolean {
  return IPV4.test(value);
}

/** RFC 4291 text forms: eight groups, one "::" run, and an IPv4 tail; no zone index. */
export function isIPv6(value: string): boolean {
  if (!/^[0-9a-fA-F:.]+$/.test(value) || value.length > 45) return false;
  let head = value;
  let groupsForTail = 0;
  const lastColon = value.lastIndexOf(':');
  if (value.slice(lastColon + 1).includes('.')) {
    if (!isIPv4(value.slice(lastColon + 1))) return false;
    head = value.slice(0, lastColon + 1) + '0';
    groupsForTail = 1; // an IPv4 tail fills two groups; the "0" stands for one of them
  }
  const halves = head.split('::');
  if (halves.length > 2) return false;
  const groups = (part: string) => (part === '' ? [] : part.split(':'));
  const left = groups(halves[0] ?? '');
  const right = halves.length === 2 ? groups(halves[1] ?? '') : [];
  const all = [...left, ...right];
  if (!all.every((group) => /^[0-9a-fA-F]{1,4}$/.test(group))) return false;
  const count = all.length + groupsForTail;
  return halves.length === 2 ? count <= 7 : count === 8;
}

export function isValidIpQuery(query: string, wildcard: boolean): boolean {
  const value = trimQuery(query.replace(/"/g, ''));
  return isIPv4(value) || isIPv6(value) || (wildcard && IPV4_WILDCARD.test(value));
}

export function isValidPhoneQuery(query: string): boolean {
  const length = queryLength(query);
  return length >= PHONE_MIN_LENGTH && length <= PHONE_MAX_LENGTH && /^\d/.test(query);
}

/**
 * Every message that applies to a query as it will be sent (after `applyModeSuffix`), in
 * the documented order; empty when it may be sent. The engine still has the last word on
 * syntax (fields, wildcards, regexes) when it runs the search.
 */
export function validateSearch(query: string, type: SearchType, wildcard: boolean): string[] {
  const trimmed = trimQuery(query);
  if (trimmed.length === 0) return [MESSAGES.empty];
  const messages: string[] = [];
  const length = queryLength(trimmed);
  if (length < QUERY_MIN_LENGTH) messages.push(MESSAGES.short);
  else if (length > QUERY_MAX_LENGTH) messages.push(MESSAGES.long);
  if (type === 'ip_address' && !isValidIpQuery(trimmed, wildcard)) messages.push(MESSAGES.ip);
  if (type === 'phone' && !isValidPhoneQuery(trimmed)) messages.push(MESSAGES.phone);
  return messages;
}

/** Every address of a domain, as one query: the engine answers it from its table of email domains. */
export const domainAddresses = (domain: string) => `email:*@${domain}`;
