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
 * Counts one search for today and, when `charge` is set and today's count is within
 * `dailyLimit`, takes one search credit with its ledger row — all in one statement, so
 * it is atomic and costs one round trip. Only the count is kept, never the query: that
 * is the product's promise. `balance` is undefined when nothing was charged (no credit
 * left, over the limit, or `charge` off).
 */
export async function countAndCharge(
  db: Kysely<Database>,
  userId: string,
  options: { charge: boolean; dailyLimit: number; reason: string },
): Promise<{ searches: number; balance: number | undefined }> {
  const { rows } = await sql<{ searches: number; balance: number | null }>`
    with counted as (
      insert into search_counts (user_id, day, searches) values (${userId}, current_date, 1)
      on conflict (user_id, day) do update set searches = search_counts.searches + 1
      returning searches
    ),
    charged as (
      update users set search_credits = search_credits - 1
      where id = ${userId} and ${options.charge} and search_credits >= 1
        and (select searches from counted) <= ${options.dailyLimit}
      returning search_credits
    ),
    ledger as (
      insert into credit_ledger (user_id, kind, delta, balance_after, reason)
      select ${userId}, 'search', -1, search_credits, ${options.reason} from charged
    )
    select (select searches from counted) as searches, (select search_credits from charged) as balance
  `.execute(db);
  const row = rows[0]!;
  return { searches: row.searches, balance: row.balance ?? undefined };
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
