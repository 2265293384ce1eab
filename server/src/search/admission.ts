/**
 * Search admission: whether an account may run one search now, what it sees, and what the
 * search costs it. `admit` decides and holds the search's count (and credit); the ticket it
 * returns is settled once with the search's outcome, which decides what is kept:
 *
 * | outcome | counted | charged |
 * |---|---|---|
 * | answered | yes | yes (with a charge reason; elevated accounts never) |
 * | the query refused (syntax, paging, access) | no | no |
 * | the query refused for its cost (too large a regex) | yes | no |
 * | failed after it started (time budget) | yes | the credit goes back |

(On the exact path the count is written before the search, so it stays whatever happens.)
 *
 * Two paths. An account well within its limits whose snapshot is fresh is admitted in
 * memory, without a promise (the hot path of every search): the count and the charge are
 * held by the meter and kept or dropped at `settle` (search-meter.ts). Near a limit, locked
 * or unknown in process, the exact path checks the query first (so that a bad query is
 * refused as such and costs nothing), then counts and charges in one database statement,
 * and a failure gives the credit back with its ledger row. On this path the engine reads the
 * query twice (the check, then the search); on the in-memory path once.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import type { Config } from '../config';
import { AppError, Errors } from '../infra/errors';
import { EngineQueryError, EngineTimeoutError, type Engine, type FieldName, type SearchMode } from '../../../engine/index';
import { refundSearchCredit } from '../credits/credits-service';
import * as repo from './search-repository';
import type { MeteredAccount, SearchMeter } from './search-meter';

export interface SearchAccess {
  subscribed: boolean;
  lawEnforcement: boolean;
  elevated: boolean;
  credits: number;
}

export interface AdmitOptions {
  /** The ledger reason of the credit the search takes; without it, no credit moves. */
  charge?: string;
  /** Refused (401) without a subscription: the public API. */
  requireSubscription?: boolean;
}

export type SearchRequest = { query: string; type: FieldName | 'all'; mode: SearchMode; page: number; size: number; dedup: boolean; maxWindow?: number };

/** An admitted search. `settle` is called once, with the search's outcome. */
export interface AdmissionTicket {
  readonly access: SearchAccess;
  /** Keeps or gives back what `admit` took, by the outcome; resolves with its result, or rejects with the request error it becomes. */
  settle<T>(outcome: Promise<T>): Promise<T>;
}

/** The engine's refusal of a query, or a search past its budget, becomes a 400 with its message; anything else is rethrown. */
export function asRequestError(error: unknown): never {
  if (error instanceof EngineQueryError && error.code === 'subscription_required') throw Errors.forbidden(error.message);
  if (error instanceof EngineQueryError) throw Errors.badRequest(error.message);
  if (error instanceof EngineTimeoutError) throw Errors.searchTimeout(error.message);
  throw error;
}

function isLocked(account: { search_locked_until: Date | null }): boolean {
  return account.search_locked_until !== null && account.search_locked_until.getTime() > Date.now();
}

type Decision = { refusal: AppError } | { access: Omit<SearchAccess, 'credits'>; charged: boolean };

/**
 * What an account's snapshot allows a search, before anything is counted: its refusal
 * (suspended, locked, or not subscribed when required), else its access and whether it is
 * charged (with a charge reason; elevated accounts are not).
 */
function decide(snapshot: MeteredAccount['snapshot'], options: AdmitOptions): Decision {
  if (snapshot.search_barred) return { refusal: Errors.forbidden('Search access suspended: too many searches. Free monitoring stays available.') };
  if (isLocked(snapshot)) return { refusal: Errors.tooManyRequests(snapshot.search_locked_until!.getTime() - Date.now()) };
  const until = snapshot.search_subscribed_until;
  const subscribed = snapshot.elevated || (until !== null && until.getTime() > Date.now());
  if (options.requireSubscription && !subscribed) return { refusal: Errors.unauthorized('A search subscription and API credits are required') };
  const charged = Boolean(options.charge) && !snapshot.elevated;
  return { access: { subscribed, lawEnforcement: snapshot.law_enforcement, elevated: snapshot.elevated }, charged };
}

