/**
 * Search metering in process, so that a search by an account well within its limits costs
 * no database round trip:
 *
 * - a short-lived snapshot of each active account (API key hash, subscription, lock,
 *   credits, today's search count), never used once older than SNAPSHOT_MAX_AGE_MS;
 * - the searches counted and credits charged since the last write, written for every
 *   account at once every SEARCH_FLUSH_MS (and on close) by one statement that also
 *   brings every active snapshot up to date.
 *
 * Counting and charging in memory is allowed only while the account stays at least
 * SEARCH_BATCH_RESERVE credits above zero and searches below its daily limit; nearer,
 * the caller takes the exact path (one synchronous statement per search) after `settle`
 * has written what this account still had pending. Changes made on this instance (key
 * replaced, account closed, password changed) `forget` the snapshot at once; changes made
 * elsewhere (another instance, the admin CLI) are seen at the next write, within 1 s.
 * With several instances, each counts only its own usage in memory: the reserve must cover
 * what the others may serve meanwhile (`sharedBatchReserve`).
 * A search's count and charge are held while it runs and become pending usage only once the
 * engine took its query (`release`), so a refused query is never written, whenever the
 * writes happen; the exact path waits for the held usage first (`settle`).
 * A crash loses at most the pending usage: searches not counted and credits not charged,
 * always in the customer's favour. Only counts are kept, never queries.
 */
import type { Kysely } from 'kysely';
import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../db/schema';
import { SNAPSHOT_MAX_AGE_MS, balance, createMeterState, searchesToday } from './metered-account';
import { meterSnapshots } from './meter-snapshots';
import { meterKeyLookup } from './meter-key-lookup';
import { meterUsage } from './meter-usage';
import { meterWrites } from './meter-writes';

export { SNAPSHOT_MAX_AGE_MS, type MeteredAccount } from './metered-account';

/**
 * The smallest SEARCH_BATCH_RESERVE that keeps credits and the daily limit exact when
 * several instances meter one account: what the account's shared rate limit (Redis) lets
 * the other instances serve before this instance's snapshot shows it, i.e. the burst plus
 * the rate over the snapshot's age and two writes (their pending usage, and a write in
 * flight). One instance needs no reserve for this: it sees all of its own usage.
 */
export function sharedBatchReserve(rate: { burst: number; ratePerSecond: number }, flushMs: number): number {
  return Math.ceil(rate.burst + (rate.ratePerSecond * (SNAPSHOT_MAX_AGE_MS + 2 * flushMs)) / 1000);
}

/**
 * The meter: its use cases (snapshots, key lookup, counting, writes) over one shared state,
 * and the timer that writes the usage every `flushMs`.
 */
export function createSearchMeter(deps: {
  db: Kysely<Database>;
  flushMs: number;
  reserve: number;
  dailyLimit: number;
  log: FastifyBaseLogger;
}) {
  const { db, log } = deps;
  const state = createMeterState();
  const snapshots = meterSnapshots(db, state);
  const keys = meterKeyLookup(db, state);
  const usage = meterUsage(state, deps);
  const writes = meterWrites({ db, log, state });

  const timer = setInterval(() => {
    if (writes.writing()) return;
    writes.flush().catch((error: Error) => log.error({ err: { message: error.message, code: (error as { code?: string }).code } }, 'writing search usage failed'));
  }, deps.flushMs);
  timer.unref();

  return {
    knownKeyHash: keys.knownKeyHash,
    byApiKeyHash: keys.byApiKeyHash,
    freshAccount: snapshots.freshAccount,
    account: snapshots.account,
    balance,
    searchesToday,
    tryCount: usage.tryCount,
    release: usage.release,
    settle: writes.settle,
    noteExact: snapshots.noteExact,
    forget: snapshots.forget,
    flush: writes.flush,

    /** Stops the timer and writes what is pending (graceful shutdown). */
    async close() {
      clearInterval(timer);
      await writes.finish();
    },
  };
}

export type SearchMeter = ReturnType<typeof createSearchMeter>;
