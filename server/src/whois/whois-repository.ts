/**
 * WHOIS credits (holds) and the answer cache (docs/whois.md "Credits").
 * The query is never stored with a hold or a ledger row: only the tool and what it cost.
 */
import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema';
import type { WhoisTool } from '../common/whois-rules';

export interface Hold {
  id: string;
  /** The balance right after the credits were taken. */
  balance: number;
}

/**
 * Takes `cost` WHOIS credits, writes the ledger row and the hold, in one statement: the
 * `whois_credits >= cost` condition is checked under the row lock of the update, so
 * concurrent requests never spend more than the balance. `undefined` when the balance is
 * below the cost (nothing taken).
 */
export async function takeHold(db: Kysely<Database>, userId: string, tool: WhoisTool, cost: number): Promise<Hold | undefined> {
  const { rows } = await sql<{ id: string; balance: number }>`
    with charged as (
      update users set whois_credits = whois_credits - ${cost}
      where id = ${userId} and whois_credits >= ${cost}
      returning whois_credits
    ), hold as (
      insert into whois_holds (user_id, tool, cost)
      select ${userId}, ${tool}, ${cost} from charged
      returning id
    ), ledger as (
      insert into credit_ledger (user_id, kind, delta, balance_after, reason, reference)
      select ${userId}, 'whois', ${-cost}, charged.whois_credits, ${`whois:${tool}`}, hold.id::text from charged, hold
    )
    select hold.id, charged.whois_credits as balance from hold, charged
  `.execute(db);
  return rows[0];
}

/** The hold's request was answered: its credits stay spent. */
export async function captureHold(db: Kysely<Database>, holdId: string): Promise<void> {
  await db.updateTable('whois_holds').set({ status: 'captured', settled_at: sql`now()` }).where('id', '=', holdId).where('status', '=', 'held').execute();
}

const REFUND = (holds: ReturnType<typeof sql>) => sql<{ user_id: string; balance: number }>`
  with refunded as (
    update whois_holds set status = 'refunded', settled_at = now()
    where ${holds} and status = 'held'
    returning id, user_id, tool, cost
  ), per_user as (
    select user_id, sum(cost)::int as cost from refunded group by user_id
  ), credited as (
    update users set whois_credits = users.whois_credits + per_user.cost
    from per_user where users.id = per_user.user_id
    returning users.id, users.whois_credits
  ), ledger as (
    insert into credit_ledger (user_id, kind, delta, balance_after, reason, reference)
    select refunded.user_id, 'whois', refunded.cost, credited.whois_credits, 'whois-refund:' || refunded.tool, 'refund:' || refunded.id::text
    from refunded join credited on credited.id = refunded.user_id
  )
  select id as user_id, whois_credits as balance from credited
`;

/**
 * Gives the hold's credits back with a ledger row (reference `refund:<hold id>`; the
 * charge's row has the hold id: one row per kind and reference); the new balance, or `undefined` when
 * the hold was already settled (the sweeper got there first).
 */
export async function refundHold(db: Kysely<Database>, holdId: string): Promise<number | undefined> {
  const { rows } = await REFUND(sql`id = ${holdId}`).execute(db);
  return rows[0]?.balance;
}

/** Refunds holds left open longer than `minutes` (a process died mid-request); how many accounts. */
export async function refundStaleHolds(db: Kysely<Database>, minutes: number): Promise<number> {
  const { rows } = await REFUND(sql`created_at < now() - make_interval(mins => ${minutes})`).execute(db);
  return rows.length;
}

/** Settled holds older than `days` and expired cache rows are of no further use. */
export async function purgeOld(db: Kysely<Database>, days: number): Promise<void> {
  await db
    .deleteFrom('whois_holds')
    .where('status', '<>', 'held')
    .where('created_at', '<', sql<Date>`now() - make_interval(days => ${days})`)
    .execute();
  await db.deleteFrom('whois_cache').where('expires_at', '<', sql<Date>`now()`).execute();
}

export async function whoisBalance(db: Kysely<Database>, userId: string): Promise<number | undefined> {
  const row = await db.selectFrom('users').select('whois_credits').where('id', '=', userId).executeTakeFirst();
  return row?.whois_credits;
}

export interface CachedAnswer {
  answer: unknown;
  source: string;
  fetchedAt: Date;
}

export async function readCache(db: Kysely<Database>, tool: WhoisTool, key: string): Promise<CachedAnswer | undefined> {
  const row = await db
    .selectFrom('whois_cache')
    .select(['answer', 'source', 'fetched_at'])
    .where('tool', '=', tool)
    .where('key', '=', key)
    .where('expires_at', '>', sql<Date>`now()`)
    .executeTakeFirst();
  return row && { answer: row.answer, source: row.source, fetchedAt: row.fetched_at };
}

export async function writeCache(db: Kysely<Database>, tool: WhoisTool, key: string, entry: CachedAnswer, ttlSeconds: number): Promise<void> {
  const values = {
    tool,
    key,
    answer: JSON.stringify(entry.answer),
    source: entry.source,
    fetched_at: entry.fetchedAt,
    expires_at: new Date(Date.now() + ttlSeconds * 1000),
  };
  await db
    .insertInto('whois_cache')
    .values(values)
    .onConflict((oc) => oc.columns(['tool', 'key']).doUpdateSet({ answer: values.answer, source: values.source, fetched_at: values.fetched_at, expires_at: values.expires_at }))
    .execute();
}
