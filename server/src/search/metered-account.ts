/**
 * What the search meter keeps of one active account (search-meter.ts), the state its use
 * cases share, and the account's limits read from it.
 */
import type { SearchAccountRow } from './search-repository';

/** A snapshot older than this is never trusted: the bound on seeing another instance's change. */
export const SNAPSHOT_MAX_AGE_MS = 1000;

export interface MeteredAccount {
  readonly userId: string;
  snapshot: SearchAccountRow;
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

/** The meter's accounts, by user and by API key hash, and what was forgotten since a read began. */
export interface MeterState {
  readonly accounts: Map<string, MeteredAccount>;
  readonly byKeyHash: Map<string, MeteredAccount>;
  // `forget` must win over a read already on its way: every read notes the epoch it began
  // in, and a row of an account forgotten since then is not trusted.
  epoch: number;
  clearedAtEpoch: number;
  readonly forgottenAt: Map<string, number>;
}

export function createMeterState(): MeterState {
  return { accounts: new Map(), byKeyHash: new Map(), epoch: 0, clearedAtEpoch: 0, forgottenAt: new Map() };
}

export function pendingChargeCount(a: MeteredAccount): number {
  let n = 0;
  for (const count of a.pendingCharges.values()) n += count;
  return n;
}

/** Credits left once the usage not yet written is taken off. */
export const balance = (a: MeteredAccount) => a.snapshot.search_credits - a.heldCharges - pendingChargeCount(a) - a.writingCharges;
/** Searches today, the usage not yet written included. */
export const searchesToday = (a: MeteredAccount) => a.snapshot.searches_today + a.heldSearches + a.pendingSearches + a.writingSearches;
export const busy = (a: MeteredAccount) => a.pendingSearches > 0 || a.writingSearches > 0;
/** Busy, or a search of it still running: the account must stay in memory. */
export const inUse = (a: MeteredAccount) => busy(a) || a.heldSearches > 0;
export const isFresh = (a: MeteredAccount, now: number) => now - a.refreshedAt <= SNAPSHOT_MAX_AGE_MS;
