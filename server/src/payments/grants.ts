/**
 * What a purchase gives and a refund takes back, applied inside the caller's transaction
 * (the payment's row lock is held by the caller, so a payment is granted once). Credits go
 * through the append-only ledger with the grant's source as its unique reference: the same
 * source can never be credited twice, whatever the caller does.
 */
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database, Plan } from '../db/schema';
import { INTERVAL_DAYS, productDef, type CreditKind } from '../common/catalogue';

type Trx = Transaction<Database> | Kysely<Database>;

const CREDIT_COLUMN = { search: 'search_credits', whois: 'whois_credits' } as const;
/** The users column that carries a plan's access, read by search and monitoring. */
const ACCESS_COLUMN = { search: 'search_subscribed_until', enterprise: 'enterprise_until' } as const;

export interface Grant {
  userId: string;
  sku: string;
  quantity: number;
  /** Unique per grant, e.g. `payment:<id>` or `event-code:<code>:<user>`. */
  source: string;
  reason: string;
  provider?: string | null;
  providerSubscriptionId?: string | null;
}

/** Adds `delta` (may be negative) to a credit balance, never below zero; one ledger row. Returns the change made. */
async function moveCredits(trx: Trx, userId: string, kind: CreditKind, delta: number, reason: string, reference: string): Promise<number> {
  const column = CREDIT_COLUMN[kind];
  const before = await trx.selectFrom('users').select(column).where('id', '=', userId).forUpdate().executeTakeFirstOrThrow();
  const balance = (before as Record<string, number>)[column]!;
  const applied = Math.max(delta, -balance);
  const after = balance + applied;
  await trx.updateTable('users').set({ [column]: after }).where('id', '=', userId).execute();
  await trx.insertInto('credit_ledger').values({ user_id: userId, kind, delta: applied, balance_after: after, reason, reference }).execute();
  return applied;
}

/** Extends a plan's end by `days` from max(now, current end); returns the subscription's id. */
async function extendPlan(
  trx: Trx,
  grant: Grant,
  plan: Exclude<Plan, 'domain'>,
  interval: keyof typeof INTERVAL_DAYS,
  recurring: boolean,
  days: number,
): Promise<string> {
  const column = ACCESS_COLUMN[plan];
  const user = await trx.selectFrom('users').select(column).where('id', '=', grant.userId).forUpdate().executeTakeFirstOrThrow();
  const current = (user as Record<string, Date | null>)[column];
  const from = Math.max(Date.now(), current?.getTime() ?? 0);
  const end = new Date(from + days * 86_400_000);
  await trx
    .updateTable('users')
    .set({ [column]: end, ...(plan === 'search' ? { search_is_recurring: recurring } : {}) })
    .where('id', '=', grant.userId)
    .execute();
  const row = await trx
    .insertInto('subscriptions')
    .values({
      user_id: grant.userId,
      plan,
      billing_interval: interval,
      recurring,
      period_end: end,
      provider: grant.provider ?? null,
      provider_subscription_id: grant.providerSubscriptionId ?? null,
    })
    .onConflict((oc) =>
      oc.expression(sql`user_id, plan`).where('plan', 'in', ['search', 'enterprise']).doUpdateSet({
        billing_interval: interval,
        recurring,
        period_end: end,
        provider: grant.provider ?? null,
        provider_subscription_id: grant.providerSubscriptionId ?? null,
        cancel_requested_at: null,
        updated_at: new Date(),
      }),
    )
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** Applies a purchase. Returns the subscription it created or extended, if any. */
export async function grantPurchase(trx: Trx, grant: Grant): Promise<{ subscriptionId?: string }> {
  const product = productDef(grant.sku);
  if (!product) throw new Error(`unknown SKU ${grant.sku}`);
  if (product.kind === 'credits') {
    await moveCredits(trx, grant.userId, product.credit, grant.quantity, grant.reason, grant.source);
    return {};
  }
  const days = INTERVAL_DAYS[product.interval];
  if (product.plan === 'domain') {
    const row = await trx
      .insertInto('subscriptions')
      .values({
        user_id: grant.userId,
        plan: 'domain',
        billing_interval: product.interval,
        recurring: product.recurring,
        quantity: grant.quantity,
        period_end: new Date(Date.now() + days * 86_400_000),
        provider: grant.provider ?? null,
        provider_subscription_id: grant.providerSubscriptionId ?? null,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await trx
      .insertInto('subscription_domains')
      .values(Array.from({ length: grant.quantity }, () => ({ subscription_id: row.id, user_id: grant.userId, domain: null })))
      .execute();
    return { subscriptionId: row.id };
  }
  // A one-time plan buys `quantity` periods; a recurring one a period at a time.
  const periods = product.recurring ? 1 : grant.quantity;
  return { subscriptionId: await extendPlan(trx, grant, product.plan, product.interval, product.recurring, days * periods) };
}

/** A renewal charged by the provider: one more period from max(now, end). False when the subscription is unknown. */
export async function renewSubscription(trx: Trx, provider: string, providerSubscriptionId: string): Promise<boolean> {
  const sub = await trx
    .selectFrom('subscriptions')
    .selectAll()
    .where('provider', '=', provider)
    .where('provider_subscription_id', '=', providerSubscriptionId)
    .forUpdate()
    .executeTakeFirst();
  if (!sub) return false;
  const end = new Date(Math.max(Date.now(), sub.period_end.getTime()) + INTERVAL_DAYS[sub.billing_interval] * 86_400_000);
  await trx.updateTable('subscriptions').set({ period_end: end, updated_at: new Date() }).where('id', '=', sub.id).execute();
  if (sub.plan !== 'domain') {
    await trx.updateTable('users').set({ [ACCESS_COLUMN[sub.plan]]: end }).where('id', '=', sub.user_id).execute();
  }
  return true;
}

/** The provider stopped renewing (a cancel took effect or was scheduled): access runs to the period's end. */
export async function stopRenewing(trx: Trx, provider: string, providerSubscriptionId: string): Promise<boolean> {
  const sub = await trx
    .updateTable('subscriptions')
    .set({ recurring: false, updated_at: new Date() })
    .where('provider', '=', provider)
    .where('provider_subscription_id', '=', providerSubscriptionId)
    .returning(['user_id', 'plan'])
    .executeTakeFirst();
  if (!sub) return false;
  if (sub.plan === 'search') await trx.updateTable('users').set({ search_is_recurring: false }).where('id', '=', sub.user_id).execute();
  return true;
}

/**
 * A refund: credits are taken back (never below zero), a plan's access ends now and it stops
 * renewing. `subscriptionId` is what the purchase's grant returned.
 */
export async function revokePurchase(trx: Trx, grant: Grant & { subscriptionId?: string | null }): Promise<void> {
  const product = productDef(grant.sku);
  if (!product) throw new Error(`unknown SKU ${grant.sku}`);
  if (product.kind === 'credits') {
    await moveCredits(trx, grant.userId, product.credit, -grant.quantity, grant.reason, grant.source);
    return;
  }
  const now = new Date();
  if (grant.subscriptionId) {
    await trx.updateTable('subscriptions').set({ period_end: now, recurring: false, updated_at: now }).where('id', '=', grant.subscriptionId).execute();
  }
  if (product.plan !== 'domain') {
    await trx
      .updateTable('users')
      .set({ [ACCESS_COLUMN[product.plan]]: now, ...(product.plan === 'search' ? { search_is_recurring: false } : {}) })
      .where('id', '=', grant.userId)
      .execute();
  }
}
