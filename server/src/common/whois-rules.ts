/**
 * WHOIS tools: the rules the dashboard and the server share
 * (docs/whois.md), and the wire shapes of every answer. The shapes are WhoisXML API's field
 * names, so clients written against that API work unchanged.
 * Isomorphic: no Node or browser-only API.
 */
import { normalizeDomain } from './monitoring-rules';
import { isIPv4, isIPv6 } from './search-rules';

/** Tools as the dashboard names them (`POST /whois` search_type). */
export const WHOIS_TOOLS = [
  'whois',
  'whois_history',
  'reverse_whois',
  'reverse_ip',
  'reverse_mx',
  'reverse_ns',
  'subdomain_scan',
] as const;
export type WhoisTool = (typeof WHOIS_TOOLS)[number];

/** The same tools as `/v2/whois/search` names them (hyphens). */
export const V2_WHOIS_TYPES = [
  'whois',
  'whois-history',
  'reverse-whois',
  'reverse-ip',
  'reverse-mx',
  'reverse-ns',
  'subdomain-scan',
] as const;
export type V2WhoisType = (typeof V2_WHOIS_TYPES)[number];

export function toolOfV2Type(type: V2WhoisType): WhoisTool {
  return type.replace(/-/g, '_') as WhoisTool;
}
export function v2TypeOfTool(tool: WhoisTool): V2WhoisType {
  return tool.replace(/_/g, '-') as V2WhoisType;
}

/** Tab labels of the /whois screen, in order. */
export const WHOIS_TAB_LABELS: Record<WhoisTool, string> = {
  whois: 'WHOIS',
  whois_history: 'WHOIS History',
  reverse_whois: 'Reverse WHOIS',
  reverse_ip: 'Reverse IP',
  reverse_mx: 'Reverse MX',
  reverse_ns: 'Reverse NS',
  subdomain_scan: 'Subdomain Scan',
};

// ---------------------------------------------------------------------------
// Costs and limits

export const HISTORY_COST = 25;
/** Credits one request of a tool takes. */
export function whoisCost(tool: WhoisTool): number {
  return tool === 'whois_history' ? HISTORY_COST : 1;
}
/** History covers this many years back from today. */
export const HISTORY_YEARS = 10;
/** Reverse WHOIS: terms per side, and the dashboard's page. */
export const MAX_REVERSE_TERMS = 4;
export const REVERSE_WHOIS_PAGE_SIZE = 20;
/** Reverse WHOIS answers at most this many domains (WhoisXML's cap). */
export const REVERSE_WHOIS_MAX_RESULTS = 10_000;
/** Reverse IP/MX/NS and subdomain scans: rows one request returns (WhoisXML's page). */
export const LOOKUP_PAGE_ROWS = 300;
/** The dashboard's table pages over those rows. */
export const LOOKUP_PAGE_SIZES = [25, 50, 100] as const;
export const LOOKUP_DEFAULT_PAGE_SIZE = 50;
/** A domain name or host is at most this long (RFC 1035); a term at most this. */
export const MAX_DOMAIN_LENGTH = 253;
export const MAX_TERM_LENGTH = 100;
/** 'Additional WHOIS Credits Required' stays this long. */
export const CREDITS_TOAST_MS = 3300;

// ---------------------------------------------------------------------------
// Messages

export const WHOIS_MESSAGES = {
  emptyQuery: 'Empty Query',
  invalidDomain: 'Invalid domain',
  invalidIp: 'Invalid IP address',
  emptyReverseWhois: "Can't run empty query",
  tooManyTerms: `At most ${MAX_REVERSE_TERMS} include and ${MAX_REVERSE_TERMS} exclude terms`,
  termTooLong: `A term is at most ${MAX_TERM_LENGTH} characters`,
  invalidMode: 'Mode must be current or historic',
  emptyLookup: "can't search empty query",
  creditsRequired: 'Additional WHOIS Credits Required',
  noResults: 'No results found.',
  unavailable: 'WHOIS data is unavailable right now; no credits were taken. Try again later.',
  invalidSearchType: 'search_type must be one of whois, whois-history, reverse-whois, reverse-ip, reverse-mx, reverse-ns, subdomain-scan',
} as const;

// ---------------------------------------------------------------------------
// Validation. Each returns the normalised value or a message.

export type Checked<T> = { ok: true; value: T } | { ok: false; message: string };

const TLD = /^(?:[a-z]{2,63}|xn--[a-z0-9-]{1,59})$/;

/**
 * A domain name (labels by pattern, a top-level domain of 2 to 63 letters):
 * monitoring's domain rule (lower case, final dot dropped, IDN to punycode, labels by
 * pattern) plus the WHOIS rule on the top-level domain.
 */
