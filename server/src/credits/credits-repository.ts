import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema';

/** Gives back a credit charged for a search that then failed. */
export async function refundSearchCredit(db: Kysely<Database>, userId: string, reason: string): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const row = await trx
      .updateTable('users')
      .set({ search_credits: sql`search_credits + 1` })
      .where('id', '=', userId)
      .returning('search_credits')
      .executeTakeFirstOrThrow();
    await trx
      .insertInto('credit_ledger')
      .values({ user_id: userId, kind: 'search', delta: 1, balance_after: row.search_credits, reason })
      .execute();
    return row.search_credits;
  });
}
