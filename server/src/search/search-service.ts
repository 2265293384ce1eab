/**
 * Search rules shared by the dashboard (POST /search) and the public API (POST /v2/search):
 * who may see what, how searches are counted and abuse is limited, how engine entries
 * become the two wire shapes. The query language itself is the engine's (one parser).
 */
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import type { Config } from '../config';
import { AppError, Errors } from '../infra/errors';
import { EngineQueryError, EngineTimeoutError, FIELD_NAMES, type Engine, type Entry, type FieldName, type SearchMode } from '../../../engine/index';
import { DASHBOARD_MAX_PAGE, DASHBOARD_PAGE_SIZE, MESSAGES, applyModeSuffix, isSearchType, validateSearch, type SearchType } from '../common/search-rules';
import { refundSearchCredit } from '../credits/credits-service';
import * as repo from './search-repository';
import type { MeteredAccount, SearchMeter } from './search-meter';
import { SearchConcurrency } from './concurrency';

export interface SearchAccess {
  subscribed: boolean;
  lawEnforcement: boolean;
  elevated: boolean;
  credits: number;
}

function isLocked(account: { search_locked_until: Date | null }): boolean {
  return account.search_locked_until !== null && account.search_locked_until.getTime() > Date.now();
}

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

type AdmitOptions = { charge?: string; requireSubscription?: boolean };

/** The most records the dashboard asks for by id at once (the favourites list). */
export const RECORDS_BY_ID_MAX = 50;

type SearchRequest = { query: string; type: FieldName | 'all'; mode: SearchMode; page: number; size: number; dedup: boolean; maxWindow?: number };

