/**
 * The `local` provider (docs/whois.md "Providers"): every tool, answered from
 * the local store. It always answers, an empty answer when it knows nothing, except WHOIS,
 * where it answers only for a domain it holds a snapshot of.
 */
import ipaddr from 'ipaddr.js';
import type { Kysely } from 'kysely';
import {
  HISTORY_YEARS,
  LOOKUP_PAGE_ROWS,
  REVERSE_WHOIS_MAX_RESULTS,
  domainAgeDays,
  type LookupRow,
  type ReverseWhoisQuery,
  type WhoisRecord,
} from '../common/whois-rules';
import type { Database } from '../db/schema';
import { normaliseHost, reverseName, subtreeRange } from './names';
import {
  currentSnapshot,
  namesAnswering,
  namesInRange,
  reverseWhoisDomains,
  sampleSearchTexts,
  snapshotsSince,
  type SeenName,
  type TermPlan,
} from './local-repository';
import { ProviderError, type CallOptions, type ProviderAnswer, type ReverseKind, type WhoisProvider } from './provider';
import { historyRecordOf } from './snapshots';

/**
 * A subdomain scan has no cursor (WhoisXML's Subdomains API neither): it returns up to
 * this many names at once, WhoisXML's own cap, so the dashboard can page over all of them.
 */
export const SUBDOMAIN_MAX_ROWS = 10_000;
/** A history answer holds at most this many records (a domain seldom has more than a few dozen). */
export const HISTORY_MAX_RECORDS = 1000;

/**
 * An IP as the ingest stores it in `pdns.rdata`: IPv4 dotted decimal, IPv6 compressed
 * lower case (ipaddr.js `toString`, the same form as the URL parser's).
 */
export function normaliseIp(ip: string): { rrtype: 'A' | 'AAAA'; rdata: string } {
  const address = ipaddr.parse(ip.trim());
  return { rrtype: address.kind() === 'ipv4' ? 'A' : 'AAAA', rdata: address.toString() };
}

/**
 * Reverse WHOIS terms are looked up in the trigram index only when they are rare: a common
 * term ("godaddy", "united states") has trigrams in a third of the records, and the index
 * reads long lists of entries for them, which costs more than checking the term on the few
 * rows the rare terms find (docs/whois-benchmark.md has the figures). How common a term is
 * comes from a sample of current texts, taken again every hour. The sample only chooses
 * the plan: the answer is the same either way.
 */
const TERM_SAMPLE_SIZE = 2000;
const TERM_SAMPLE_TTL_MS = 3_600_000;
/** A term in more than this share of the sample is common. */
const COMMON_TERM_SHARE = 0.005;
/** pg_trgm finds a LIKE pattern's trigrams in its runs of 3 or more letters or digits; a term without one cannot use the index. */
const INDEXABLE = /[\p{L}\p{N}]{3}/u;

/** The rare include terms go to the index (the rarest one at least, when it can), the others are checked. */
export function planTerms(query: ReverseWhoisQuery, sample: readonly string[]): TermPlan {
  const share = (term: string) => (sample.length === 0 ? 0 : sample.filter((text) => text.includes(term)).length / sample.length);
  const ranked = query.include
    .filter((term) => INDEXABLE.test(term))
    .map((term) => ({ term, share: share(term) }))
    .sort((a, b) => a.share - b.share);
  const indexed = ranked.filter((r, i) => i === 0 || r.share <= COMMON_TERM_SHARE).map((r) => r.term);
  return { mode: query.mode, indexed, checked: query.include.filter((t) => !indexed.includes(t)), exclude: query.exclude };
}

const lookupRow = (seen: SeenName): LookupRow => ({
  name: reverseName(seen.nameRev),
  first_seen: seen.firstSeen,
  last_visit: seen.lastSeen,
});

/** A stored record with its age as of now (the store keeps records without it). */
function withAge(record: WhoisRecord, now: Date): WhoisRecord {
  const age = domainAgeDays(record.createdDateNormalized ?? record.createdDate, now);
  return age === null ? record : { ...record, estimatedDomainAge: age };
}

