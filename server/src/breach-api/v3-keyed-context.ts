/**
 * What every keyed call of the Breach API v3 shares (v3-account-service.ts): the engine
 * reads, the count of the call as one search of the key's account, the check that the
 * account verified a domain, and the models of the wells read.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import { AppError, Errors } from '../infra/errors';
import { domainGate } from '../monitoring/domain-verification-service';
import { OWN_QUERY_ADMISSION, type SearchService } from '../search/search-service';
import type { Entry } from '../../../engine/index';
import { breachModelsByWellName, type BreachModel } from '../datawells/breach-model-service';
import { asV3Refusal, v3NoSubscription } from './v3-guard';

export const DOMAIN_NOT_VERIFIED = 'Forbidden - the domain has not been verified by the account of this hibp-api-key.';

/** The models of the entries' wells, by well name (retired ones left out: their data is gone). */
export async function liveModels(db: Kysely<Database>, entries: Entry[]): Promise<Map<string, BreachModel>> {
  const models = await breachModelsByWellName(db, [...new Set(entries.map((e) => e.database_name))]);
  for (const [name, model] of models) if (model.IsRetired) models.delete(name);
  return models;
}

export function keyedContext(db: Kysely<Database>, search: SearchService) {
  return {
    reads: { db, run: search.run, wellCounts: search.wellCounts },

    /**
     * `work` as one search of the account, through the search service's admission (a slot,
     * the daily limit and lock, the subscription; no credit): counted once it ran, whatever
     * it found. Its refusals in the service's words.
     */
    async counted<T>(userId: string, work: () => Promise<T>): Promise<T> {
      try {
        return (await search.admitted(userId, OWN_QUERY_ADMISSION, { requireSubscription: true }, work)).result;
      } catch (error) {
        if (error instanceof AppError && error.statusCode === 401) throw v3NoSubscription();
        throw asV3Refusal(error);
      }
    },

    /** 403 unless the account verified the domain (or a parent of it); nothing is counted then. */
    async requireVerified(userId: string, domain: string): Promise<void> {
      const verified = await domainGate(db, userId);
      if (!verified(domain)) throw Errors.forbidden(DOMAIN_NOT_VERIFIED);
    },
  };
}

export type KeyedContext = ReturnType<typeof keyedContext>;
export type Reads = KeyedContext['reads'];
