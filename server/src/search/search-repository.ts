import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema';

/** What admitting a search needs to know about an account, with today's search count. */
export interface SearchAccountRow {
  id: string;
  api_key_hash: string | null;
  search_subscribed_until: Date | null;
  elevated: boolean;
  law_enforcement: boolean;
  search_credits: number;
  search_locked_until: Date | null;
  search_barred: boolean;
  searches_today: number;
}

function searchAccounts(db: Kysely<Database>) {
  return db
    .selectFrom('users')
    .select([
      'id',
      'api_key_hash',
      'search_subscribed_until',
      'elevated',
      'law_enforcement',
      'search_credits',
      'search_locked_until',
      'search_barred',
      sql<number>`coalesce((select searches from search_counts c where c.user_id = users.id and c.day = current_date), 0)`.as('searches_today'),
    ])
    .where('closed_at', 'is', null)
    // A suspended account's API key opens nothing (its snapshot goes within SNAPSHOT_MAX_AGE_MS).
    .where('suspended_at', 'is', null);
}

export async function getSearchAccount(db: Kysely<Database>, userId: string): Promise<SearchAccountRow | undefined> {
  return searchAccounts(db).where('id', '=', userId).executeTakeFirst();
}

/** The API key and the account it opens, in one round trip (through the key hash's unique index). */
export async function findSearchAccountByApiKeyHash(db: Kysely<Database>, keyHash: string): Promise<SearchAccountRow | undefined> {
  return searchAccounts(db).where('api_key_hash', '=', keyHash).executeTakeFirst();
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

/** Searches counted and credits charged in process for one account since the last write. */
export interface PendingUsage {
  userId: string;
  searches: number;
  /** Credits charged, by ledger reason. */
  charges: Map<string, number>;
}

/**
 * Writes the usage counted in process for many accounts at once and reads every listed
 * account back (with usage or not), in one statement: today's counts are added, the
 * credits are taken with one ledger row per charged search, and the fresh account rows
 * are returned (closed accounts are left out). A charge never takes a balance below zero:
 * what the balance cannot cover is not charged, in the customer's favour, and comes back
 * as `uncharged`. Rows are locked in one order (search counts by user id, then users by
 * id), as the single-search statement does, so concurrent writers cannot deadlock.
 */
export async function writeSearchUsage(db: Kysely<Database>, usage: PendingUsage[]): Promise<Array<SearchAccountRow & { uncharged: number }>> {
  const sorted = [...usage].sort((a, b) => (a.userId < b.userId ? -1 : a.userId > b.userId ? 1 : 0));
  const total = (u: PendingUsage) => [...u.charges.values()].reduce((sum, n) => sum + n, 0);
  const reasons = sorted.flatMap((u) => [...u.charges].filter(([, n]) => n > 0).map(([reason, n]) => ({ userId: u.userId, reason, n })));
  const { rows } = await sql<SearchAccountRow & { uncharged: number }>`
    with usage as (
      select * from unnest(${sorted.map((u) => u.userId)}::uuid[], ${sorted.map((u) => u.searches)}::int[], ${sorted.map(total)}::int[])
        as u(user_id, searches, charges)
    ),
    charge_reasons as (
      select user_id, reason, n, sum(n) over (partition by user_id order by reason) - n as offset_before
      from unnest(${reasons.map((r) => r.userId)}::uuid[], ${reasons.map((r) => r.reason)}::text[], ${reasons.map((r) => r.n)}::int[])
        as c(user_id, reason, n)
    ),
    counted as (
      insert into search_counts (user_id, day, searches)
      select user_id, current_date, searches from usage where searches > 0
      on conflict (user_id, day) do update set searches = search_counts.searches + excluded.searches
      returning user_id, searches
    ),
    locked as (
      -- The uncorrelated count makes the counts above be written before any user row is locked.
      select id, search_credits from users
      where id in (select user_id from usage where charges > 0) and (select count(*) from counted) >= 0
      order by id
      for update
    ),
    charged as (
      update users set search_credits = users.search_credits - least(usage.charges, locked.search_credits)
      from usage, locked
      where users.id = usage.user_id and locked.id = usage.user_id
      returning users.id, locked.search_credits as balance_before, users.search_credits as balance_after, usage.charges
    ),
    ledger as (
      insert into credit_ledger (user_id, kind, delta, balance_after, reason)
      select charged.id, 'search', -1, charged.balance_before - (r.offset_before + g), r.reason
      from charged
      join charge_reasons r on r.user_id = charged.id
      cross join lateral generate_series(1, r.n) g
      where r.offset_before + g <= charged.balance_before - charged.balance_after
    )
    select users.id, users.api_key_hash, users.search_subscribed_until, users.elevated, users.law_enforcement,
      coalesce(charged.balance_after, users.search_credits) as search_credits,
      users.search_locked_until, users.search_barred,
      coalesce(counted.searches, (select searches from search_counts c where c.user_id = users.id and c.day = current_date), 0) as searches_today,
      coalesce(charged.charges - (charged.balance_before - charged.balance_after), 0) as uncharged
    from users
    left join charged on charged.id = users.id
    left join counted on counted.user_id = users.id
    where users.id in (select user_id from usage) and users.closed_at is null and users.suspended_at is null
  `.execute(db);
  return rows;
}
