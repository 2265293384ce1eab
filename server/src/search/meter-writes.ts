/**
 * The search meter's usage writes (search-meter.ts): everything pending, for every account
 * at once, in one statement that also brings the snapshots used since the previous write up
 * to date. A write that fails leaves the usage pending for the next one.
 */
import type { Kysely } from 'kysely';
import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../db/schema';
import * as repo from './search-repository';
import { busy, inUse, pendingChargeCount, type MeteredAccount, type MeterState } from './metered-account';
import { drop, remember } from './meter-snapshots';

/** How long the exact path waits for the account's running searches to release their usage. */
const SETTLE_WAIT_MS = 10_000;
/** Snapshots unused for this long are dropped, so memory follows the active accounts. */
const IDLE_EVICT_MS = 60_000;

interface UsageWriter {
  readonly db: Kysely<Database>;
  readonly log: FastifyBaseLogger;
  readonly state: MeterState;
  lastWriteStartedAt: number;
}

/** The accounts' pending usage becomes the usage of the write in flight. */
function handOver(batch: MeteredAccount[]): repo.PendingUsage[] {
  return batch.map((a) => {
    const item = { userId: a.userId, searches: a.pendingSearches, charges: a.pendingCharges };
    a.writingSearches = a.pendingSearches;
    a.writingCharges = pendingChargeCount(a);
    a.pendingSearches = 0;
    a.pendingCharges = new Map();
    return item;
  });
}

/** Nothing was written: the usage waits for the next write. */
function giveBack(batch: MeteredAccount[], usage: repo.PendingUsage[]) {
  for (const [i, a] of batch.entries()) {
    a.pendingSearches += usage[i]!.searches;
    for (const [reason, n] of usage[i]!.charges) a.pendingCharges.set(reason, (a.pendingCharges.get(reason) ?? 0) + n);
    a.writingSearches = 0;
    a.writingCharges = 0;
  }
}

/** The written accounts' rows become their snapshots; accounts closed or idle leave memory. */
function takeIn(w: UsageWriter, batch: MeteredAccount[], rows: Awaited<ReturnType<typeof repo.writeSearchUsage>>, startedAt: number, readEpoch: number) {
  const seen = new Set<string>();
  for (const row of rows) {
    seen.add(row.id);
    const { uncharged, ...snapshot } = row;
    if (uncharged > 0) w.log.warn({ userId: row.id, uncharged }, 'batched search charges exceeded the balance; not charged');
    remember(w.state, snapshot, startedAt, readEpoch);
  }
  for (const a of batch) {
    a.writingSearches = 0;
    a.writingCharges = 0;
    // Closed (or deleted) accounts come back without a row: their usage is written, forget them.
    if (!seen.has(a.userId) && !inUse(a)) drop(w.state, a);
  }
  for (const a of w.state.accounts.values()) if (startedAt - a.usedAt > IDLE_EVICT_MS && !inUse(a)) drop(w.state, a);
}

/** One write of everything pending, refreshing the snapshots used since the previous write. */
async function writeOnce(w: UsageWriter): Promise<void> {
  const startedAt = Date.now();
  const readEpoch = w.state.epoch;
  const since = w.lastWriteStartedAt;
  const batch = [...w.state.accounts.values()].filter((a) => a.pendingSearches > 0 || a.usedAt >= since);
  if (batch.length === 0) {
    w.lastWriteStartedAt = startedAt;
    return;
  }
  const usage = handOver(batch);
  let rows;
  try {
    rows = await repo.writeSearchUsage(w.db, usage);
  } catch (error) {
    giveBack(batch, usage);
    throw error;
  }
  w.lastWriteStartedAt = startedAt;
  takeIn(w, batch, rows, startedAt, readEpoch);
}

export function meterWrites(deps: { db: Kysely<Database>; log: FastifyBaseLogger; state: MeterState }) {
  const writer: UsageWriter = { ...deps, lastWriteStartedAt: 0 };
  let running: Promise<void> | undefined;
  let queued: Promise<void> | undefined;

  /** Writes now; a call during a write waits for it and then writes what came since. */
  function flush(): Promise<void> {
    if (!running) {
      running = writeOnce(writer).finally(() => {
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

  return {
    flush,
    /** A write is in flight. */
    writing: () => running !== undefined,

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

    /** Waits for the write in flight, then writes what is pending (graceful shutdown). */
    async finish() {
      await running?.catch(() => {});
      for (let attempt = 0; attempt < 3 && [...deps.state.accounts.values()].some(busy); attempt++) {
        await flush().catch((error: Error) => deps.log.error({ err: { message: error.message } }, 'writing search usage at shutdown failed'));
      }
    },
  };
}