export function checkDomain(input: string, emptyMessage: string = WHOIS_MESSAGES.emptyQuery): Checked<string> {
  if (input.trim().replace(/\.$/, '') === '') return { ok: false, message: emptyMessage };
  const domain = normalizeDomain(input);
  if (!domain || !TLD.test(domain.slice(domain.lastIndexOf('.') + 1))) return { ok: false, message: WHOIS_MESSAGES.invalidDomain };
  return { ok: true, value: domain };
}

/** An IPv4 or IPv6 address (search's rules), IPv6 in the URL parser's canonical form. */
export function checkIp(input: string): Checked<string> {
  const trimmed = input.trim();
  if (trimmed === '') return { ok: false, message: WHOIS_MESSAGES.emptyLookup };
  if (isIPv4(trimmed)) return { ok: true, value: trimmed };
  if (!isIPv6(trimmed)) return { ok: false, message: WHOIS_MESSAGES.invalidIp };
  return { ok: true, value: new URL(`http://[${trimmed}]/`).hostname.slice(1, -1) };
}

export type ReverseWhoisMode = 'current' | 'historic';
export interface ReverseWhoisQuery {
  mode: ReverseWhoisMode;
  include: string[];
  exclude: string[];
}

/** Terms of one side: trimmed, lower-cased, empty ones dropped, duplicates once. */
export function normaliseTerms(terms: readonly string[]): string[] {
  return [...new Set(terms.map((t) => t.trim().toLowerCase()).filter((t) => t !== ''))];
}

/** Reverse WHOIS terms: at least one, at most 4 a side. */
export function checkReverseWhois(query: ReverseWhoisQuery): Checked<ReverseWhoisQuery> {
  if (query.mode !== 'current' && query.mode !== 'historic') return { ok: false, message: WHOIS_MESSAGES.invalidMode };
  const include = normaliseTerms(query.include);
  const exclude = normaliseTerms(query.exclude);
  if (include.length === 0 && exclude.length === 0) return { ok: false, message: WHOIS_MESSAGES.emptyReverseWhois };
  if (include.length > MAX_REVERSE_TERMS || exclude.length > MAX_REVERSE_TERMS) return { ok: false, message: WHOIS_MESSAGES.tooManyTerms };
  if ([...include, ...exclude].some((t) => t.length > MAX_TERM_LENGTH)) return { ok: false, message: WHOIS_MESSAGES.termTooLong };
  return { ok: true, value: { mode: query.mode, include, exclude } };
}

/** Comma-separated terms as typed in the dashboard. */
export function splitTerms(text: string): string[] {
  return text.split(',');
}

/**
 * The dashboard's reverse WHOIS query form `mode:[include terms]:[exclude terms]`,
 * terms comma-separated. A colon inside a term is not possible in this form.
 */
export function formatReverseWhoisQuery(query: ReverseWhoisQuery): string {
  return `${query.mode}:${query.include.join(',')}:${query.exclude.join(',')}`;
}
export function parseReverseWhoisQuery(text: string): Checked<ReverseWhoisQuery> {
  const parts = text.split(':');
  if (parts.length !== 3) return { ok: false, message: WHOIS_MESSAGES.emptyReverseWhois };
  return checkReverseWhois({ mode: parts[0] as ReverseWhoisMode, include: splitTerms(parts[1]!), exclude: splitTerms(parts[2]!) });
}

/** The query of one tool, checked: a domain, a host, an IP, or reverse WHOIS terms. */
export type WhoisQuery =
  | { tool: 'whois' | 'whois_history' | 'subdomain_scan'; domain: string }
  | { tool: 'reverse_ip'; ip: string }
  | { tool: 'reverse_mx' | 'reverse_ns'; host: string }
  | { tool: 'reverse_whois'; terms: ReverseWhoisQuery };

/** Checks the dashboard's query text for a tool (the same rules /v2 applies to its fields). */
export function checkWhoisQuery(tool: WhoisTool, text: string): Checked<WhoisQuery> {
  switch (tool) {
    case 'whois':
    case 'whois_history': {
      const domain = checkDomain(text);
      return domain.ok ? { ok: true, value: { tool, domain: domain.value } } : domain;
    }
    case 'subdomain_scan': {
      const domain = checkDomain(text, WHOIS_MESSAGES.emptyLookup);
      return domain.ok ? { ok: true, value: { tool, domain: domain.value } } : domain;
    }
    case 'reverse_ip': {
      const ip = checkIp(text);
      return ip.ok ? { ok: true, value: { tool, ip: ip.value } } : ip;
    }
    case 'reverse_mx':
    case 'reverse_ns': {
      const host = checkDomain(text, WHOIS_MESSAGES.emptyLookup);
      return host.ok ? { ok: true, value: { tool, host: host.value } } : host;
    }
    case 'reverse_whois': {
      const terms = parseReverseWhoisQuery(text);
      return terms.ok ? { ok: true, value: { tool, terms: terms.value } } : terms;
    }
  }
}