/** Store failures become provider failures, so the service asks the next provider. */
async function guarded<T>(options: CallOptions, query: () => Promise<T>): Promise<T> {
  if (options.signal.aborted) throw new ProviderError('local', 'timeout', 'local store: request time is up');
  try {
    return await query();
  } catch (error) {
    // 57014: statement timeout (or cancelled). The query text is never part of the message.
    const code = (error as { code?: unknown }).code;
    throw new ProviderError('local', code === '57014' ? 'timeout' : 'network', `local store query failed${typeof code === 'string' ? ` (${code})` : ''}`);
  }
}

export function createLocalProvider(db: Kysely<Database>): WhoisProvider {
  const answer = <T>(data: T, fetchedAt: Date = new Date()): ProviderAnswer<T> => ({ data, source: 'local', fetchedAt });

  let termSample: { texts: Promise<string[]>; takenAt: number } | null = null;
  /** The sample of current texts; a failed sample is an empty one (every term then counts as rare). */
  const currentSample = (): Promise<string[]> => {
    if (!termSample || Date.now() - termSample.takenAt > TERM_SAMPLE_TTL_MS) {
      termSample = { texts: sampleSearchTexts(db, TERM_SAMPLE_SIZE).catch(() => []), takenAt: Date.now() };
    }
    return termSample.texts;
  };

  return {
    name: 'local',

    /** The current snapshot, fetched when it was last observed; null for a domain never seen. */
    async whois(domain, options) {
      const snapshot = await guarded(options, () => currentSnapshot(db, domain));
      return snapshot ? answer(withAge(snapshot.record, new Date()), snapshot.lastObservedAt) : null;
    },

    /** Snapshots last observed within HISTORY_YEARS years, newest first. */
    async history(domain, options) {
      const since = new Date();
      since.setUTCFullYear(since.getUTCFullYear() - HISTORY_YEARS);
      const snapshots = await guarded(options, () => snapshotsSince(db, domain, since, HISTORY_MAX_RECORDS));
      const records = snapshots.map((s) => historyRecordOf(s.record, s.observedAt, s.lastObservedAt));
      return answer({ recordsCount: records.length, records });
    },

    /**
     * Up to REVERSE_WHOIS_MAX_RESULTS domains in domain order; when more match, the last one
     * is `nextPageSearchAfter`, and passing it back continues after it.
     */
    async reverseWhois(query, searchAfter, options) {
      const terms = planTerms(query, query.include.length > 1 ? await currentSample() : []);
      const found = await guarded(options, () => reverseWhoisDomains(db, terms, searchAfter, REVERSE_WHOIS_MAX_RESULTS + 1));
      const domainsList = found.slice(0, REVERSE_WHOIS_MAX_RESULTS);
      const more = found.length > REVERSE_WHOIS_MAX_RESULTS;
      return answer({ domainsCount: domainsList.length, domainsList, nextPageSearchAfter: more ? domainsList[domainsList.length - 1]! : null });
    },

    /**
     * Names whose A/AAAA record is the IP, or whose MX/NS record is the host: LOOKUP_PAGE_ROWS
     * a page in reversed-name order (the index's), `from` the last name of the previous page.
     */
    async reverse(kind: ReverseKind, value, from, options) {
      const { rrtype, rdata } = kind === 'ip' ? normaliseIp(value) : { rrtype: kind.toUpperCase(), rdata: normaliseHost(value) };
      const afterRev = from === null || from === '' ? null : reverseName(normaliseHost(from));
      const seen = await guarded(options, () => namesAnswering(db, rrtype, rdata, afterRev, LOOKUP_PAGE_ROWS));
      const result = seen.map(lookupRow);
      return answer({ current_page: from || '0', size: result.length, result });
    },

    /** Every name strictly under the domain, up to SUBDOMAIN_MAX_ROWS, in reversed-name order. */
    async subdomains(domain, options) {
      const { low, high } = subtreeRange(domain);
      const seen = await guarded(options, () => namesInRange(db, low, high, SUBDOMAIN_MAX_ROWS));
      const records = seen.map((s) => ({ domain: reverseName(s.nameRev), firstSeen: s.firstSeen, lastSeen: s.lastSeen }));
      return answer({ search: normaliseHost(domain), result: { count: records.length, records } });
    },
  };
}
