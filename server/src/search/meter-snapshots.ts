/**
 * The search meter's account snapshots (search-meter.ts): read from the database, trusted
 * for SNAPSHOT_MAX_AGE_MS, forgotten at once when the account changes on this instance.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import * as repo from './search-repository';
import { isFresh, type MeteredAccount, type MeterState } from './metered-account';

const trusted = (state: MeterState, userId: string, readEpoch: number) =>
  readEpoch >= state.clearedAtEpoch && (state.forgottenAt.get(userId) ?? 0) <= readEpoch;

function indexKey(state: MeterState, account: MeteredAccount, keyHash: string | null) {
  const previous = account.snapshot.api_key_hash;
  if (previous && previous !== keyHash && state.byKeyHash.get(previous) === account) state.byKeyHash.delete(previous);
  if (keyHash) state.byKeyHash.set(keyHash, account);
}

/** Its key no longer leads to the account. */
function unindexKey(state: MeterState, a: MeteredAccount) {
  const keyHash = a.snapshot.api_key_hash;
  if (keyHash && state.byKeyHash.get(keyHash) === a) state.byKeyHash.delete(keyHash);
}

/** The snapshot is stale at once and its key opens nothing until it is read again. */
function distrust(state: MeterState, a: MeteredAccount) {
  a.refreshedAt = 0;
  unindexKey(state, a);
}

/** Stores a row read from the database; stale at once if the account was forgotten since the read began. */
export function remember(state: MeterState, row: repo.SearchAccountRow, readAt: number, readEpoch: number): MeteredAccount {
  const refreshedAt = trusted(state, row.id, readEpoch) ? readAt : 0;
  let account = state.accounts.get(row.id);
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
    state.accounts.set(row.id, account);
    indexKey(state, account, row.api_key_hash);
    return account;
  }
  indexKey(state, account, row.api_key_hash);
  account.snapshot = row;
  account.refreshedAt = refreshedAt;
  return account;
}

/** Reads one account and remembers it. */
export async function load(state: MeterState, read: () => Promise<repo.SearchAccountRow | undefined>) {
  const readAt = Date.now();
  const readEpoch = state.epoch;
  const row = await read();
  if (!row) return undefined;
  const account = remember(state, row, readAt, readEpoch);
  account.usedAt = Date.now();
  return account;
}

/** The account leaves memory (its usage written). */
export function drop(state: MeterState, a: MeteredAccount) {
  state.accounts.delete(a.userId);
  unindexKey(state, a);
}

export function meterSnapshots(db: Kysely<Database>, state: MeterState) {
  const { accounts } = state;

  /** The account's snapshot when fresh, without a query (else undefined: ask `account`). */
  function freshAccount(userId: string): MeteredAccount | undefined {
    const now = Date.now();
    const cached = accounts.get(userId);
    if (!cached || !isFresh(cached, now)) return undefined;
    cached.usedAt = now;
    return cached;
  }

  /** The account's fresh snapshot, read again when missing, stale or `reread`. */
  async function account(userId: string, options: { reread?: boolean } = {}): Promise<MeteredAccount | undefined> {
    const fresh = options.reread ? undefined : freshAccount(userId);
    if (fresh) return fresh;
    const cached = accounts.get(userId);
    const read = await load(state, () => repo.getSearchAccount(db, userId));
    // Closed since: its key opens nothing any more.
    if (!read && cached) distrust(state, cached);
    return read;
  }

  /** Takes in the result of an exact, synchronous count (and charge). */
  function noteExact(a: MeteredAccount, counted: { searches: number; balance: number | undefined }) {
    a.snapshot = {
      ...a.snapshot,
      searches_today: Math.max(a.snapshot.searches_today, counted.searches),
      ...(counted.balance !== undefined ? { search_credits: counted.balance } : {}),
    };
  }

  /** Stops trusting what is known of the account (key replaced, account closed, …); pending usage stays. */
  function forget(userId: string) {
    state.epoch += 1;
    if (state.forgottenAt.size >= 10_000) {
      state.forgottenAt.clear();
      state.clearedAtEpoch = state.epoch;
    }
    state.forgottenAt.set(userId, state.epoch);
    const a = accounts.get(userId);
    if (a) distrust(state, a);
  }

  return { freshAccount, account, noteExact, forget };
}
