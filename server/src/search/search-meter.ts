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
import * as repo from './search-repository';

/** A snapshot older than this is never trusted: the bound on seeing another instance's change. */
export const SNAPSHOT_MAX_AGE_MS = 1000;
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
/** How long the exact path waits for the account's running searches to release their usage. */
const SETTLE_WAIT_MS = 10_000;
/** Snapshots unused for this long are dropped, so memory follows the active accounts. */
const IDLE_EVICT_MS = 60_000;

export interface MeteredAccount {
  readonly userId: string;
  snapshot: repo.SearchAccountRow;
  /** Date.now() when the snapshot was read; 0 once forgotten. */
  refreshedAt: number;
  usedAt: number;
  /** Counted and charged by searches still running: written only once the engine took the query (`release`). */
  heldSearches: number;
  heldCharges: number;
  pendingSearches: number;
  pendingCharges: Map<string, number>;
  /** Usage handed to the write in flight. */
  writingSearches: number;
  writingCharges: number;
}

export function createSearchMeter(deps: {
  db: Kysely<Database>;
  flushMs: number;
  reserve: number;
  dailyLimit: number;
  log: FastifyBaseLogger;
}) {
  const { db, reserve, dailyLimit, log } = deps;
  const accounts = new Map<string, MeteredAccount>();
  const byKeyHash = new Map<string, MeteredAccount>();
  let lastWriteStartedAt = 0;
  // `forget` must win over a read already on its way: every read notes the epoch it began
  // in, and a row of an account forgotten since then is not trusted.
  let epoch = 0;
  let clearedAtEpoch = 0;
  const forgottenAt = new Map<string, number>();
  const trusted = (userId: string, readEpoch: number) => readEpoch >= clearedAtEpoch && (forgottenAt.get(userId) ?? 0) <= readEpoch;
  let running: Promise<void> | undefined;
  let queued: Promise<void> | undefined;

  const pendingChargeCount = (a: MeteredAccount) => {
    let n = 0;
    for (const count of a.pendingCharges.values()) n += count;
    return n;
  };
  /** Credits left once the usage not yet written is taken off. */
  const balance = (a: MeteredAccount) => a.snapshot.search_credits - a.heldCharges - pendingChargeCount(a) - a.writingCharges;
  /** Searches today, the usage not yet written included. */
  const searchesToday = (a: MeteredAccount) => a.snapshot.searches_today + a.heldSearches + a.pendingSearches + a.writingSearches;
  const busy = (a: MeteredAccount) => a.pendingSearches > 0 || a.writingSearches > 0;
  /** Busy, or a search of it still running: the account must stay in memory. */
  const inUse = (a: MeteredAccount) => busy(a) || a.heldSearches > 0;
  const isFresh = (a: MeteredAccount, now: number) => now - a.refreshedAt <= SNAPSHOT_MAX_AGE_MS;

  function indexKey(account: MeteredAccount, keyHash: string | null) {
    const previous = account.snapshot.api_key_hash;
    if (previous && previous !== keyHash && byKeyHash.get(previous) === account) byKeyHash.delete(previous);
    if (keyHash) byKeyHash.set(keyHash, account);
  }

  /** Stores a row read from the database; stale at once if the account was forgotten since the read began. */
  function remember(row: repo.SearchAccountRow, readAt: number, readEpoch: number): MeteredAccount {
    const refreshedAt = trusted(row.id, readEpoch) ? readAt : 0;
    let account = accounts.get(row.id);
    if (!account) {
      account = {
        userId: row.id,
        snapshot: row,
        refreshedAt,
        usedAt: readAt,
        heldSearches: 0,
        heldCharges: 0,
        pendingSearches: 0,
        pendingCharges: new Map(),
        writingSearches: 0,
        writingCharges: 0,
      };
      accounts.set(row.id, account);
      indexKey(account, row.api_key_hash);
      return account;
    }
    indexKey(account, row.api_key_hash);
    account.snapshot = row;
    account.refreshedAt = refreshedAt;
    return account;
  }

  async function load(read: () => Promise<repo.SearchAccountRow | undefined>) {
    const readAt = Date.now();
    const readEpoch = epoch;
    const row = await read();
    if (!row) return undefined;
    const account = remember(row, readAt, readEpoch);
    account.usedAt = Date.now();
    return account;
  }

  /** One write of everything pending, refreshing the snapshots used since the previous write. */
  async function writeOnce(): Promise<void> {
    const startedAt = Date.now();
    const readEpoch = epoch;
    const since = lastWriteStartedAt;
    const batch = [...accounts.values()].filter((a) => a.pendingSearches > 0 || a.usedAt >= since);
    if (batch.length === 0) {
      lastWriteStartedAt = startedAt;
      return;
    }
    const usage = batch.map((a) => {
      const item = { userId: a.userId, searches: a.pendingSearches, charges: a.pendingCharges };
      a.writingSearches = a.pendingSearches;
      a.writingCharges = pendingChargeCount(a);
      a.pendingSearches = 0;
      a.pendingCharges = new Map();
      return item;
    });
    let rows;
    try {
      rows = await repo.writeSearchUsage(db, usage);
    } catch (error) {
      // Nothing was written: the usage waits for the next write.
      for (const [i, a] of batch.entries()) {
        a.pendingSearches += usage[i]!.searches;
        for (const [reason, n] of usage[i]!.charges) a.pendingCharges.set(reason, (a.pendingCharges.get(reason) ?? 0) + n);
        a.writingSearches = 0;
        a.writingCharges = 0;
      }
      throw error;
    }
    lastWriteStartedAt = startedAt;
    const seen = new Set<string>();
    for (const row of rows) {
      seen.add(row.id);
      const { uncharged, ...snapshot } = row;
      if (uncharged > 0) log.warn({ userId: row.id, uncharged }, 'batched search charges exceeded the balance; not charged');
      remember(snapshot, startedAt, readEpoch);
    }
    for (const a of batch) {
      a.writingSearches = 0;
      a.writingCharges = 0;
      // Closed (or deleted) accounts come back without a row: their usage is written, forget them.
      if (!seen.has(a.userId) && !inUse(a)) drop(a);
    }
    for (const a of accounts.values()) if (startedAt - a.usedAt > IDLE_EVICT_MS && !inUse(a)) drop(a);
  }

  function drop(a: MeteredAccount) {
    accounts.delete(a.userId);
    const keyHash = a.snapshot.api_key_hash;
    if (keyHash && byKeyHash.get(keyHash) === a) byKeyHash.delete(keyHash);
  }

  /** Writes now; a call during a write waits for it and then writes what came since. */
  function flush(): Promise<void> {
    if (!running) {
      running = writeOnce().finally(() => {
        running = undefined;
      });
      return running;
    }
    queued ??= running
      .catch(() => {})
      .then(() => {
        queued = undefined;
        return flush();
      });
    return queued;
  }

  /** The account's snapshot when fresh, without a query (else undefined: ask `account`). */
  function freshAccount(userId: string): MeteredAccount | undefined {
    const now = Date.now();
    const cached = accounts.get(userId);
    if (!cached || !isFresh(cached, now)) return undefined;
    cached.usedAt = now;
    return cached;
  }

  const timer = setInterval(() => {
    if (running) return;
    flush().catch((error: Error) => log.error({ err: { message: error.message, code: (error as { code?: string }).code } }, 'writing search usage failed'));
  }, deps.flushMs);
  timer.unref();

  return {
    /** The user behind an API key hash when a fresh snapshot knows it (no query). */
    knownKeyHash(keyHash: string): string | undefined {
      const cached = byKeyHash.get(keyHash);
      return cached && cached.snapshot.api_key_hash === keyHash && isFresh(cached, Date.now()) ? cached.userId : undefined;
    },

    /** The account behind an API key hash: a fresh snapshot's, else one query for key and account together. */
    async byApiKeyHash(keyHash: string): Promise<MeteredAccount | undefined> {
      const now = Date.now();
      const cached = byKeyHash.get(keyHash);
      if (cached && cached.snapshot.api_key_hash === keyHash && isFresh(cached, now)) {
        cached.usedAt = now;
        return cached;
      }
      return load(() => repo.findSearchAccountByApiKeyHash(db, keyHash));
    },

    freshAccount,

    /** The account's fresh snapshot, read again when missing, stale or `reread`. */
    async account(userId: string, options: { reread?: boolean } = {}): Promise<MeteredAccount | undefined> {
      const fresh = options.reread ? undefined : freshAccount(userId);
      if (fresh) return fresh;
      const cached = accounts.get(userId);
      const account = await load(() => repo.getSearchAccount(db, userId));
      if (!account && cached) {
        // Closed since: its key opens nothing any more.
        cached.refreshedAt = 0;
        const keyHash = cached.snapshot.api_key_hash;
        if (keyHash && byKeyHash.get(keyHash) === cached) byKeyHash.delete(keyHash);
      }
      return account;
    },

    balance,
    searchesToday,

    /**
     * Counts one search (and charges one credit for `chargeReason`) in memory when the
     * account stays comfortably within its limits; false when the exact path is needed. The
     * count and the charge are held until the search says what becomes of them (`release`):
     * a write never takes the usage of a search still running, so a query the engine refuses
     * leaves nothing behind, whenever the writes happen.
     */
    tryCount(a: MeteredAccount, chargeReason: string | undefined): boolean {
      if (!isFresh(a, Date.now())) return false;
      if (searchesToday(a) + 1 > dailyLimit - reserve) return false;
      if (chargeReason !== undefined && balance(a) - 1 < reserve) return false;
      a.heldSearches += 1;
      if (chargeReason !== undefined) a.heldCharges += 1;
      return true;
    },

    /**
     * Ends what `tryCount` held for one search: its count becomes pending usage when `count`,
     * and its charge (when `charge` names the reason it was taken for) when `keepCharge`;
     * whatever is not kept is dropped, so no credit moved and nothing was counted.
     */
    release(userId: string, outcome: { count: boolean; charge: string | undefined; keepCharge: boolean }) {
      const a = accounts.get(userId);
      if (!a || a.heldSearches === 0) return;
      a.heldSearches -= 1;
      if (outcome.count) a.pendingSearches += 1;
      if (outcome.charge === undefined || a.heldCharges === 0) return;
      a.heldCharges -= 1;
      if (outcome.keepCharge) a.pendingCharges.set(outcome.charge, (a.pendingCharges.get(outcome.charge) ?? 0) + 1);
    },

    /**
     * Writes this account's usage, so that the database holds all of it: first waits for its
     * searches still running to release what they hold (at most SEARCH_CONCURRENCY_PER_USER
     * searches, each within its time budget; given up after SETTLE_WAIT_MS).
     */
    async settle(a: MeteredAccount): Promise<void> {
      const giveUpAt = Date.now() + SETTLE_WAIT_MS;
      while (a.heldSearches > 0 && Date.now() < giveUpAt) await new Promise((resolve) => setTimeout(resolve, 2));
      for (let attempt = 0; attempt < 3 && busy(a); attempt++) await flush();
    },

    /** Takes in the result of an exact, synchronous count (and charge). */
    noteExact(a: MeteredAccount, counted: { searches: number; balance: number | undefined }) {
      a.snapshot = {
        ...a.snapshot,
        searches_today: Math.max(a.snapshot.searches_today, counted.searches),
        ...(counted.balance !== undefined ? { search_credits: counted.balance } : {}),
      };
    },

    /** Stops trusting what is known of the account (key replaced, account closed, …); pending usage stays. */
    forget(userId: string) {
      epoch += 1;
      if (forgottenAt.size >= 10_000) {
        forgottenAt.clear();
        clearedAtEpoch = epoch;
      }
      forgottenAt.set(userId, epoch);
      const a = accounts.get(userId);
      if (!a) return;
      a.refreshedAt = 0;
      const keyHash = a.snapshot.api_key_hash;
      if (keyHash && byKeyHash.get(keyHash) === a) byKeyHash.delete(keyHash);
    },

    flush,

    /** Stops the timer and writes what is pending (graceful shutdown). */
    async close() {
      clearInterval(timer);
      await running?.catch(() => {});
      for (let attempt = 0; attempt < 3 && [...accounts.values()].some(busy); attempt++) {
        await flush().catch((error: Error) => log.error({ err: { message: error.message } }, 'writing search usage at shutdown failed'));
      }
    },
  };
}

export type SearchMeter = ReturnType<typeof createSearchMeter>;
