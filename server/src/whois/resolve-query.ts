/**
 * Where a WHOIS answer comes from: the cache, then the tool's providers in the configured
 * order. A fetched answer is cached (per tool, for how long docs/whois.md "Store" says) and a
 * fetched WHOIS record is kept in history.
 */
import type { Kysely } from 'kysely';
import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../db/schema';
import type { WhoisAnswer, WhoisQuery, WhoisRecord, WhoisTool } from '../common/whois-rules';
import { ProviderError, type CallOptions, type ProviderAnswer, type ProviderName, type WhoisProvider } from './provider';
import { readCache, writeCache } from './whois-repository';
import { recordSnapshot } from './snapshots';

/** Answers of the live and WhoisXML providers are kept this long (docs/whois.md "Store"). */
const CACHE_TTL_SECONDS = { record: 24 * 3600, noData: 3600, other: 7 * 24 * 3600 };

export interface WhoisServiceOptions {
  db: Kysely<Database>;
  /** The providers that exist in this deployment (whoisxml only with a key). */
  providers: Partial<Record<ProviderName, WhoisProvider>>;
  /** Order for WHOIS lookups and for every other tool (WHOIS_LOOKUP_PROVIDERS, WHOIS_DATA_PROVIDERS). */
  lookupOrder: readonly ProviderName[];
  dataOrder: readonly ProviderName[];
  /** The time one request may spend on providers in all. */
  timeoutMs: number;
  log: FastifyBaseLogger;
}

/** Cursors of the paged tools: reverse WHOIS `search_after`, reverse lookups `from`. */
export interface WhoisCursor {
  searchAfter?: string | null;
  from?: string | null;
}

/** The cache key of a query: everything that changes the answer, nothing of the user. */
function cacheKey(query: WhoisQuery, cursor: WhoisCursor): string {
  switch (query.tool) {
    case 'whois':
    case 'whois_history':
    case 'subdomain_scan':
      return query.domain;
    case 'reverse_ip':
      return `${query.ip}|${cursor.from ?? ''}`;
    case 'reverse_mx':
    case 'reverse_ns':
      return `${query.host}|${cursor.from ?? ''}`;
    case 'reverse_whois':
      return JSON.stringify([query.terms.mode, [...query.terms.include].sort(), [...query.terms.exclude].sort(), cursor.searchAfter ?? '']);
  }
}

function ttlOf(tool: WhoisTool, data: WhoisAnswer): number {
  if (tool !== 'whois') return CACHE_TTL_SECONDS.other;
  return (data as WhoisRecord).dataError === 'MISSING_WHOIS_DATA' ? CACHE_TTL_SECONDS.noData : CACHE_TTL_SECONDS.record;
}

/** Asks one provider for one query; `undefined` when it does not offer the tool. */
function ask(provider: WhoisProvider, query: WhoisQuery, cursor: WhoisCursor, options: CallOptions): Promise<ProviderAnswer<WhoisAnswer> | null> | undefined {
  switch (query.tool) {
    case 'whois':
      return provider.whois?.(query.domain, options);
    case 'whois_history':
      return provider.history?.(query.domain, options);
    case 'subdomain_scan':
      return provider.subdomains?.(query.domain, options);
    case 'reverse_whois':
      return provider.reverseWhois?.(query.terms, cursor.searchAfter ?? null, options);
    case 'reverse_ip':
      return provider.reverse?.('ip', query.ip, cursor.from ?? null, options);
    case 'reverse_mx':
      return provider.reverse?.('mx', query.host, cursor.from ?? null, options);
    case 'reverse_ns':
      return provider.reverse?.('ns', query.host, cursor.from ?? null, options);
  }
}

/**
 * What a WHOIS lookup answers when no provider knows the domain: "no data", with its
 * availability undetermined (nobody said it is not registered). A registry's own "not
 * found" is another answer: AVAILABLE. Neither is charged (`hasData`).
 */
function noDataRecord(domain: string): WhoisRecord {
  return { domainName: domain, domainAvailability: 'UNDETERMINED', dataError: 'MISSING_WHOIS_DATA' };
}

function providersFor(options: WhoisServiceOptions, tool: WhoisTool): WhoisProvider[] {
  const order = tool === 'whois' ? options.lookupOrder : options.dataOrder;
  return order.map((name) => options.providers[name]).filter((p): p is WhoisProvider => p !== undefined);
}

/** Cache, then providers in order. `undefined`: every provider that could answer failed. */
export async function resolveQuery(options: WhoisServiceOptions, query: WhoisQuery, cursor: WhoisCursor): Promise<ProviderAnswer<WhoisAnswer> | undefined> {
  const { db, log } = options;
  const key = cacheKey(query, cursor);
  const cached = await readCache(db, query.tool, key);
  if (cached) return { data: cached.answer as WhoisAnswer, source: cached.source, fetchedAt: cached.fetchedAt };
  const signal = AbortSignal.timeout(options.timeoutMs);
  let failed = false;
  for (const provider of providersFor(options, query.tool)) {
    if (signal.aborted) break;
    let answer: ProviderAnswer<WhoisAnswer> | null | undefined;
    try {
      answer = await ask(provider, query, cursor, { signal });
    } catch (error) {
      failed = true;
      // The reason and the provider, never the query.
      const reason = error instanceof ProviderError ? error.reason : 'error';
      log.warn({ provider: provider.name, tool: query.tool, reason }, 'WHOIS provider failed');
      if (!(error instanceof ProviderError)) log.error({ err: { message: (error as Error).message }, provider: provider.name }, 'WHOIS provider threw');
      continue;
    }
    if (!answer) continue;
    if (provider.name !== 'local') await keep(options, query, key, answer);
    return answer;
  }
  if (failed || signal.aborted) return undefined;
  // Nobody knew the domain (only WHOIS lookups may end here: the local store answers the rest).
  if (query.tool === 'whois') return { data: noDataRecord(query.domain), source: 'none', fetchedAt: new Date() };
  return undefined;
}

/** A fetched answer is cached; a fetched WHOIS record is kept in history (reverse WHOIS finds it later). */
async function keep(options: Pick<WhoisServiceOptions, 'db' | 'log'>, query: WhoisQuery, key: string, answer: ProviderAnswer<WhoisAnswer>): Promise<void> {
  try {
    await writeCache(options.db, query.tool, key, { answer: answer.data, source: answer.source, fetchedAt: answer.fetchedAt }, ttlOf(query.tool, answer.data));
    const record = answer.data as WhoisRecord;
    if (query.tool === 'whois' && !record.dataError) await recordSnapshot(options.db, record, answer.source, answer.fetchedAt);
  } catch (error) {
    // The user has the answer; keeping it is best effort.
    options.log.warn({ err: { message: (error as Error).message }, tool: query.tool }, 'WHOIS answer not kept');
  }
}
