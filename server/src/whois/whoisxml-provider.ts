/**
 * The `whoisxml` provider (docs/whois.md "Providers"): every tool, from
 * WhoisXML API, when WHOISXML_API_KEY is set. Its answers are already the wire shapes
 * (common/whois-rules.ts), so each is checked and bounded field by field rather than
 * passed on as it came (no unknown member, no string over MAX_TEXT, lists cut).
 *
 * Endpoints. With WHOISXML_BASE_URL (a stub in tests, a
 * proxy) every API is a path under that one base, named after the API's host:
 *   WHOIS           www.whoisxmlapi.com/whoisserver/WhoisService  → {base}/whoisserver/WhoisService
 *   history         whois-history.whoisxmlapi.com/api/v1          → {base}/whois-history/api/v1
 *   reverse WHOIS   reverse-whois.whoisxmlapi.com/api/v2 (POST)   → {base}/reverse-whois/api/v2
 *   reverse IP/MX/NS reverse-{ip,mx,ns}.whoisxmlapi.com/api/v1    → {base}/reverse-{ip,mx,ns}/api/v1
 *   subdomains      subdomains.whoisxmlapi.com/api/v1             → {base}/subdomains/api/v1
 *
 * The key goes in the `apiKey` parameter (body for the POST), as WhoisXML's own clients
 * send it. Neither the key nor the query is ever in an error message (only the API's
 * name and the HTTP status or failure).
 */
import { Agent, request, type Dispatcher } from 'undici';
import {
  HISTORY_YEARS,
  LOOKUP_PAGE_ROWS,
  REVERSE_WHOIS_MAX_RESULTS,
  checkDomain,
  checkIp,
  type DomainAvailability,
  type LookupRow,
  type ReverseLookupAnswer,
  type ReverseWhoisAnswer,
  type ReverseWhoisQuery,
  type SubdomainAnswer,
  type WhoisContact,
  type WhoisDataError,
  type WhoisHistoryAnswer,
  type WhoisHistoryRecord,
  type WhoisRecord,
} from '../common/whois-rules';
import { ProviderError, type CallOptions, type ProviderAnswer, type ReverseKind, type WhoisProvider } from './provider';
import { exchangeFailure, readJsonObject, statusFailure } from './live/http-json';

export interface WhoisXmlOptions {
  apiKey: string;
  /** WHOISXML_BASE_URL: one base for every API (see above); default WhoisXML's own hosts. */
  baseUrl?: string;
  /** WHOIS_TIMEOUT_MS: one call. */
  timeoutMs: number;
  /** WHOIS_MAX_BYTES: one answer. */
  maxBytes: number;
}

export type WhoisXmlProvider = WhoisProvider & {
  /** Closes the connection pool (at shutdown). */
  close(): Promise<void>;
};

type Api = 'whois' | 'history' | 'reverse-whois' | 'reverse-ip' | 'reverse-mx' | 'reverse-ns' | 'subdomains';

const ENDPOINTS: Record<Api, { host: string; path: string }> = {
  whois: { host: 'www.whoisxmlapi.com', path: '/whoisserver/WhoisService' },
  history: { host: 'whois-history.whoisxmlapi.com', path: '/api/v1' },
  'reverse-whois': { host: 'reverse-whois.whoisxmlapi.com', path: '/api/v2' },
  'reverse-ip': { host: 'reverse-ip.whoisxmlapi.com', path: '/api/v1' },
  'reverse-mx': { host: 'reverse-mx.whoisxmlapi.com', path: '/api/v1' },
  'reverse-ns': { host: 'reverse-ns.whoisxmlapi.com', path: '/api/v1' },
  subdomains: { host: 'subdomains.whoisxmlapi.com', path: '/api/v1' },
};

/** The URL of an API: its own host, or under the base named after the host's first label. */
export function whoisXmlUrl(api: Api, baseUrl?: string): URL {
  const { host, path } = ENDPOINTS[api];
  if (!baseUrl) return new URL(`https://${host}${path}`);
  const prefix = host.startsWith('www.') ? '' : `/${host.slice(0, host.indexOf('.'))}`;
  return new URL(`${baseUrl.replace(/\/+$/, '')}${prefix}${path}`);
}

const SOURCE = 'whoisxml';
const MAX_TEXT = 1000;
const MAX_LIST = 32;
const MAX_HISTORY_RECORDS = 1000;
/** WhoisXML's Subdomains API answers at most this many records. */
const MAX_SUBDOMAINS = 10_000;

