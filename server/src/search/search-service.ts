/**
 * Search rules shared by the dashboard (POST /search) and the public API (POST /v2/search):
 * who may see what, how searches are counted and abuse is limited, how engine entries
 * become the two wire shapes. The query language itself is the engine's (one parser).
 */
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import type { Config } from '../config';
import { Errors } from '../infra/errors';
import { FIELD_NAMES, type Engine, type Entry, type FieldName, type SearchMode } from '../../../engine/index';
import { DASHBOARD_MAX_PAGE, DASHBOARD_PAGE_SIZE, MESSAGES, applyModeSuffix, isSearchType, validateSearch, type SearchType } from '../common/search-rules';
import type { SearchMeter } from './search-meter';
import { asRequestError, createAdmission, type AdmissionTicket, type AdmitOptions, type SearchAccess, type SearchRequest } from './admission';
import { SearchConcurrency } from './concurrency';

export type { SearchAccess } from './admission';

export function engineType(type: SearchType): FieldName | 'all' {
  return type === 'domain_scan' ? 'domain' : type;
}

export function searchMode(regex: boolean, wildcard: boolean): SearchMode {
  if (regex && wildcard) throw Errors.badRequest(MESSAGES.mixedModes);
  return regex ? 'regex' : wildcard ? 'wildcard' : 'exact';
}

/** The headline field of a record: the searched field when it has values, else the first present. */
export function primaryField(entry: Entry, type: FieldName | 'all'): string {
  if (type !== 'all' && entry[type]?.length) return type;
  return FIELD_NAMES.find((field) => entry[field]?.length) ?? 'database_name';
}

/**
 * Entries as the dashboard shows them to a viewer (dashboard search, monitoring reports):
 * none without search access (values are hidden; counts stay), `raw_record` only for law
 * enforcement, each with its headline field.
 */
export function dashboardEntries(entries: Entry[], access: Pick<SearchAccess, 'subscribed' | 'lawEnforcement'>, type: FieldName | 'all') {
  if (!access.subscribed) return [];
  return entries.map((entry) => {
    const { raw_record, ...fields } = entry;
    return { ...fields, primary_field: primaryField(entry, type), ...(access.lawEnforcement ? { raw_record } : {}) };
  });
}

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

  async function run(request: SearchRequest) {
    return engine.search({ ...request, timeBudgetMs: config.SEARCH_TIME_BUDGET_MS }).catch(asRequestError);
  }

  /**
   * The free password checks: records holding the hash as a stored `hashed_password` or as
   * the SHA-256 / SHA-1 of their plaintext password (derived at ingest), each counted once;
   * and every such hash with a 5-hex prefix (k-anonymity). Removed entries are left out.
   */
  const passwordCount = (userId: string, hash: string) => concurrency.run(userId, () => engine.passwordCount(hash).catch(asRequestError));
  const passwordRange = (userId: string, prefix: string) => concurrency.run(userId, () => engine.passwordRange(prefix).catch(asRequestError));

  /**
   * One search in one of the account's slots: admitted (admission.ts: counted, and with
   * `charge` charged one credit), run with what the admission allows, and its ticket settled
   * with the outcome. No promise before the engine call when the admission is answered in
   * process (the hot path).
   */
  function admitted<T>(userId: string, request: SearchRequest, options: AdmitOptions, runSearch: (access: SearchAccess) => Promise<T>) {
    const start = (ticket: AdmissionTicket) => {
      let running: Promise<T>;
      try {
        running = runSearch(ticket.access);
      } catch (error) {
        running = Promise.reject(error as Error);
      }
      return ticket.settle(running).then((result) => ({ access: ticket.access, result }));
    };
    return concurrency.run(userId, () => {
      const ticket = admit(userId, request, options);
      return ticket instanceof Promise ? ticket.then(start) : start(ticket);
    });
  }

  /** Admits and runs one search for the dashboard's shapes (the engine's entries). */
  function admitAndRun(userId: string, request: SearchRequest, options: AdmitOptions = {}) {
    return admitted(userId, request, options, (access) => engine.search({ ...request, oneTerm: !access.subscribed, timeBudgetMs: config.SEARCH_TIME_BUDGET_MS }));
  }

  /**
   * `admitAndRun` for the public API: the result is the reply's whole body, written by the
   * engine (Engine.searchApiReply), with the balance the admission left.
   */
  function admitAndRunApi(userId: string, request: SearchRequest, options: AdmitOptions = {}) {
    return admitted(userId, request, options, (access) =>
      engine.searchApiReply({ ...request, oneTerm: !access.subscribed, timeBudgetMs: config.SEARCH_TIME_BUDGET_MS }, access.lawEnforcement, access.credits),
    );
  }

  return {
    admitAndRun,
    admitAndRunApi,
    run,
    passwordCount,
    passwordRange,
    /** Searches running now (of one account, or accounts with one running). */
    runningSearches: (userId?: string) => concurrency.running(userId),

    /**
     * Records by id for the dashboard (favourites after a reload: the browser keeps only
     * their ids). Admitted and counted as one search, under the same rules as a search:
     * values only with a subscription, raw records only for law enforcement; unknown and
     * removed ids are left out.
     */
    async records(userId: string, ids: string[]) {
      // The query checked on the exact admission path: one plain term, valid for everyone.
      const admission: SearchRequest = { query: 'records', type: 'all', mode: 'exact', page: 1, size: 1, dedup: false };
      const { access, result } = await admitted(userId, admission, {}, () => engine.getMany(ids));
      const found = result.filter((entry): entry is Entry => entry !== null);
      return { results: dashboardEntries(found, access, 'all'), values_hidden: !access.subscribed };
    },

    async dashboard(userId: string, input: { query: string; type: string; page: number; regex: boolean; wildcard: boolean; deduplicate: boolean }) {
      if (!isSearchType(input.type)) throw Errors.badRequest('Unknown search type');
      const type: SearchType = input.type;
      const { query, regex, wildcard, error } = applyModeSuffix(input);
      if (error) throw Errors.badRequest(error);
      const problems = validateSearch(query, type, wildcard);
      if (problems.length) throw Errors.badRequest(problems.join('\n'));
      const mode = searchMode(regex, wildcard);
      const page = Math.min(Math.max(1, Math.trunc(input.page)), DASHBOARD_MAX_PAGE);
      const { access, result } = await admitAndRun(userId, { query, type: engineType(type), mode, page, size: DASHBOARD_PAGE_SIZE, dedup: input.deduplicate });
      const stats = await engine.stats();
      const results = dashboardEntries(result.entries, access, engineType(type));
      return {
        results,
        total_results: result.total,
        assets_searched: stats.records,
        elapsed_time: Math.round(result.tookMicros) / 1000,
        data_wells: Object.keys(stats.wells).length,
        values_hidden: !access.subscribed,
      };
    },
  };
}

export type SearchService = ReturnType<typeof createSearchService>;
