/**
 * A payment's life, shared by card and crypto providers: opened pending at checkout with an
 * amount the server computed, then moved only forward (pending → paid → refunded, or
 * pending → expired) by provider events, each move in the caller's transaction with the
 * payment's row locked. An event older than the last one applied changes nothing.
 */
import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../db/schema';
import { Errors } from '../infra/errors';
import { amountCents, productDef, productName, quantityProblem } from '../common/catalogue';
import { grantPurchase, renewSubscription, revokePurchase } from './grants-service';
import * as repo from './payments-repository';
import { findPriceCents } from './products-repository';
import type { Payment } from './payments-repository';

export type { Payment } from './payments-repository';
type Trx = Transaction<Database>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A payment id is a UUID: anything else names no payment and is not looked up. */
export function isPaymentId(value: unknown): value is string {
  return typeof value === 'string' && UUID.test(value);
}

/** Checks what may be bought and prices it; throws the 400/403 a buyer sees. */
export async function openPayment(
  db: Kysely<Database>,
  input: { userId: string; sku: string; quantity: number; method: 'card' | 'crypto'; provider: string; expiresAt?: Date | null },
): Promise<Payment> {
  const product = productDef(input.sku);
  if (!product) throw Errors.badRequest('Unknown product');
  const problem = quantityProblem(product, input.quantity);
  if (problem) throw Errors.badRequest(problem);
  const [price, user] = await Promise.all([findPriceCents(db, input.sku), repo.findBuyer(db, input.userId)]);
  if (price === undefined || !user) throw Errors.badRequest('Unknown product');
  if (product.kind === 'plan') {
    const enterprise = user.is_enterprise || (user.enterprise_until !== null && user.enterprise_until.getTime() > Date.now());
    if (product.plan === 'enterprise' && enterprise) throw Errors.forbidden('You are already subscribed');
    const recurringSearch = user.search_is_recurring && user.search_subscribed_until !== null && user.search_subscribed_until.getTime() > Date.now();
    if (product.plan === 'search' && recurringSearch) throw Errors.forbidden('You are already subscribed');
  }
  return repo.insertPayment(db, {
    user_id: input.userId,
    sku: input.sku,
    quantity: input.quantity,
    amount_cents: amountCents(price, input.quantity),
    method: input.method,
    provider: input.provider,
    expires_at: input.expiresAt ?? null,
  });
}

/** The payment, locked for the rest of `trx`. */
export async function lockPayment(trx: Trx, where: { id: string } | { provider: string; providerRef: string }): Promise<Payment | undefined> {
  return repo.lockPayment(trx, where);
}

/** True when the event is older than the last one applied to the payment (out of order: ignore). */
function isStale(payment: Payment, occurredAt: Date): boolean {
  return payment.last_event_at !== null && occurredAt.getTime() < payment.last_event_at.getTime();
}

/**
 * Paid: grants what was bought and writes the invoice (when the user keeps invoices).
 * Returns false when nothing changed (already paid, refunded, or a stale event).
 */
export async function markPaid(
  trx: Trx,
  payment: Payment,
  event: { occurredAt: Date; providerRef?: string | null; providerSubscriptionId?: string | null; extraInfo?: Record<string, string> | null },
): Promise<boolean> {
  // Paid after expiry (a late crypto payment) is still paid: the money arrived.
  if (payment.status !== 'pending' && payment.status !== 'expired') return false;
  const { subscriptionId } = await grantPurchase(trx, {
    userId: payment.user_id,
    sku: payment.sku,
    quantity: payment.quantity,
    source: `payment:${payment.id}`,
    reason: 'purchase',
    provider: payment.provider,
    providerSubscriptionId: event.providerSubscriptionId ?? null,
  });
  const now = new Date();
  await repo.updatePayment(trx, payment.id, {
    status: 'paid',
    paid_at: now,
    last_event_at: event.occurredAt,
    provider_ref: event.providerRef ?? payment.provider_ref,
    provider_subscription_id: event.providerSubscriptionId ?? payment.provider_subscription_id,
    details: JSON.stringify({ ...payment.details, ...(subscriptionId ? { subscription_id: subscriptionId } : {}) }),
  });
  await writeInvoice(trx, payment, event.extraInfo ?? null);
  // A refund that arrived before the payment it refunds (events out of order) applies now.
  if (payment.details.refund_received_at) await markRefunded(trx, { ...payment, status: 'paid', details: { ...payment.details, subscription_id: subscriptionId } }, event);
  return true;
}