// ---------------------------------------------------------------------------
// Reading hostile JSON into the wire shapes

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj | undefined => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : undefined);
function str(v: unknown, max = MAX_TEXT): string | undefined {
  if (typeof v !== 'string') return undefined;
  const t = v.trim();
  return t === '' || t.length > max ? undefined : t;
}
function int(v: unknown): number | undefined {
  const n = typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v;
  return typeof n === 'number' && Number.isSafeInteger(n) && n >= 0 ? n : undefined;
}
function strings(v: unknown, max = MAX_LIST): string[] | undefined {
  const list = Array.isArray(v) ? v : typeof v === 'string' ? v.split(/\s+/) : [];
  const out = [...new Set(list.map((s) => str(s, 253)).filter((s): s is string => s !== undefined))].slice(0, max);
  return out.length > 0 ? out : undefined;
}
function hostNames(v: unknown): string[] | undefined {
  const out = (strings(v, MAX_LIST) ?? []).map((h) => checkDomain(h)).flatMap((c) => (c.ok ? [c.value] : []));
  return out.length > 0 ? [...new Set(out)] : undefined;
}
function ips(v: unknown): string[] | undefined {
  const out = (strings(v, MAX_LIST) ?? []).map((ip) => checkIp(ip)).flatMap((c) => (c.ok ? [c.value] : []));
  return out.length > 0 ? [...new Set(out)] : undefined;
}
function defined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
function nonEmpty<T extends object>(value: T): T | undefined {
  const out = defined(value);
  return Object.keys(out).length > 0 ? out : undefined;
}

function contact(v: unknown): WhoisContact | undefined {
  const c = obj(v);
  if (!c) return undefined;
  const countryCode = str(c.countryCode, 2);
  return nonEmpty<WhoisContact>({
    name: str(c.name),
    organization: str(c.organization),
    state: str(c.state),
    country: str(c.country),
    countryCode: countryCode && /^[a-z]{2}$/i.test(countryCode) ? countryCode.toUpperCase() : undefined,
    email: str(c.email, 254),
  });
}

const AVAILABILITY: readonly DomainAvailability[] = ['AVAILABLE', 'UNAVAILABLE', 'UNDETERMINED'];
const DATA_ERRORS: readonly WhoisDataError[] = ['MISSING_WHOIS_DATA', 'MASKED_WHOIS_DATA', 'IN_COMPLETE_DATA'];
const NORMALISED_DATE = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC$/;

/** WhoisXML's `WhoisRecord` → ours; the registry's values stand in where the top level has none. */
export function whoisRecordOf(v: unknown, domain: string): WhoisRecord {
  const r = obj(v) ?? {};
  const registry = obj(r.registryData) ?? {};
  const pick = (key: string) => str(r[key]) ?? str(registry[key]);
  const dataError = DATA_ERRORS.find((e) => e === r.dataError);
  const registrarName = pick('registrarName');
  const createdDate = pick('createdDate');
  const normalised = [r.createdDateNormalized, registry.createdDateNormalized].find((d): d is string => typeof d === 'string' && NORMALISED_DATE.test(d));
  const nsOf = (o: Obj) => obj(o.nameServers);
  const topNs = nsOf(r);
  const registryNs = nsOf(registry);
  const names = hostNames(topNs?.hostNames) ?? hostNames(registryNs?.hostNames);
  const nsIps = ips(topNs?.ips);
  const status = strings(r.status) ?? strings(registry.status);
  const availability =
    AVAILABILITY.find((a) => a === r.domainAvailability) ??
    (dataError === 'MISSING_WHOIS_DATA' ? 'AVAILABLE' : registrarName || createdDate || names ? 'UNAVAILABLE' : 'UNDETERMINED');
  const registryData = nonEmpty({
    registrarName: str(registry.registrarName),
    whoisServer: str(registry.whoisServer, 253),
    createdDate: str(registry.createdDate),
    updatedDate: str(registry.updatedDate),
    expiresDate: str(registry.expiresDate),
    status: strings(registry.status),
    nameServers: hostNames(registryNs?.hostNames) ? { hostNames: hostNames(registryNs?.hostNames)! } : undefined,
  });
  return defined<WhoisRecord>({
    domainName: domain,
    registrarName,
    contactEmail: str(r.contactEmail, 254),
    createdDate,
    createdDateNormalized: normalised,
    updatedDate: pick('updatedDate'),
    expiresDate: pick('expiresDate'),
    estimatedDomainAge: int(r.estimatedDomainAge),
    domainAvailability: availability,
    status,
    ips: ips(r.ips),
    nameServers: names ? (nsIps ? { hostNames: names, ips: nsIps } : { hostNames: names }) : undefined,
    registrant: contact(r.registrant) ?? contact(registry.registrant),
    administrativeContact: contact(r.administrativeContact) ?? contact(registry.administrativeContact),
    technicalContact: contact(r.technicalContact) ?? contact(registry.technicalContact),
    registryData,
    dataError,
  });
}

