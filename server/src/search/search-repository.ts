import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema';

export async function getSearchAccount(db: Kysely<Database>, userId: string) {
  return db
    .selectFrom('users')
    .select([
      'search_subscribed_until',
      'elevated',
      'law_enforcement',
      'search_credits',
      'search_locked_until',
      'search_barred',
    ])
    .where('id', '=', userId)
    .where('closed_at', 'is', null)
    .executeTakeFirst();
}

/**
 * Counts one search for today and returns today's count. Only the count is kept, never
 * the query: that is the product's promise.
 */
export async function countSearch(db: Kysely<Database>, userId: string): Promise<number> {
  const row = await db
    .insertInto('search_counts')
    .values({ user_id: userId, day: sql<string>`current_date` as unknown as string, searches: 1 })
    .onConflict((oc) => oc.columns(['user_id', 'day']).doUpdateSet({ searches: sql`search_counts.searches + 1` }))
    .returning('searches')
    .executeTakeFirstOrThrow();
  return row.searches;
}

/** Locks search for a period; the lock that reaches `barAfter` bars the account. */
export async function lockSearch(db: Kysely<Database>, userId: string, hours: number, barAfter: number) {
  return db
    .updateTable('users')
    .set({
      search_locked_until: sql`now() + make_interval(hours => ${hours})`,
      search_lock_count: sql`search_lock_count + 1`,
      search_barred: sql`search_barred or search_lock_count + 1 >= ${barAfter}`,
    })
    .where('id', '=', userId)
    .where((eb) => eb.or([eb('search_locked_until', 'is', null), eb('search_locked_until', '<', sql<Date>`now()`)]))
    .returning(['search_locked_until', 'search_barred'])
    .executeTakeFirst();
}
