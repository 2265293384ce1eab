/** The tools WhoisXML answers, one call each, its answer read into the wire shape. */
import {
  HISTORY_YEARS,
  LOOKUP_PAGE_ROWS,
  REVERSE_WHOIS_MAX_RESULTS,
  type ReverseLookupAnswer,
  type ReverseWhoisAnswer,
  type ReverseWhoisQuery,
  type SubdomainAnswer,
  type WhoisHistoryAnswer,
} from '../../common/whois-rules';
import { ProviderError, type CallOptions, type ProviderAnswer, type ReverseKind } from '../provider';
import type { WhoisXmlCall } from './api';
import { defined, int, listOf, obj, str } from './read';
import { historyRecordOf, lookupRowOf, observedAt, subdomainRecordOf, whoisRecordOf } from './records';

const SOURCE = 'whoisxml';
const MAX_HISTORY_RECORDS = 1000;
/** WhoisXML's Subdomains API answers at most this many records. */
const MAX_SUBDOMAINS = 10_000;

const answer = <T>(data: T): ProviderAnswer<T> => ({ data, source: SOURCE, fetchedAt: new Date() });

export async function whoisLookup(call: WhoisXmlCall, domain: string, { signal }: CallOptions) {
  const body = await call('whois', { domainName: domain, outputFormat: 'JSON' }, signal);
  const record = obj(body.WhoisRecord);
  if (!record) throw new ProviderError('whoisxml', 'unparseable', 'WhoisXML whois: no WhoisRecord');
  return answer(whoisRecordOf(record, domain));
}

/** The records of the last HISTORY_YEARS years, newest observed first (undated ones last). */
export async function whoisHistory(call: WhoisXmlCall, domain: string, { signal }: CallOptions) {
  const since = new Date();
  since.setUTCFullYear(since.getUTCFullYear() - HISTORY_YEARS);
  const body = await call('history', { domainName: domain, mode: 'purchase', sinceDate: since.toISOString().slice(0, 10), outputFormat: 'JSON' }, signal);
  if (!Array.isArray(body.records)) throw new ProviderError('whoisxml', 'unparseable', 'WhoisXML history: no records');
  const records = listOf(body.records, MAX_HISTORY_RECORDS, (r) => historyRecordOf(r, domain))
    .map((record, i) => ({ record, i, at: observedAt(record) }))
    .sort((a, b) => (Number.isNaN(b.at) ? -Infinity : b.at) - (Number.isNaN(a.at) ? -Infinity : a.at) || a.i - b.i)
    .map(({ record }) => record);
  return answer<WhoisHistoryAnswer>({ recordsCount: records.length, records });
}

export async function reverseWhois(call: WhoisXmlCall, query: ReverseWhoisQuery, searchAfter: string | null, { signal }: CallOptions) {
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
}

export async function reverseLookup(call: WhoisXmlCall, kind: ReverseKind, value: string, from: string | null, { signal }: CallOptions) {
  const body = await call(`reverse-${kind}`, { [kind]: value, from, outputFormat: 'JSON' }, signal);
  if (!Array.isArray(body.result)) throw new ProviderError('whoisxml', 'unparseable', `WhoisXML reverse-${kind}: no result`);
  const result = listOf(body.result, LOOKUP_PAGE_ROWS, lookupRowOf);
  return answer<ReverseLookupAnswer>({ current_page: str(body.current_page, 253) ?? from ?? '0', size: result.length, result });
}

export async function subdomains(call: WhoisXmlCall, domain: string, { signal }: CallOptions) {
  const body = await call('subdomains', { domainName: domain, outputFormat: 'JSON' }, signal);
  const result = obj(body.result);
  if (!result) throw new ProviderError('whoisxml', 'unparseable', 'WhoisXML subdomains: no result');
  const records = listOf(result.records, MAX_SUBDOMAINS, subdomainRecordOf);
  return answer<SubdomainAnswer>({ search: domain, result: { count: int(result.count) ?? records.length, records } });
}