export function createAdmission(deps: { db: Kysely<Database>; engine: Engine; config: Config; meter: SearchMeter }) {
  const { db, engine, config, meter } = deps;

  /** A ticket whose count and charge the meter holds in memory until it is settled. */
  function heldTicket(userId: string, access: SearchAccess, chargeReason: string | undefined): AdmissionTicket {
    return {
      access,
      settle: (outcome) =>
        outcome.then(
          (result) => {
            meter.release(userId, { count: true, charge: chargeReason, keepCharge: true });
            return result;
          },
          (error: unknown) => {
            // A refused query leaves nothing; one refused for its cost counts (the engine
            // worked to refuse it); any other failure counts and keeps no credit.
            const refused = error instanceof EngineQueryError && !error.costly;
            meter.release(userId, { count: !refused, charge: chargeReason, keepCharge: false });
            return asRequestError(error);
          },
        ),
    };
  }

  /** A ticket whose count and charge were written: a failure refunds the credit with its ledger row. */
  function writtenTicket(userId: string, access: SearchAccess, chargeReason: string | undefined): AdmissionTicket {
    return {
      access,
      settle: (outcome) =>
        outcome.catch(async (error: unknown) => {
          // The count stays written; the credit goes back (a failure after the start, such as
          // the time budget: the query itself was checked before it was counted).
          if (chargeReason) await refundSearchCredit(db, userId, `${chargeReason}-failed`);
          return asRequestError(error);
        }),
    };
  }

  /** The query's own checks, as the search makes them: a refusal for its cost is returned (it is counted first), any other thrown. */
  async function checkQuery(request: SearchRequest & { oneTerm?: boolean }): Promise<EngineQueryError | undefined> {
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

  /** The exact path: the query checked, then one statement counts (and charges) against the database. */
  async function admitExact(userId: string, request: SearchRequest, options: AdmitOptions): Promise<AdmissionTicket> {
    let account = await meter.account(userId);
    // A lock or bar is checked again at the source before refusing: it may have been lifted.
    if (account && (account.snapshot.search_barred || isLocked(account.snapshot))) account = await meter.account(userId, { reread: true });
    if (!account) return refuse(request, Errors.unauthorized());
    const decided = decide(account.snapshot, options);
    if ('refusal' in decided) return refuse(request, decided.refusal);
    const chargeReason = decided.charged ? options.charge : undefined;
    // Near no limit after all (the snapshot was only stale): held in memory like the hot path.
    if (meter.tryCount(account, chargeReason)) return heldTicket(userId, { ...decided.access, credits: meter.balance(account) }, chargeReason);

    const costRefusal = await checkQuery({ ...request, oneTerm: !decided.access.subscribed });
    await meter.settle(account);
    const counted = await repo.countAndCharge(db, userId, { charge: chargeReason !== undefined && !costRefusal, dailyLimit: config.SEARCH_DAILY_LIMIT, reason: options.charge ?? '' });
    meter.noteExact(account, counted);
    if (counted.searches > config.SEARCH_DAILY_LIMIT) {
      const locked = await repo.lockSearch(db, userId, config.SEARCH_LOCK_HOURS, config.SEARCH_BAR_AFTER_LOCKS);
      meter.forget(userId);
      throw Errors.tooManyRequests(locked?.search_locked_until ? locked.search_locked_until.getTime() - Date.now() : config.SEARCH_LOCK_HOURS * 3_600_000);
    }
    if (costRefusal) asRequestError(costRefusal);
    if (chargeReason && counted.balance === undefined) throw new AppError(403, 'INSUFFICIENT_CREDITS', 'Insufficient Credits');
    return writtenTicket(userId, { ...decided.access, credits: counted.balance ?? meter.balance(account) }, chargeReason);
  }

  /**
   * Admits one search of the account, or refuses it (a bad query as such, then access,
   * limits and credits). A ticket at once, without a promise, when the account's answer is
   * known in process (a fresh snapshot, well within its limits); else a promise of one.
   */
  function admit(userId: string, request: SearchRequest, options: AdmitOptions = {}): AdmissionTicket | Promise<AdmissionTicket> {
    const account = meter.freshAccount(userId);
    if (account) {
      const decided = decide(account.snapshot, options);
      if (!('refusal' in decided)) {
        const chargeReason = decided.charged ? options.charge : undefined;
        if (meter.tryCount(account, chargeReason)) return heldTicket(userId, { ...decided.access, credits: meter.balance(account) }, chargeReason);
      }
    }
    return admitExact(userId, request, options);
  }

  return { admit };
}

export type Admission = ReturnType<typeof createAdmission>;
