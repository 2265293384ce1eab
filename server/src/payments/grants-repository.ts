/**
 * The SQL of grants (grants-service.ts holds what a purchase gives and a refund takes back).
 * Every function runs in the caller's transaction; the locking reads (`for update`) keep
 * concurrent grants to one account in order.
 */
import { sql, type Kysely, type Transaction } from 'kysely';
import type { BillingInterval, Database } from '../db/schema';
import type { CreditKind } from '../common/catalogue';

export type Trx = Transaction<Database> | Kysely<Database>;

const CREDIT_COLUMN = { search: 'search_credits', whois: 'whois_credits' } as const;
/** The users column that carries a plan's access, read by search and monitoring. */
const ACCESS_COLUMN = { search: 'search_subscribed_until', enterprise: 'enterprise_until' } as const;

export type AccessPlan = keyof typeof ACCESS_COLUMN;

/** The credit balance of `kind`, locked for the rest of the transaction. */
export async function lockCreditBalance(trx: Trx, userId: string, kind: CreditKind): Promise<number> {
  const column = CREDIT_COLUMN[kind];
  const before = await trx.selectFrom('users').select(column).where('id', '=', userId).forUpdate().executeTakeFirstOrThrow();
  return (before as Record<string, number>)[column]!;
}

/** Sets the balance and appends its ledger row (`reference` is unique in the ledger). */
export async function writeCreditBalance(
  trx: Trx,
  entry: { userId: string; kind: CreditKind; delta: number; after: number; reason: string; reference: string },
): Promise<void> {
  await trx.updateTable('users').set({ [CREDIT_COLUMN[entry.kind]]: entry.after }).where('id', '=', entry.userId).execute();
  await trx
    .insertInto('credit_ledger')
    .values({ user_id: entry.userId, kind: entry.kind, delta: entry.delta, balance_after: entry.after, reason: entry.reason, reference: entry.reference })
    .execute();
}

/** The end of the account's access to `plan` (null: none), locked for the rest of the transaction. */
export async function lockAccessEnd(trx: Trx, userId: string, plan: AccessPlan): Promise<Date | null> {
  const column = ACCESS_COLUMN[plan];
  const user = await trx.selectFrom('users').select(column).where('id', '=', userId).forUpdate().executeTakeFirstOrThrow();
  return (user as Record<string, Date | null>)[column] ?? null;
}

/** Sets the end of the account's access to `plan`; `recurring` (search only) when given. */
export async function setAccessEnd(trx: Trx, userId: string, plan: AccessPlan, end: Date, recurring?: boolean): Promise<void> {
  await trx
    .updateTable('users')
    .set({ [ACCESS_COLUMN[plan]]: end, ...(plan === 'search' && recurring !== undefined ? { search_is_recurring: recurring } : {}) })
    .where('id', '=', userId)
    .execute();
}

export interface PlanSubscription {
  userId: string;
  plan: AccessPlan;
  interval: BillingInterval;
  recurring: boolean;
  periodEnd: Date;
  provider: string | null;
  providerSubscriptionId: string | null;
}

/** The account's one search or enterprise subscription, created or replaced; its id. */
export async function upsertPlanSubscription(trx: Trx, s: PlanSubscription): Promise<string> {
  const row = await trx
    .insertInto('subscriptions')
    .values({
      user_id: s.userId,
      plan: s.plan,
      billing_interval: s.interval,
      recurring: s.recurring,
      period_end: s.periodEnd,
      provider: s.provider,
      provider_subscription_id: s.providerSubscriptionId,
    })
    .onConflict((oc) =>
      oc.expression(sql`user_id, plan`).where('plan', 'in', ['search', 'enterprise']).doUpdateSet({
        billing_interval: s.interval,
        recurring: s.recurring,
        period_end: s.periodEnd,
        provider: s.provider,
        provider_subscription_id: s.providerSubscriptionId,
        cancel_requested_at: null,
        updated_at: new Date(),
      }),
    )
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** A domain subscription with `quantity` empty domain slots; its id. */
export async function insertDomainSubscription(
  trx: Trx,
  s: Omit<PlanSubscription, 'plan'> & { quantity: number },
): Promise<string> {
  const row = await trx
    .insertInto('subscriptions')
    .values({
      user_id: s.userId,
      plan: 'domain',
      billing_interval: s.interval,
      recurring: s.recurring,
      quantity: s.quantity,
      period_end: s.periodEnd,
      provider: s.provider,
      provider_subscription_id: s.providerSubscriptionId,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await trx
    .insertInto('subscription_domains')
    .values(Array.from({ length: s.quantity }, () => ({ subscription_id: row.id, user_id: s.userId, domain: null })))
    .execute();
  return row.id;
}

/** The provider's subscription, locked for the rest of the transaction. */
export async function lockProviderSubscription(trx: Trx, provider: string, providerSubscriptionId: string) {
  return trx
    .selectFrom('subscriptions')
    .selectAll()
    .where('provider', '=', provider)
    .where('provider_subscription_id', '=', providerSubscriptionId)
    .forUpdate()
    .executeTakeFirst();
}

export async function setSubscriptionEnd(trx: Trx, subscriptionId: string, end: Date): Promise<void> {
  await trx.updateTable('subscriptions').set({ period_end: end, updated_at: new Date() }).where('id', '=', subscriptionId).execute();
}

/** Ends the subscription now and stops it renewing. */
export async function endSubscription(trx: Trx, subscriptionId: string, now: Date): Promise<void> {
  await trx.updateTable('subscriptions').set({ period_end: now, recurring: false, updated_at: now }).where('id', '=', subscriptionId).execute();
}

/** Marks the provider's subscription as not renewing; its account and plan, or undefined when unknown. */
export async function markNotRenewing(trx: Trx, provider: string, providerSubscriptionId: string) {
  return trx
    .updateTable('subscriptions')
    .set({ recurring: false, updated_at: new Date() })
    .where('provider', '=', provider)
    .where('provider_subscription_id', '=', providerSubscriptionId)
    .returning(['user_id', 'plan'])
    .executeTakeFirst();
}

export async function clearSearchRecurring(trx: Trx, userId: string): Promise<void> {
  await trx.updateTable('users').set({ search_is_recurring: false }).where('id', '=', userId).execute();
}