/** Whole days from a creation date to now (domain age in days). */
export function domainAgeDays(createdDate: string | null | undefined, now: Date = new Date()): number | null {
  if (!createdDate) return null;
  const created = Date.parse(createdDate);
  if (Number.isNaN(created)) return null;
  return Math.max(0, Math.floor((now.getTime() - created) / 86_400_000));
}

// ---------------------------------------------------------------------------
// Wire shapes (WhoisXML API's, see docs/whois.md). Absent values are omitted or
// null, never invented.

export interface WhoisContact {
  name?: string;
  organization?: string;
  state?: string;
  country?: string;
  countryCode?: string;
  email?: string;
}

export type DomainAvailability = 'AVAILABLE' | 'UNAVAILABLE' | 'UNDETERMINED';
/**
 * MISSING_WHOIS_DATA: no WHOIS record (domainAvailability says why: AVAILABLE, a registry
 * answered that the domain is not registered; UNDETERMINED, no source knows it;
 * UNAVAILABLE, registered without published WHOIS data); MASKED_WHOIS_DATA: redacted;
 * IN_COMPLETE_DATA: partial.
 */
export type WhoisDataError = 'MISSING_WHOIS_DATA' | 'MASKED_WHOIS_DATA' | 'IN_COMPLETE_DATA';

/**
 * What the dashboard says of a WHOIS record without data (MISSING_WHOIS_DATA), by its
 * availability: not registered (a registry said so), unknown to every source, or
 * registered without published WHOIS data.
 */
export const NO_RECORD_TEXT: Record<DomainAvailability, string> = {
  AVAILABLE: 'This domain is not registered: its registry holds no record of it.',
  UNDETERMINED: 'No WHOIS source knows this domain: it may not be registered.',
  UNAVAILABLE: 'This domain is registered, but no WHOIS data is published for it.',
};

/** Said with every answer without data (`hasData`): its credits were given back. */
export const NO_CHARGE_TEXT = 'No credit was taken.';

/** Text the dashboard shows for the dataError of a record that has data. */
export const DATA_ERROR_TEXT: Record<Exclude<WhoisDataError, 'MISSING_WHOIS_DATA'>, string> = {
  MASKED_WHOIS_DATA: 'The registry or registrar redacts the contact data of this domain.',
  IN_COMPLETE_DATA: 'The WHOIS data of this domain is incomplete.',
};

/** WHOIS record. Dates as the source gave them; `createdDateNormalized` is "YYYY-MM-DD HH:mm:ss UTC". */
export interface WhoisRecord {
  domainName: string;
  registrarName?: string;
  contactEmail?: string;
  createdDate?: string;
  createdDateNormalized?: string;
  updatedDate?: string;
  expiresDate?: string;
  /** Whole days since createdDate when the answer was made. */
  estimatedDomainAge?: number;
  domainAvailability: DomainAvailability;
  status?: string[];
  ips?: string[];
  nameServers?: { hostNames: string[]; ips?: string[] };
  registrant?: WhoisContact;
  administrativeContact?: WhoisContact;
  technicalContact?: WhoisContact;
  registryData?: {
    registrarName?: string;
    whoisServer?: string;
    createdDate?: string;
    updatedDate?: string;
    expiresDate?: string;
    status?: string[];
    nameServers?: { hostNames: string[] };
  };
  dataError?: WhoisDataError;
}

/** WHOIS history record (WhoisXML History API). */
export interface WhoisHistoryRecord {
  domainName: string;
  registrarName?: string;
  whoisServer?: string;
  createdDateRaw?: string;
  updatedDateRaw?: string;
  expiresDateRaw?: string;
  createdDateISO8601?: string;
  updatedDateISO8601?: string;
  expiresDateISO8601?: string;
  /** When this record was observed (ISO 8601). */
  audit?: { createdDate: string; updatedDate: string };
  nameServers?: string[];
  status?: string[];
  registrantContact?: WhoisContact;
  administrativeContact?: WhoisContact;
  technicalContact?: WhoisContact;
}
export interface WhoisHistoryAnswer {
  recordsCount: number;
  records: WhoisHistoryRecord[];
}