/** The user's invoice for a paid payment, kept only while the user keeps invoices. */
async function writeInvoice(trx: Trx, payment: Payment, extraInfo: Record<string, string> | null): Promise<void> {
  const user = await repo.findInvoiceSettings(trx, payment.user_id);
  if (!user.store_invoices) return;
  // The user's billing details as they are now (the invoice keeps them), then the provider's.
  const extra = { ...(extraInfo ?? {}), ...(user.invoice_details ?? {}) };
  await repo.insertInvoice(trx, {
    id: payment.id,
    user_id: payment.user_id,
    payment_id: payment.id,
    item_type: productName(payment.sku),
    quantity: payment.quantity,
    amount_cents: payment.amount_cents,
    method: payment.method === 'card' ? 'Card' : `Crypto${payment.details.currency ? ` (${String(payment.details.currency).toUpperCase()})` : ''}`,
    extra_info: user.store_extra_invoice_data && Object.keys(extra).length > 0 ? JSON.stringify(extra) : null,
  });
}

/**
 * A renewal charge of a recurring subscription: a paid payment of its own (so it is in the
 * payment history and a refund of it can be matched) and one more period. Once per provider
 * transaction: a second event for the same charge changes nothing. False when no purchase
 * of that subscription is known (yet).
 */
export async function recordRenewal(
  trx: Trx,
  renewal: { provider: string; providerRef: string; providerSubscriptionId: string; occurredAt: Date; amountCents?: number | null; extraInfo?: Record<string, string> | null },
): Promise<boolean> {
  const purchase = await repo.findFirstPurchase(trx, renewal.provider, renewal.providerSubscriptionId);
  if (!purchase) return false;
  const subscriptionId = typeof purchase.details.subscription_id === 'string' ? purchase.details.subscription_id : undefined;
  const payment = await repo.insertRenewalPayment(trx, {
    user_id: purchase.user_id,
    sku: purchase.sku,
    quantity: purchase.quantity,
    amount_cents: renewal.amountCents ?? purchase.amount_cents,
    method: purchase.method,
    provider: renewal.provider,
    provider_ref: renewal.providerRef,
    provider_subscription_id: renewal.providerSubscriptionId,
    status: 'paid',
    paid_at: new Date(),
    last_event_at: renewal.occurredAt,
    details: JSON.stringify({ renewal_of: purchase.id, ...(subscriptionId ? { subscription_id: subscriptionId } : {}) }),
  });
  if (!payment) return true; // this charge was recorded already
  if (!(await renewSubscription(trx, renewal.provider, renewal.providerSubscriptionId))) return false;
  await writeInvoice(trx, payment, renewal.extraInfo ?? null);
  return true;
}

/**
 * Refunded: takes back what was granted (credits never below zero; plans end now). A refund
 * of a payment not yet paid is remembered and applied when the payment arrives.
 */
export async function markRefunded(trx: Trx, payment: Payment, event: { occurredAt: Date }): Promise<boolean> {
  if (payment.status === 'pending' || payment.status === 'expired') {
    if (payment.details.refund_received_at) return false;
    await repo.updatePayment(trx, payment.id, { details: JSON.stringify({ ...payment.details, refund_received_at: event.occurredAt.toISOString() }) });
    return true;
  }
  if (payment.status !== 'paid') return false;
  await revokePurchase(trx, {
    userId: payment.user_id,
    sku: payment.sku,
    quantity: payment.quantity,
    source: `refund:${payment.id}`,
    reason: 'refund',
    subscriptionId: typeof payment.details.subscription_id === 'string' ? payment.details.subscription_id : null,
  });
  await repo.updatePayment(trx, payment.id, { status: 'refunded', refunded_at: new Date(), last_event_at: event.occurredAt });
  return true;
}

/** Expired unpaid (a crypto invoice's time ran out). */
export async function markExpired(trx: Trx, payment: Payment, event: { occurredAt: Date }): Promise<boolean> {
  if (payment.status !== 'pending' || isStale(payment, event.occurredAt)) return false;
  await repo.updatePayment(trx, payment.id, { status: 'expired', last_event_at: event.occurredAt });
  return true;
}

/**
 * Pending payments whose time ran out (a crypto invoice nobody paid) become expired; returns
 * their ids and owners. Providers that report expiry themselves arrive at the same state; a
 * payment that still arrives later is paid all the same (markPaid).
 */
export async function expireOverduePayments(db: Kysely<Database>, now = new Date()): Promise<{ id: string; user_id: string }[]> {
  return repo.expireOverdue(db, now);
}

/** Details a provider learns along the way (amount received, currency), merged in; never moves the status. */
export async function noteDetails(trx: Trx, payment: Payment, details: Record<string, unknown>, occurredAt: Date): Promise<void> {
  if (isStale(payment, occurredAt)) return;
  await repo.updatePayment(trx, payment.id, { details: JSON.stringify({ ...payment.details, ...details }), last_event_at: occurredAt });
}
