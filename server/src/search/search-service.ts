/**
 * Search rules shared by the dashboard (POST /search) and the public API (POST /v2/search):
 * who may see what, how searches are counted and abuse is limited, how engine entries
 * become the two wire shapes. The query language itself is the engine's (one parser).
 */
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import type { Config } from '../config';
import type { Engine, WellCountsRequest } from '../../../engine/index';
import type { SearchMeter } from './search-meter';
import { asRequestError, createAdmission, type SearchRequest } from './admission';
import { SearchConcurrency } from './concurrency';
import { admittedSearches } from './admitted-search';
import { dashboardSearch } from './dashboard-search';
import { recordsById } from './records-by-id';
import { exposureTimeline } from './exposure-timeline';

export type { SearchAccess } from './admission';
export { OWN_QUERY_ADMISSION } from './admission-rules';
export { dashboardEntries, engineType, primaryField, searchMode } from './search-shapes';

/** The most records the dashboard asks for by id at once (the favourites list). */
export const RECORDS_BY_ID_MAX = 50;

export function createSearchService(deps: {
  db: Kysely<Database>;
  engine: Engine;
  config: Config;
  meter: SearchMeter;
}) {
  const { engine, config } = deps;
  // Every search and password check of an account takes a slot first: over the cap it waits
  // SEARCH_CONCURRENCY_WAIT_MS for one, then is refused (429) before anything is counted,
  // charged or sent to the engine.
  const concurrency = new SearchConcurrency({ perUser: config.SEARCH_CONCURRENCY_PER_USER, waitMs: config.SEARCH_CONCURRENCY_WAIT_MS });
  const { admit } = createAdmission(deps);
  const { admitted, admitAndRun, admitAndRunApi } = admittedSearches({ engine, config, concurrency, admit });

  async function run(request: SearchRequest) {
    return engine.search({ ...request, timeBudgetMs: config.SEARCH_TIME_BUDGET_MS }).catch(asRequestError);
  }

  /** The records matching a query in each data well, counted in the engine (no entry read). */
  async function wellCounts(request: Omit<WellCountsRequest, 'timeBudgetMs'>) {
    return engine.wellCounts({ ...request, timeBudgetMs: config.SEARCH_TIME_BUDGET_MS }).catch(asRequestError);
  }

  /**
   * The free password checks: records holding the hash as a stored `hashed_password` or as
   * the SHA-256 / SHA-1 of their plaintext password (derived at ingest), each counted once;
   * and every such hash with a 5-hex prefix (k-anonymity). Removed entries are left out.
   */
  const passwordCount = (userId: string, hash: string) => concurrency.run(userId, () => engine.passwordCount(hash).catch(asRequestError));
  const passwordRange = (userId: string, prefix: string) => concurrency.run(userId, () => engine.passwordRange(prefix).catch(asRequestError));

  return {
    admitAndRun,
    admitAndRunApi,
    /**
     * Runs `work` as one admitted search of the account (a slot, the count, the limits; a
     * charge only with `options.charge`): for features whose searches are not one engine
     * search (the Breach API v3's keyed calls).
     */
    admitted,
    run,
    wellCounts,
    passwordCount,
    passwordRange,
    /** Searches running now (of one account, or accounts with one running). */
    runningSearches: (userId?: string) => concurrency.running(userId),
    /** Records by id for the dashboard (favourites after a reload), counted as one search. */
    records: recordsById({ engine, admitted }),
    dashboard: dashboardSearch({ engine, admitAndRun }),
    /** The search screen's exposure timeline: matching records per well with dates and data kinds, one counted search. */
    timeline: exposureTimeline({ db: deps.db, admitted, wellCounts }),
  };
}

export type SearchService = ReturnType<typeof createSearchService>;
