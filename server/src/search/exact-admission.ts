/**
 * The exact admission path (admission.ts): near a limit, locked, or unknown in process, the
 * query is checked first (so that a bad query is refused as such and costs nothing), then
 * one database statement counts and charges.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import type { Config } from '../config';
import { AppError, Errors } from '../infra/errors';
import { EngineQueryError, type Engine } from '../../../engine/index';
import * as repo from './search-repository';
import type { SearchMeter } from './search-meter';
import { decide, isLocked, type AdmitOptions, type SearchRequest } from './admission-rules';
import { asRequestError, heldTicket, writtenTicket, type AdmissionTicket } from './admission-tickets';

export interface AdmissionDeps {
  db: Kysely<Database>;
  engine: Engine;
  config: Config;
  meter: SearchMeter;
}

/** The query's own checks, as the search makes them: a refusal for its cost is returned (it is counted first), any other thrown. */
async function checkQuery(engine: Engine, request: SearchRequest & { oneTerm?: boolean }): Promise<EngineQueryError | undefined> {
  return engine.parse(request).then(
    () => undefined,
    (error: unknown) => (error instanceof EngineQueryError && error.costly ? error : asRequestError(error)),
  );
}

/** Refusals come after the query's checks, so a bad query is always answered as such. */
async function refuse(engine: Engine, request: SearchRequest, error: AppError): Promise<never> {
  await engine.parse(request).catch(asRequestError);
  throw error;
}

/** The exact path: the query checked, then one statement counts (and charges) against the database. */
export async function admitExact(deps: AdmissionDeps, userId: string, request: SearchRequest, options: AdmitOptions): Promise<AdmissionTicket> {
  const { db, engine, config, meter } = deps;
  let account = await meter.account(userId);
  // A lock or bar is checked again at the source before refusing: it may have been lifted.
  if (account && (account.snapshot.search_barred || isLocked(account.snapshot))) account = await meter.account(userId, { reread: true });
  if (!account) return refuse(engine, request, Errors.unauthorized());
  const decided = decide(account.snapshot, options);
  if ('refusal' in decided) return refuse(engine, request, decided.refusal);
  const chargeReason = decided.charged ? options.charge : undefined;
  // Near no limit after all (the snapshot was only stale): held in memory like the hot path.
  if (meter.tryCount(account, chargeReason)) return heldTicket(meter, userId, { ...decided.access, credits: meter.balance(account) }, chargeReason);

  const costRefusal = await checkQuery(engine, { ...request, oneTerm: !decided.access.subscribed });
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
  return writtenTicket(db, userId, { ...decided.access, credits: counted.balance ?? meter.balance(account) }, chargeReason);
}