function historyRecordOf(v: unknown, domain: string): WhoisHistoryRecord | undefined {
  const r = obj(v);
  if (!r) return undefined;
  const audit = obj(r.audit);
  const auditCreated = str(audit?.createdDate, 64);
  const auditUpdated = str(audit?.updatedDate, 64);
  const name = checkDomain(str(r.domainName, 253) ?? '');
  return defined<WhoisHistoryRecord>({
    domainName: name.ok ? name.value : domain,
    registrarName: str(r.registrarName),
    whoisServer: str(r.whoisServer, 253),
    createdDateRaw: str(r.createdDateRaw),
    updatedDateRaw: str(r.updatedDateRaw),
    expiresDateRaw: str(r.expiresDateRaw),
    createdDateISO8601: str(r.createdDateISO8601, 64),
    updatedDateISO8601: str(r.updatedDateISO8601, 64),
    expiresDateISO8601: str(r.expiresDateISO8601, 64),
    audit: auditCreated && auditUpdated ? { createdDate: auditCreated, updatedDate: auditUpdated } : undefined,
    nameServers: hostNames(r.nameServers),
    status: strings(r.status),
    registrantContact: contact(r.registrantContact),
    administrativeContact: contact(r.administrativeContact),
    technicalContact: contact(r.technicalContact),
  });
}

/** When a history record was observed (its audit dates, else its update or creation), for ordering. */
function observedAt(r: WhoisHistoryRecord): number {
  for (const d of [r.audit?.updatedDate, r.audit?.createdDate, r.updatedDateISO8601, r.createdDateISO8601]) {
    const ms = d === undefined ? NaN : Date.parse(d);
    if (!Number.isNaN(ms)) return ms;
  }
  return NaN;
}

function lookupRowOf(v: unknown): LookupRow | undefined {
  const r = obj(v);
  const name = str(r?.name, 253);
  const first = int(r?.first_seen);
  const last = int(r?.last_visit);
  return name !== undefined && first !== undefined && last !== undefined ? { name: name.toLowerCase(), first_seen: first, last_visit: last } : undefined;
}

function subdomainRecordOf(v: unknown): SubdomainAnswer['result']['records'][number] | undefined {
  const r = obj(v);
  const domain = str(r?.domain, 253);
  const firstSeen = int(r?.firstSeen);
  const lastSeen = int(r?.lastSeen);
  return domain !== undefined && firstSeen !== undefined && lastSeen !== undefined ? { domain: domain.toLowerCase(), firstSeen, lastSeen } : undefined;
}

function listOf<T>(v: unknown, max: number, item: (x: unknown) => T | undefined): T[] {
  return (Array.isArray(v) ? v.slice(0, max) : []).map(item).filter((x): x is T => x !== undefined);
}

// ---------------------------------------------------------------------------

/**
 * An error in a 200 answer: `{ErrorMessage: {errorCode, msg}}` (WHOIS API) or
 * `{code, messages}` (the others). A numeric code names the failure like an HTTP status;
 * any other error (WHOIS_01, a bad parameter) is 'unparseable'.
 */
function bodyError(api: Api, body: Obj): ProviderError | null {
  const whoisError = obj(body.ErrorMessage);
  const code = whoisError ? whoisError.errorCode : body.code;
  if (!whoisError && code === undefined && body.messages === undefined) return null;
  const numeric = typeof code === 'number' || (typeof code === 'string' && /^\d{3}$/.test(code)) ? Number(code) : 0;
  const label = typeof code === 'string' || typeof code === 'number' ? String(code).slice(0, 40) : 'unknown';
  return statusFailure('whoisxml', numeric, `WhoisXML ${api}: error ${label}`) ?? new ProviderError('whoisxml', 'unparseable', `WhoisXML ${api}: error ${label}`);
}