/** Reverse WHOIS (WhoisXML Reverse WHOIS v2): every matching domain, at most 10,000. */
export interface ReverseWhoisAnswer {
  domainsCount: number;
  domainsList: string[];
  /** Present when more than REVERSE_WHOIS_MAX_RESULTS match: pass it as search_after. */
  nextPageSearchAfter?: string | null;
}

/** Shared lookup row: epoch seconds. */
export interface LookupRow {
  name: string;
  first_seen: number;
  last_visit: number;
}
/** Reverse IP/MX/NS (WhoisXML): a page of LOOKUP_PAGE_ROWS in reversed-name order (a domain's names together); `from` = the last name for the next. */
export interface ReverseLookupAnswer {
  current_page: string;
  size: number;
  result: LookupRow[];
}
/** Subdomain scan (WhoisXML Subdomains API): rows shown as name, first_seen, last_visit. */
export interface SubdomainAnswer {
  search: string;
  result: { count: number; records: { domain: string; firstSeen: number; lastSeen: number }[] };
}

export interface WhoisAnswerOf {
  whois: WhoisRecord;
  whois_history: WhoisHistoryAnswer;
  reverse_whois: ReverseWhoisAnswer;
  reverse_ip: ReverseLookupAnswer;
  reverse_mx: ReverseLookupAnswer;
  reverse_ns: ReverseLookupAnswer;
  subdomain_scan: SubdomainAnswer;
}
export type WhoisAnswer = WhoisAnswerOf[WhoisTool];

/** `POST /whois` and `POST /v2/whois/search` answer: the tool's data, where it came from, the balance after. */
export interface WhoisResponse<T extends WhoisTool = WhoisTool> {
  search_type: T;
  data: WhoisAnswerOf[T];
  /** live-rdap, live-whois, local, whoisxml, or none (no provider knew the domain); a cached answer keeps its source and fetched_at. */
  source: string;
  fetched_at: string;
  remaining_credits: number;
}

/** A WHOIS record as `/v2` answers it: WhoisXML's own form, where `status` is one
 * space-separated string (API clients decode it into a string field). */
export type V2WhoisRecord = Omit<WhoisRecord, 'status' | 'registryData'> & {
  status?: string;
  registryData?: Omit<NonNullable<WhoisRecord['registryData']>, 'status'> & { status?: string };
};

/**
 * `/v2/whois/search`'s `data`: a WHOIS record nests under `WhoisRecord`, as WhoisXML's API
 * and the clients written for the anchor's v2 API read it (`data.WhoisRecord.domainName`);
 * the other tools' answers are already in their WhoisXML shapes. The dashboard's `/whois`
 * keeps the flat record. See docs/api-compatibility.md.
 */
export function v2WhoisData(tool: WhoisTool, data: WhoisAnswer): unknown {
  if (tool !== 'whois') return data;
  const { status, registryData, ...record } = data as WhoisRecord;
  const joined = (list: string[] | undefined) => (list && list.length > 0 ? { status: list.join(' ') } : {});
  let registry: V2WhoisRecord['registryData'];
  if (registryData) {
    const { status: registryStatus, ...rest } = registryData;
    registry = { ...rest, ...joined(registryStatus) };
  }
  const v2: V2WhoisRecord = { ...record, ...joined(status), ...(registry ? { registryData: registry } : {}) };
  return { WhoisRecord: v2 };
}

/** Rows of a lookup or a subdomain scan, in the shared row shape. */
export function lookupRows(tool: WhoisTool, data: WhoisAnswer): LookupRow[] {
  if (tool === 'subdomain_scan') {
    return (data as SubdomainAnswer).result.records.map((r) => ({ name: r.domain, first_seen: r.firstSeen, last_visit: r.lastSeen }));
  }
  return (data as ReverseLookupAnswer).result;
}

/**
 * Whether an answer holds data: the one charging rule of every tool, on the dashboard and
 * /v2 alike (docs/whois.md "Credits"): an answer without data costs nothing. Without data
 * is a WHOIS record with MISSING_WHOIS_DATA (whatever its availability), or an empty list
 * of any other tool; a redacted or incomplete record has data.
 */
export function hasData(tool: WhoisTool, data: WhoisAnswer): boolean {
  switch (tool) {
    case 'whois':
      return (data as WhoisRecord).dataError !== 'MISSING_WHOIS_DATA';
    case 'whois_history':
      return (data as WhoisHistoryAnswer).records.length > 0;
    case 'reverse_whois':
      return (data as ReverseWhoisAnswer).domainsList.length > 0;
    default:
      return lookupRows(tool, data).length > 0;
  }
}
