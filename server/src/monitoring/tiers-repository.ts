/** The SQL behind monitoring's tiers (tiers.ts): the account's tier columns, its domain slots and what is in use. */
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from '../db/schema';

type Db = Kysely<Database> | Transaction<Database>;

/** Current domain slots: slots of the user's domain subscriptions whose period has not ended. */
export async function countDomainSlots(db: Db, userId: string): Promise<number> {
  const row = await db
    .selectFrom('subscription_domains as sd')
    .innerJoin('subscriptions as s', 's.id', 'sd.subscription_id')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('sd.user_id', '=', userId)
    .where('s.user_id', '=', userId)
    .where('s.plan', '=', 'domain')
    .where('s.period_end', '>', sql<Date>`now()`)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The open account's tier columns; `lock` takes its row FOR UPDATE. Undefined for a closed or unknown account. */
export async function readTierAccount(db: Db, userId: string, lock: boolean) {
  let query = db
    .selectFrom('users')
    .select(['elevated', 'is_enterprise', 'enterprise_until'])
    .where('id', '=', userId)
    .where('closed_at', 'is', null);
  if (lock) query = query.forUpdate();
  return query.executeTakeFirst();
}

/** Tasks (standard; domain ones of a current slot or none) and channels (email and SMS; webhooks) with a value. */
export async function countUsage(db: Db, userId: string) {
  const tasks = await db
    .selectFrom('monitor_tasks as t')
    .leftJoin('subscription_domains as sd', 'sd.id', 't.subscription_domain_id')
    .leftJoin('subscriptions as s', 's.id', 'sd.subscription_id')
    .select([
      sql<string>`count(*) filter (where t.kind <> 'domain')`.as('standard'),
      sql<string>`count(*) filter (where t.kind = 'domain' and (t.subscription_domain_id is null or s.period_end > now()))`.as('domain'),
    ])
    .where('t.user_id', '=', userId)
    .executeTakeFirstOrThrow();
  const channels = await db
    .selectFrom('notification_channels')
    .select([
      sql<string>`count(*) filter (where kind <> 'webhook' and value <> '')`.as('channels'),
      sql<string>`count(*) filter (where kind = 'webhook' and value <> '')`.as('webhooks'),
    ])
    .where('user_id', '=', userId)
    .executeTakeFirstOrThrow();
  return { tasks, channels };
}
