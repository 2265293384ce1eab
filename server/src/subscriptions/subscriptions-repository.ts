import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import type { DomainPlan, DomainSlot } from '../common/subscriptions';

type Db = Kysely<Database>;

/** The account columns the subscriptions summary is made of (an open account only). */
export async function getSummaryAccount(db: Db, userId: string) {
  return db
    .selectFrom('users')
    .select([
      'email',
      'elevated',
      'search_subscribed_until',
      'search_is_recurring',
      'search_credits',
      'whois_credits',
      'api_key_hint',
      'is_enterprise',
      'enterprise_until',
    ])
    .where('id', '=', userId)
    .where('closed_at', 'is', null)
    .executeTakeFirst();
}


/** The user's latest plan row of a kind (search or enterprise), if they ever bought one. */
export async function getPlanSubscription(db: Db, userId: string, plan: 'search' | 'enterprise') {
  return db
    .selectFrom('subscriptions')
    .select(['recurring', 'period_end', 'cancel_requested_at'])
    .where('user_id', '=', userId)
    .where('plan', '=', plan)
    .orderBy('period_end', 'desc')
    .executeTakeFirst();
}

/** The user's domain subscriptions whose period has not ended, oldest purchase first. */
export async function listCurrentDomainPlans(db: Db, userId: string, now: Date): Promise<DomainPlan[]> {
  const rows = await db
    .selectFrom('subscriptions')
    .select(['id', 'quantity', 'recurring', 'period_end', 'cancel_requested_at'])
    .where('user_id', '=', userId)
    .where('plan', '=', 'domain')
    .where('period_end', '>', now)
    .orderBy('created_at')
    .execute();
  return rows.map((row) => ({
    id: row.id,
    domains: row.quantity,
    auto_renew: row.recurring,
    expiry: row.period_end.toISOString(),
    cancel_requested: row.recurring && row.cancel_requested_at !== null,
  }));
}

/** The monitored-domain slots of the user's domain subscriptions whose period has not ended, oldest purchase first. */
export async function listCurrentDomainSlots(db: Db, userId: string, now: Date): Promise<DomainSlot[]> {
  return db
    .selectFrom('subscription_domains as sd')
    .innerJoin('subscriptions as s', 's.id', 'sd.subscription_id')
    .select(['sd.id', 'sd.domain'])
    .where('s.user_id', '=', userId)
    .where('sd.user_id', '=', userId)
    .where('s.plan', '=', 'domain')
    .where('s.period_end', '>', now)
    .orderBy('s.created_at')
    .orderBy('sd.id')
    .execute();
}

/** The slots of one of the user's domain subscriptions; undefined when it is not theirs (or not a domain subscription). */
export async function listDomainSlotsOf(db: Db, userId: string, subscriptionId: string): Promise<DomainSlot[] | undefined> {
  const subscription = await db
    .selectFrom('subscriptions')
    .select('id')
    .where('id', '=', subscriptionId)
    .where('user_id', '=', userId)
    .where('plan', '=', 'domain')
    .executeTakeFirst();
  if (!subscription) return undefined;
  return db
    .selectFrom('subscription_domains')
    .select(['id', 'domain'])
    .where('subscription_id', '=', subscriptionId)
    .where('user_id', '=', userId)
    .orderBy('id')
    .execute();
}