export function createSearchService(deps: {
  db: Kysely<Database>;
  engine: Engine;
  config: Config;
  meter: SearchMeter;
}) {
  const { db, engine, config, meter } = deps;
  // Every search and password check of an account takes a slot first: over the cap it waits
  // SEARCH_CONCURRENCY_WAIT_MS for one, then is refused (429) before anything is counted,
  // charged or sent to the engine.
  const concurrency = new SearchConcurrency({ perUser: config.SEARCH_CONCURRENCY_PER_USER, waitMs: config.SEARCH_CONCURRENCY_WAIT_MS });

  /**
   * What an account's snapshot allows a search, before anything is counted: its refusal
   * (suspended, locked, or not subscribed when `requireSubscription`), else its access and
   * whether it is charged (with `charge`; elevated accounts are not). `admit` and `admitNow`.
   */
  function accessOf(snapshot: MeteredAccount['snapshot'], options: AdmitOptions): { refusal: AppError } | { access: Omit<SearchAccess, 'credits'> & { charged: boolean } } {
    if (snapshot.search_barred) return { refusal: Errors.forbidden('Search access suspended: too many searches. Free monitoring stays available.') };
    if (isLocked(snapshot)) return { refusal: Errors.tooManyRequests(snapshot.search_locked_until!.getTime() - Date.now()) };
    const until = snapshot.search_subscribed_until;
    const subscribed = snapshot.elevated || (until !== null && until.getTime() > Date.now());
    if (options.requireSubscription && !subscribed) return { refusal: Errors.unauthorized('A search subscription and API credits are required') };
    const charged = Boolean(options.charge) && !snapshot.elevated;
    return { access: { subscribed, lawEnforcement: snapshot.law_enforcement, elevated: snapshot.elevated, charged } };
  }

  /**
   * Counts the search and applies the abuse rules; with `charge`, also takes one credit
   * (elevated accounts are not charged). Throws when the account may not search, after
   * checking the query, so a bad query is refused as such. An account well within its
   * limits is counted and charged in memory (`inMemory`, see search-meter.ts) and its query
   * is left to the search itself to check; near a limit, or locked, it takes the exact path
   * (the query checked first, then one statement against the database). A query refused for
   * its cost (`EngineQueryError.costly`) is counted on either path, never charged.
   */
  async function admit(
    userId: string,
    request: SearchRequest,
    options: { charge?: string; requireSubscription?: boolean },
  ): Promise<SearchAccess & { charged: boolean; inMemory: boolean }> {
    let account = await meter.account(userId);
    // A lock or bar is checked again at the source before refusing: it may have been lifted.
    if (account && (account.snapshot.search_barred || isLocked(account.snapshot))) account = await meter.account(userId, { reread: true });
    if (!account) return refuse(request, Errors.unauthorized());
    const decided = accessOf(account.snapshot, options);
    if ('refusal' in decided) return refuse(request, decided.refusal);
    const { access } = decided;
    const charge = access.charged;
    if (meter.tryCount(account, charge ? options.charge : undefined)) return { ...access, credits: meter.balance(account), inMemory: true };

    const costRefusal = await checkCountingCost({ ...request, oneTerm: !access.subscribed });
    await meter.settle(account);
    const counted = await repo.countAndCharge(db, userId, { charge: charge && !costRefusal, dailyLimit: config.SEARCH_DAILY_LIMIT, reason: options.charge ?? '' });
    meter.noteExact(account, counted);
    if (counted.searches > config.SEARCH_DAILY_LIMIT) {
      const locked = await repo.lockSearch(db, userId, config.SEARCH_LOCK_HOURS, config.SEARCH_BAR_AFTER_LOCKS);
      meter.forget(userId);
      throw Errors.tooManyRequests(locked?.search_locked_until ? locked.search_locked_until.getTime() - Date.now() : config.SEARCH_LOCK_HOURS * 3_600_000);
    }
    if (costRefusal) asRequestError(costRefusal);
    if (charge && counted.balance === undefined) throw new AppError(403, 'INSUFFICIENT_CREDITS', 'Insufficient Credits');
    return { ...access, credits: counted.balance ?? meter.balance(account), inMemory: false };
  }

  /**
   * `admit` without a promise when the account's answer is known in process: a fresh
   * snapshot, neither barred nor locked, subscribed when required, and counted in memory
   * (`meter.tryCount`). Undefined, with nothing counted, in every other case: the caller
   * takes `admit`, which decides (and refuses) exactly as before.
   */
  function admitNow(userId: string, options: AdmitOptions): (SearchAccess & { charged: boolean; inMemory: boolean }) | undefined {
    const account = meter.freshAccount(userId);
    if (!account) return undefined;
    const decided = accessOf(account.snapshot, options);
    if ('refusal' in decided || !meter.tryCount(account, decided.access.charged ? options.charge : undefined)) return undefined;
    return { ...decided.access, credits: meter.balance(account), inMemory: true };
  }

  /** The engine's refusal of a query, or a search past its budget, becomes a 400 with its message; anything else is rethrown. */
  function asRequestError(error: unknown): never {
    if (error instanceof EngineQueryError && error.code === 'subscription_required') throw Errors.forbidden(error.message);
    if (error instanceof EngineQueryError) throw Errors.badRequest(error.message);
    if (error instanceof EngineTimeoutError) throw Errors.searchTimeout(error.message);
    throw error;
  }

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
   * The query's and the paging's own checks, the engine's as the search makes them, for
   * `admit`: a refusal for the query's cost is answered (to be counted first), any other is
   * thrown as a request error.
   */
  async function checkCountingCost(request: SearchRequest & { oneTerm?: boolean }): Promise<EngineQueryError | undefined> {
    return engine.parse(request).then(
      () => undefined,
      (error: unknown) => (error instanceof EngineQueryError && error.costly ? error : asRequestError(error)),
    );
  }

  /** Refusals come after the query's checks, so a bad query is always answered as such. */
  async function refuse(request: SearchRequest, error: AppError): Promise<never> {
    await engine.parse(request).catch(asRequestError);
    throw error;
  }

  /**
   * Admits (counts, and with `charge` charges one credit) and runs one search. A refusal of
   * any kind (bad query, paging, access) counts and charges nothing, except a query refused
   * for its cost (too large a regex), which is counted and not charged; a search that fails
   * (time budget) stays counted and gets its credit back.
   */
  function admitAndRun(userId: string, request: SearchRequest, options: AdmitOptions = {}) {
    return admitThen(userId, request, options, (access) => engine.search({ ...request, oneTerm: !access.subscribed, timeBudgetMs: config.SEARCH_TIME_BUDGET_MS }));
  }

  /**
   * `admitAndRun` for the public API: the result is the reply's whole body, written by the
   * engine (Engine.searchApiReply), with the balance the admission left.
   */
  function admitAndRunApi(userId: string, request: SearchRequest, options: AdmitOptions = {}) {
    return admitThen(userId, request, options, (access) =>
      engine.searchApiReply({ ...request, oneTerm: !access.subscribed, timeBudgetMs: config.SEARCH_TIME_BUDGET_MS }, access.lawEnforcement, access.credits),
    );
  }

  function admitThen<T>(userId: string, request: SearchRequest, options: AdmitOptions, runSearch: (access: SearchAccess) => Promise<T>) {
    return concurrency.run(userId, () => admitThenRun(userId, request, options, runSearch));
  }

  /** Admitted (at once when `admitNow` can answer, else by `admit`), then run. */
  function admitThenRun<T>(userId: string, request: SearchRequest, options: AdmitOptions, runSearch: (access: SearchAccess) => Promise<T>) {
    const access = admitNow(userId, options);
    if (access) return runAdmitted(userId, access, options, runSearch);
    return admit(userId, request, options).then((admitted) => runAdmitted(userId, admitted, options, runSearch));
  }

  function runAdmitted<T>(userId: string, access: SearchAccess & { charged: boolean; inMemory: boolean }, options: AdmitOptions, runSearch: (access: SearchAccess) => Promise<T>) {
    const chargeReason = access.charged ? options.charge : undefined;
    let running: Promise<T>;
    try {
      running = runSearch(access);
    } catch (error) {
      running = Promise.reject(error as Error);
    }
    return running.then(
      (result) => {
        if (access.inMemory) meter.release(userId, { count: true, charge: chargeReason, keepCharge: true });
        return { access, result };
      },
      async (error: unknown) => {
        // A query the engine refuses (it checks it as `checkCountingCost` does) is neither counted nor charged,
        // unless refused for its cost: the engine worked to refuse it, so it counts toward the
        // daily limit like a search (issue 25, item 3), and is not charged. Any other failure
        // (time budget) stays counted and gives the credit back. On the in-memory path the usage
        // is still held, so nothing was written yet; on the exact path the charge was written,
        // and is refunded with its ledger row.
        const refused = error instanceof EngineQueryError && !error.costly;
        if (access.inMemory) meter.release(userId, { count: !refused, charge: chargeReason, keepCharge: false });
        else if (chargeReason) await refundSearchCredit(db, userId, `${chargeReason}-failed`);
        return asRequestError(error);
      },
    );
  }

  /** The user behind an API key (by its hash); the account is read with it (one round trip) and kept briefly. */
  async function userIdForApiKeyHash(keyHash: string): Promise<string | undefined> {
    return (await meter.byApiKeyHash(keyHash))?.userId;
  }

  return {
    userIdForApiKeyHash,
    /** The user behind a key hash if known in process right now (no query). */
    knownApiKeyHash: (keyHash: string) => meter.knownKeyHash(keyHash),
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
      const { access, result } = await admitThen(userId, admission, {}, () => engine.getMany(ids));
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
