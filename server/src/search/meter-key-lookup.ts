/** The search meter's API key lookup (search-meter.ts): a fresh snapshot answers without a query. */
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import * as repo from './search-repository';
import { isFresh, type MeteredAccount, type MeterState } from './metered-account';
import { load } from './meter-snapshots';

export function meterKeyLookup(db: Kysely<Database>, state: MeterState) {
  const { byKeyHash } = state;
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
      return load(state, () => repo.findSearchAccountByApiKeyHash(db, keyHash));
    },
  };
}
