/**
 * Credits as other features use them: search gives back the credit of a search that failed
 * after it was charged. Each change is one ledger row with the balance after it
 * (credits-repository.ts holds the SQL).
 */
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import * as repo from './credits-repository';

/** Gives back a credit charged for a search that then failed; the new balance. */
export function refundSearchCredit(db: Kysely<Database>, userId: string, reason: string): Promise<number> {
  return repo.refundSearchCredit(db, userId, reason);
}
