/**
 * The WHOIS tools (docs/whois.md): a checked query, its credits held, the
 * cache, then the tool's providers in the configured order; the credits are captured when
 * one answers with data, and refunded when the answer has none or every provider failed.
 */
import { Errors } from '../infra/errors';
import type { WhoisQuery, WhoisTool } from '../common/whois-rules';
import type { ProviderName } from './provider';
import { resolveQuery, type WhoisCursor, type WhoisServiceOptions } from './resolve-query';
import { runQuery } from './run-query';
import { purgeOld, refundStaleHolds, whoisBalance } from './whois-repository';

export type { WhoisCursor, WhoisServiceOptions } from './resolve-query';

/** A hold still open after this long belongs to a request that died: refunded. */
export const STALE_HOLD_MINUTES = 10;
const SETTLED_HOLD_DAYS = 90;

export type WhoisService = ReturnType<typeof createWhoisService>;

export function parseProviderOrder(setting: string): ProviderName[] {
  return [...new Set(setting.split(',').map((name) => name.trim()))] as ProviderName[];
}

export function createWhoisService(options: WhoisServiceOptions) {
  const { db, log } = options;
  const resolve = (query: WhoisQuery, cursor: WhoisCursor) => resolveQuery(options, query, cursor);

  return {
    /**
     * Runs one checked query for a user: 403 without enough credits (history needs 25),
     * 503 (credits refunded) when every provider failed. An answer without data (one rule
     * for every tool, docs/whois.md "Credits") gives the credits back.
     */
    run: <T extends WhoisTool>(userId: string, query: WhoisQuery & { tool: T }, cursor: WhoisCursor = {}) => runQuery<T>({ db, resolve }, userId, query, cursor),

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
