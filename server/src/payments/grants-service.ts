/**
 * What a purchase gives and a refund takes back, applied inside the caller's transaction
 * (the payment's row lock is held by the caller, so a payment is granted once). Credits go
 * through the append-only ledger with the grant's source as its unique reference: the same
 * source can never be credited twice, whatever the caller does. Payments, event codes and the
 * operator's grants all come through here; the SQL is in grants-repository.ts.
 */
import type { Plan } from '../db/schema';
import { INTERVAL_DAYS, productDef, type CreditKind } from '../common/catalogue';
import * as repo from './grants-repository';
import type { Trx } from './grants-repository';

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
  const balance = await repo.lockCreditBalance(trx, userId, kind);
  const applied = Math.max(delta, -balance);
  await repo.writeCreditBalance(trx, { userId, kind, delta: applied, after: balance + applied, reason, reference });
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
  const current = await repo.lockAccessEnd(trx, grant.userId, plan);
  const from = Math.max(Date.now(), current?.getTime() ?? 0);
  const end = new Date(from + days * 86_400_000);
  await repo.setAccessEnd(trx, grant.userId, plan, end, recurring);
  return repo.upsertPlanSubscription(trx, {
    userId: grant.userId,
    plan,
    interval,
    recurring,
    periodEnd: end,
    provider: grant.provider ?? null,
    providerSubscriptionId: grant.providerSubscriptionId ?? null,
  });
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
    const subscriptionId = await repo.insertDomainSubscription(trx, {
      userId: grant.userId,
      interval: product.interval,
      recurring: product.recurring,
      quantity: grant.quantity,
      periodEnd: new Date(Date.now() + days * 86_400_000),
      provider: grant.provider ?? null,
      providerSubscriptionId: grant.providerSubscriptionId ?? null,
    });
    return { subscriptionId };
  }
  // A one-time plan buys `quantity` periods; a recurring one a period at a time.
  const periods = product.recurring ? 1 : grant.quantity;
  return { subscriptionId: await extendPlan(trx, grant, product.plan, product.interval, product.recurring, days * periods) };
}

/** A renewal charged by the provider: one more period from max(now, end). False when the subscription is unknown. */
export async function renewSubscription(trx: Trx, provider: string, providerSubscriptionId: string): Promise<boolean> {
  const sub = await repo.lockProviderSubscription(trx, provider, providerSubscriptionId);
  if (!sub) return false;
  const end = new Date(Math.max(Date.now(), sub.period_end.getTime()) + INTERVAL_DAYS[sub.billing_interval] * 86_400_000);
  await repo.setSubscriptionEnd(trx, sub.id, end);
  if (sub.plan !== 'domain') await repo.setAccessEnd(trx, sub.user_id, sub.plan, end);
  return true;
}

/** The provider stopped renewing (a cancel took effect or was scheduled): access runs to the period's end. */
export async function stopRenewing(trx: Trx, provider: string, providerSubscriptionId: string): Promise<boolean> {
  const sub = await repo.markNotRenewing(trx, provider, providerSubscriptionId);
  if (!sub) return false;
  if (sub.plan === 'search') await repo.clearSearchRecurring(trx, sub.user_id);
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
  if (grant.subscriptionId) await repo.endSubscription(trx, grant.subscriptionId, now);
  if (product.plan !== 'domain') await repo.setAccessEnd(trx, grant.userId, product.plan, now, false);
}