export function createWhoisXmlProvider(options: WhoisXmlOptions): WhoisXmlProvider {
  const agent = new Agent({ connect: { timeout: options.timeoutMs } });

  async function call(api: Api, params: Record<string, string | null>, signal: AbortSignal, body?: Obj): Promise<Obj> {
    const url = whoisXmlUrl(api, options.baseUrl);
    const label = `WhoisXML ${api}`;
    const callSignal = AbortSignal.any([signal, AbortSignal.timeout(options.timeoutMs)]);
    let response: Dispatcher.ResponseData;
    try {
      if (body) {
        response = await request(url, {
          method: 'POST',
          dispatcher: agent,
          signal: callSignal,
          headers: { 'content-type': 'application/json', accept: 'application/json' },
          body: JSON.stringify({ ...body, apiKey: options.apiKey }),
        });
      } else {
        url.searchParams.set('apiKey', options.apiKey);
        for (const [key, value] of Object.entries(params)) if (value !== null) url.searchParams.set(key, value);
        response = await request(url, { method: 'GET', dispatcher: agent, signal: callSignal, headers: { accept: 'application/json' } });
      }
    } catch (error) {
      throw exchangeFailure('whoisxml', error, callSignal, label);
    }
    response.body.on('error', () => {});
    try {
      const failed = statusFailure('whoisxml', response.statusCode, label);
      if (failed) throw failed;
      if (response.statusCode !== 200) throw new ProviderError('whoisxml', 'unparseable', `${label}: HTTP ${response.statusCode}`);
      const answer = await readJsonObject('whoisxml', response, options.maxBytes, label);
      const error = bodyError(api, answer);
      if (error) throw error;
      return answer;
    } catch (error) {
      throw exchangeFailure('whoisxml', error, callSignal, label);
    } finally {
      if (!response.body.destroyed) response.body.destroy();
    }
  }

  const answer = <T>(data: T): ProviderAnswer<T> => ({ data, source: SOURCE, fetchedAt: new Date() });

  return {
    name: 'whoisxml',

    async whois(domain: string, { signal }: CallOptions) {
      const body = await call('whois', { domainName: domain, outputFormat: 'JSON' }, signal);
      const record = obj(body.WhoisRecord);
      if (!record) throw new ProviderError('whoisxml', 'unparseable', 'WhoisXML whois: no WhoisRecord');
      return answer(whoisRecordOf(record, domain));
    },

    async history(domain: string, { signal }: CallOptions) {
      const since = new Date();
      since.setUTCFullYear(since.getUTCFullYear() - HISTORY_YEARS);
      const body = await call('history', { domainName: domain, mode: 'purchase', sinceDate: since.toISOString().slice(0, 10), outputFormat: 'JSON' }, signal);
      if (!Array.isArray(body.records)) throw new ProviderError('whoisxml', 'unparseable', 'WhoisXML history: no records');
      const records = listOf(body.records, MAX_HISTORY_RECORDS, (r) => historyRecordOf(r, domain))
        .map((record, i) => ({ record, i, at: observedAt(record) }))
        .sort((a, b) => (Number.isNaN(b.at) ? -Infinity : b.at) - (Number.isNaN(a.at) ? -Infinity : a.at) || a.i - b.i)
        .map(({ record }) => record);
      return answer<WhoisHistoryAnswer>({ recordsCount: records.length, records });
    },

    async reverseWhois(query: ReverseWhoisQuery, searchAfter: string | null, { signal }: CallOptions) {
      const body = await call('reverse-whois', {}, signal, {
        searchType: query.mode,
        mode: 'purchase',
        responseFormat: 'json',
        basicSearchTerms: { include: query.include, exclude: query.exclude },
        ...(searchAfter ? { searchAfter } : {}),
      });
      const domainsList = listOf(body.domainsList, REVERSE_WHOIS_MAX_RESULTS, (d) => str(d, 253)?.toLowerCase());
      const next = str(body.nextPageSearchAfter, 200);
      return answer<ReverseWhoisAnswer>(defined({ domainsCount: int(body.domainsCount) ?? domainsList.length, domainsList, nextPageSearchAfter: next ?? null }));
    },

    async reverse(kind: ReverseKind, value: string, from: string | null, { signal }: CallOptions) {
      const body = await call(`reverse-${kind}`, { [kind]: value, from, outputFormat: 'JSON' }, signal);
      if (!Array.isArray(body.result)) throw new ProviderError('whoisxml', 'unparseable', `WhoisXML reverse-${kind}: no result`);
      const result = listOf(body.result, LOOKUP_PAGE_ROWS, lookupRowOf);
      return answer<ReverseLookupAnswer>({ current_page: str(body.current_page, 253) ?? from ?? '0', size: result.length, result });
    },

    async subdomains(domain: string, { signal }: CallOptions) {
      const body = await call('subdomains', { domainName: domain, outputFormat: 'JSON' }, signal);
      const result = obj(body.result);
      if (!result) throw new ProviderError('whoisxml', 'unparseable', 'WhoisXML subdomains: no result');
      const records = listOf(result.records, MAX_SUBDOMAINS, subdomainRecordOf);
      return answer<SubdomainAnswer>({ search: domain, result: { count: int(result.count) ?? records.length, records } });
    },

    close: () => agent.close(),
  };
}
