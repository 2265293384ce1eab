/**
 * Queries of the local WHOIS store (migration 0006): snapshots, passive DNS, subdomains.
 * Every query is one index range or one trigram index scan, and every one is bounded
 * (docs/whois-benchmark.md has the plans' figures on 10 M passive DNS rows and
 * 1 M snapshots).
 */
import { sql, type Kysely } from 'kysely';
import type { ReverseWhoisQuery, WhoisRecord } from '../common/whois-rules';
import type { Database } from '../db/schema';

export interface StoredSnapshot {
  record: WhoisRecord;
  observedAt: Date;
  lastObservedAt: Date;
}

/** The current snapshot of a domain, or null when the store never saw it. */
export async function currentSnapshot(db: Kysely<Database>, domain: string): Promise<StoredSnapshot | null> {
  const row = await db
    .selectFrom('whois_snapshots')
    .select(['record', 'observed_at', 'last_observed_at'])
    .where('domain', '=', domain)
    .where(sql<boolean>`is_current`)
    .executeTakeFirst();
  return row ? { record: row.record as WhoisRecord, observedAt: row.observed_at, lastObservedAt: row.last_observed_at } : null;
}

/** Snapshots of a domain last observed at or after `since`, newest first, at most `limit`. */
export async function snapshotsSince(db: Kysely<Database>, domain: string, since: Date, limit: number): Promise<StoredSnapshot[]> {
  const rows = await db
    .selectFrom('whois_snapshots')
    .select(['record', 'observed_at', 'last_observed_at'])
    .where('domain', '=', domain)
    .where('last_observed_at', '>=', since)
    .orderBy('last_observed_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ record: r.record as WhoisRecord, observedAt: r.observed_at, lastObservedAt: r.last_observed_at }));
}

/** A LIKE pattern matching `term` anywhere, its `%`, `_` and `\` taken literally. */
export function containsPattern(term: string): string {
  return `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** Reverse WHOIS terms, the include terms split by how they are looked for. */
export interface TermPlan {
  mode: ReverseWhoisQuery['mode'];
  /** Include terms the trigram index looks up (at least one, unless there are none). */
  indexed: string[];
  /** Include terms checked on the rows the index found (common ones: looking them up costs more than checking). */
  checked: string[];
  exclude: string[];
}

/**
 * Domains whose snapshot text holds every include term and none of the exclude terms
 * (terms lower case, as checkReverseWhois leaves them; `search_text` is lower case), in
 * domain order after `after`, at most `limit`. `current` looks at current snapshots only
 * (the partial trigram index); `historic` at every snapshot, a domain once when any of its
 * snapshots matches. The `indexed` terms are the trigram index's conditions; `checked` and
 * exclude terms are checked on the rows it finds (`search_text || ''` keeps a checked term
 * out of the index condition), or, with no indexed term, on rows read in domain order
 * until `limit` are found.
 */
export async function reverseWhoisDomains(db: Kysely<Database>, terms: TermPlan, after: string | null, limit: number): Promise<string[]> {
  let select = db.selectFrom('whois_snapshots').select('domain');
  if (terms.mode === 'current') select = select.where(sql<boolean>`is_current`);
  for (const term of terms.indexed) select = select.where('search_text', 'like', containsPattern(term));
  for (const term of terms.checked) select = select.where(sql<boolean>`(search_text || '') like ${containsPattern(term)}`);
  for (const term of terms.exclude) select = select.where('search_text', 'not like', containsPattern(term));
  if (after !== null) select = select.where('domain', '>', after);
  if (terms.mode === 'historic') select = select.distinct();
  const rows = await select.orderBy('domain').limit(limit).execute();
  return rows.map((r) => r.domain);
}

/**
 * About `size` texts of current snapshots, read from random pages (TABLESAMPLE SYSTEM):
 * what the provider estimates how common a reverse WHOIS term is from.
 */
export async function sampleSearchTexts(db: Kysely<Database>, size: number): Promise<string[]> {
  const { rows: stats } = await sql<{ rows: number }>`select greatest(reltuples, 0)::float8 as rows from pg_class where oid = 'whois_snapshots'::regclass`.execute(db);
  const percent = Math.min(100, (100 * 2 * size) / Math.max(1, stats[0]?.rows ?? 0));
  const { rows } = await sql<{ search_text: string }>`
    select search_text from whois_snapshots tablesample system (${sql.lit(percent)}) where is_current limit ${size}`.execute(db);
  return rows.map((r) => r.search_text);
}

export interface SeenName {
  /** Reversed by label, as stored. */
  nameRev: string;
  /** Epoch seconds (computed by PostgreSQL: parsing 10,000 timestamps in Node costs more than the scan). */
  firstSeen: number;
  lastSeen: number;
}

const firstSeenSeconds = sql<number>`floor(extract(epoch from first_seen))::int8`.as('first_seen');
const lastSeenSeconds = sql<number>`floor(extract(epoch from last_seen))::int8`.as('last_seen');

/**
 * Owner names of passive DNS records of type `rrtype` whose answer is `rdata`, in
 * reversed-name order after `afterRev`, at most `limit`: one range of the primary key
 * (rrtype, rdata, rrname_rev), so a name occurs once (migration 0007).
 */
export async function namesAnswering(
  db: Kysely<Database>,
  rrtype: string,
  rdata: string,
  afterRev: string | null,
  limit: number,
): Promise<SeenName[]> {
  let select = db
    .selectFrom('pdns')
    .select(['rrname_rev', firstSeenSeconds, lastSeenSeconds])
    .where('rrtype', '=', rrtype)
    .where('rdata', '=', rdata);
  if (afterRev !== null) select = select.where('rrname_rev', '>', afterRev);
  const rows = await select.orderBy('rrname_rev').limit(limit).execute();
  return rows.map((r) => ({ nameRev: r.rrname_rev, firstSeen: r.first_seen, lastSeen: r.last_seen }));
}

/** Names in the reversed key range `[low, high)` (names.ts subtreeRange), in key order, at most `limit`. */
export async function namesInRange(db: Kysely<Database>, low: string, high: string, limit: number): Promise<SeenName[]> {
  const rows = await db
    .selectFrom('subdomains')
    .select(['name_rev', firstSeenSeconds, lastSeenSeconds])
    .where('name_rev', '>=', low)
    .where('name_rev', '<', high)
    .orderBy('name_rev')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ nameRev: r.name_rev, firstSeen: r.first_seen, lastSeen: r.last_seen }));
}
