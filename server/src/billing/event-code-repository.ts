import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from '../db/schema';

export interface EventCodeGrant {
  sku: string;
  quantity: number;
}

/** Stores a new code; false when the code exists already. */
export async function insertEventCode(
  db: Kysely<Database>,
  code: { code: string; grants: EventCodeGrant[]; maxUses: number; expiresAt: Date | null },
): Promise<boolean> {
  const row = await db
    .insertInto('event_codes')
    .values({ code: code.code, grants: JSON.stringify(code.grants), max_uses: code.maxUses, expires_at: code.expiresAt })
    .onConflict((oc) => oc.column('code').doNothing())
    .returning('code')
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Takes one use of a code that exists, has uses left and has not expired, in one statement:
 * concurrent redemptions queue on the row lock and re-check `uses < max_uses` after the
 * winner commits. Returns the grants, or undefined when there is nothing to take.
 */
export async function takeUse(trx: Transaction<Database>, code: string): Promise<EventCodeGrant[] | undefined> {
  const row = await trx
    .updateTable('event_codes')
    .set((eb) => ({ uses: eb('uses', '+', 1) }))
    .where('code', '=', code)
    .where((eb) => eb('uses', '<', eb.ref('max_uses')))
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', sql<Date>`now()`)]))
    .returning('grants')
    .executeTakeFirst();
  return row?.grants;
}

/** Records that the user redeemed the code; false when they already had (primary key code + user). */
export async function recordRedemption(trx: Transaction<Database>, code: string, userId: string): Promise<boolean> {
  const row = await trx
    .insertInto('event_code_redemptions')
    .values({ code, user_id: userId })
    .onConflict((oc) => oc.columns(['code', 'user_id']).doNothing())
    .returning('code')
    .executeTakeFirst();
  return row !== undefined;
}
