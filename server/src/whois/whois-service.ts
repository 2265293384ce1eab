/**
 * The WHOIS tools (docs/whois.md): a checked query, its credits held, the
 * cache, then the tool's providers in the configured order; the credits are captured when
 * one answers with data, and refunded when the answer has none or every provider failed.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import type { FastifyBaseLogger } from 'fastify';
import { AppError, Errors } from '../infra/errors';
import {
  WHOIS_MESSAGES,
  hasData,
  whoisCost,
  type WhoisAnswer,
  type WhoisQuery,
  type WhoisRecord,
  type WhoisResponse,
  type WhoisTool,
} from '../common/whois-rules';
import { ProviderError, type CallOptions, type ProviderAnswer, type ProviderName, type WhoisProvider } from './provider';
import { captureHold, purgeOld, readCache, refundHold, refundStaleHolds, takeHold, whoisBalance, writeCache } from './whois-repository';
import { recordSnapshot } from './snapshots';

/** Answers of the live and WhoisXML providers are kept this long (docs/whois.md "Store"). */
const CACHE_TTL_SECONDS = { record: 24 * 3600, noData: 3600, other: 7 * 24 * 3600 };
/** A hold still open after this long belongs to a request that died: refunded. */
export const STALE_HOLD_MINUTES = 10;
const SETTLED_HOLD_DAYS = 90;

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

export type WhoisService = ReturnType<typeof createWhoisService>;

export function parseProviderOrder(setting: string): ProviderName[] {
  return [...new Set(setting.split(',').map((name) => name.trim()))] as ProviderName[];
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

export function createWhoisService(options: WhoisServiceOptions) {
  const { db, log } = options;

  function providersFor(tool: WhoisTool): WhoisProvider[] {
    const order = tool === 'whois' ? options.lookupOrder : options.dataOrder;
    return order.map((name) => options.providers[name]).filter((p): p is WhoisProvider => p !== undefined);
  }

  /** Cache, then providers in order. `undefined`: every provider that could answer failed. */
  async function resolve(query: WhoisQuery, cursor: WhoisCursor): Promise<ProviderAnswer<WhoisAnswer> | undefined> {
    const key = cacheKey(query, cursor);
    const cached = await readCache(db, query.tool, key);
    if (cached) return { data: cached.answer as WhoisAnswer, source: cached.source, fetchedAt: cached.fetchedAt };
    const signal = AbortSignal.timeout(options.timeoutMs);
    let failed = false;
    for (const provider of providersFor(query.tool)) {
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
      if (provider.name !== 'local') await keep(query, key, answer);
      return answer;
    }
    if (failed || signal.aborted) return undefined;
    // Nobody knew the domain (only WHOIS lookups may end here: the local store answers the rest).
    if (query.tool === 'whois') return { data: noDataRecord(query.domain), source: 'none', fetchedAt: new Date() };
    return undefined;
  }

  /** A fetched answer is cached; a fetched WHOIS record is kept in history (reverse WHOIS finds it later). */
  async function keep(query: WhoisQuery, key: string, answer: ProviderAnswer<WhoisAnswer>): Promise<void> {
    try {
      await writeCache(db, query.tool, key, { answer: answer.data, source: answer.source, fetchedAt: answer.fetchedAt }, ttlOf(query.tool, answer.data));
      const record = answer.data as WhoisRecord;
      if (query.tool === 'whois' && !record.dataError) await recordSnapshot(db, record, answer.source, answer.fetchedAt);
    } catch (error) {
      // The user has the answer; keeping it is best effort.
      log.warn({ err: { message: (error as Error).message }, tool: query.tool }, 'WHOIS answer not kept');
    }
  }

  return {
    /**
     * Runs one checked query for a user: 403 without enough credits (history needs 25),
     * 503 (credits refunded) when every provider failed. An answer without data (issue 42:
     * one rule for every tool, docs/whois.md "Credits") gives the credits back.
     */
    async run<T extends WhoisTool>(userId: string, query: WhoisQuery & { tool: T }, cursor: WhoisCursor = {}): Promise<Omit<WhoisResponse<T>, 'search_type'>> {
      const cost = whoisCost(query.tool);
      const hold = await takeHold(db, userId, query.tool, cost);
      if (!hold) throw new AppError(403, 'WHOIS_CREDITS_REQUIRED', WHOIS_MESSAGES.creditsRequired);
      let answer: ProviderAnswer<WhoisAnswer> | undefined;
      try {
        answer = await resolve(query, cursor);
      } catch (error) {
        await refundHold(db, hold.id);
        throw error;
      }
      if (!answer) {
        await refundHold(db, hold.id);
        throw new AppError(503, 'WHOIS_UNAVAILABLE', WHOIS_MESSAGES.unavailable);
      }
      let balance = hold.balance;
      if (hasData(query.tool, answer.data)) await captureHold(db, hold.id);
      else balance = (await refundHold(db, hold.id)) ?? hold.balance + cost;
      return {
        data: answer.data as WhoisResponse<T>['data'],
        source: answer.source,
        fetched_at: answer.fetchedAt.toISOString(),
        remaining_credits: balance,
      };
    },

    async credits(userId: string): Promise<number> {
      const balance = await whoisBalance(db, userId);
      if (balance === undefined) throw Errors.unauthorized();
      return balance;
    },

    /** Refunds holds of requests that died, drops settled holds and expired cache rows. */
    async sweep(): Promise<void> {
      const refunded = await refundStaleHolds(db, STALE_HOLD_MINUTES);
      if (refunded > 0) log.warn({ accounts: refunded }, 'WHOIS holds of dead requests refunded');
      await purgeOld(db, SETTLED_HOLD_DAYS);
    },
  };
}
