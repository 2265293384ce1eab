/**
 * An admitted search's ticket (admission.ts): settled once with the search's outcome, which
 * decides what of the count and the credit is kept.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import { Errors } from '../infra/errors';
import { EngineQueryError, EngineTimeoutError } from '../../../engine/index';
import { refundSearchCredit } from '../credits/credits-service';
import type { SearchAccess } from './admission-rules';
import type { SearchMeter } from './search-meter';

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

/** A ticket whose count and charge the meter holds in memory until it is settled. */
export function heldTicket(meter: SearchMeter, userId: string, access: SearchAccess, chargeReason: string | undefined): AdmissionTicket {
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
export function writtenTicket(db: Kysely<Database>, userId: string, access: SearchAccess, chargeReason: string | undefined): AdmissionTicket {
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
