/**
 * Paddle Billing's webhook format, shared by the Paddle provider and the sandbox (which
 * speaks it with its own secret and name): the `Paddle-Signature` header
 * (`ts=<unix>;h1=<hex>[;h1=<hex>…]`, HMAC-SHA256 of `${ts}:${rawBody}`), the event envelope
 * (`event_id`, `event_type`, `occurred_at`, `data`) and what each event does to a payment.
 *
 * Events applied (anything else is stored and ignored):
 * - `transaction.completed`, origin `web`/`api`: the checkout's payment (custom_data.checkout_id)
 *   is paid, once its items match the payment's SKU and quantity.
 * - `transaction.completed`, origin `subscription_recurring`: the subscription renews.
 * - `subscription.canceled`, or `subscription.updated` with a scheduled cancel: it stops
 *   renewing (access runs to the period's end).
 * - `adjustment.created` / `adjustment.updated`, action `refund`, status `approved`, type
 *   `full`: the transaction's payment is refunded (a partial refund is noted, nothing taken back).
 * An event naming a payment or subscription we do not know throws: the `payment-event` job
 * retries it (the purchase it depends on may still be on its way) and the error stays in
 * `payment_events.last_error`.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { Transaction } from 'kysely';
import type { Database } from '../../db/schema';
import { webhookRejected, type AfterCommit, type StoredEvent, type VerifiedEvent } from '../ingress';
import { lockPayment, markPaid, markRefunded, noteDetails, recordRenewal } from '../payments';
import { stopRenewing } from '../grants-service';

export const SIGNATURE_HEADER = 'paddle-signature';

/** The header value Paddle would send for `rawBody` signed with `secret` at `ts` (unix seconds). */
export function paddleSignature(secret: string, ts: number, rawBody: string | Buffer): string {
  return `ts=${ts};h1=${createHmac('sha256', secret).update(`${ts}:`).update(rawBody).digest('hex')}`;
}

function parseHeader(value: string): { ts: number; h1: Buffer[] } | undefined {
  let ts: number | undefined;
  const h1: Buffer[] = [];
  for (const part of value.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const key = part.slice(0, eq).trim();
    const val = part.slice(eq + 1).trim();
    if (key === 'ts' && /^\d{1,12}$/.test(val)) ts = Number(val);
    else if (key === 'h1' && /^[0-9a-fA-F]{64}$/.test(val)) h1.push(Buffer.from(val, 'hex'));
  }
  return ts === undefined || h1.length === 0 ? undefined : { ts, h1 };
}

/**
 * Checks the signature over the exact bytes received: any `h1` made with any of `secrets`
 * (several during a rotation), compared in constant time, and a timestamp within
 * `toleranceSeconds` of `now`. Throws `webhookRejected` otherwise; never says which secret.
 */
export function verifyPaddleSignature(rawBody: Buffer, headers: IncomingHttpHeaders, secrets: string[], now: Date, toleranceSeconds: number): void {
  const header = headers[SIGNATURE_HEADER];
  const value = Array.isArray(header) ? header[0] : header;
  if (!value) throw webhookRejected('missing signature');
  const parsed = parseHeader(value);
  if (!parsed) throw webhookRejected('malformed signature');
  if (Math.abs(now.getTime() / 1000 - parsed.ts) > toleranceSeconds) throw webhookRejected('timestamp outside the tolerance');
  let valid = false;
  for (const secret of secrets) {
    const expected = createHmac('sha256', secret).update(`${parsed.ts}:`).update(rawBody).digest();
    for (const candidate of parsed.h1) {
      // Both are 32 bytes (the header's h1 was checked to be 64 hex digits).
      if (candidate.length === expected.length && timingSafeEqual(candidate, expected)) valid = true;
    }
  }
  if (!valid) throw webhookRejected('bad signature');
}

/** The event envelope, after the signature checked out; a malformed one is rejected (400). */
export function parsePaddleEvent(rawBody: Buffer): VerifiedEvent {
  let body: unknown;
  try {
    body = JSON.parse(rawBody.toString('utf8'));
  } catch {
    throw webhookRejected('the body is not JSON');
  }
  const event = body as { event_id?: unknown; event_type?: unknown; occurred_at?: unknown; data?: unknown };
  const occurredAt = typeof event.occurred_at === 'string' ? new Date(event.occurred_at) : new Date(NaN);
  if (
    typeof event.event_id !== 'string' ||
    !/^[A-Za-z0-9_-]{1,100}$/.test(event.event_id) ||
    typeof event.event_type !== 'string' ||
    event.event_type.length > 100 ||
    Number.isNaN(occurredAt.getTime()) ||
    !event.data ||
    typeof event.data !== 'object'
  ) {
    throw webhookRejected('malformed event');
  }
  return { eventId: event.event_id, type: event.event_type, occurredAt, payload: body };
}

// The parts of Paddle's entities we read (snake_case, as Paddle sends them).
interface TransactionData {
  id?: string;
  status?: string;
  origin?: string;
  subscription_id?: string | null;
  custom_data?: { checkout_id?: unknown } | null;
  items?: { price?: { id?: string } | null; price_id?: string; quantity?: number }[];
  payments?: { method_details?: { type?: string; card?: { type?: string; last4?: string } | null } | null }[];
}
interface SubscriptionData {
  id?: string;
  status?: string;
  scheduled_change?: { action?: string } | null;
}
interface AdjustmentData {
  id?: string;
  action?: string;
  status?: string;
  type?: string;
  transaction_id?: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface PaddleApplierOptions {
  /** The provider's name: payments and subscriptions are looked up under it. */
  provider: string;
  /** The SKU a provider price id sells, if any. */
  skuForPriceId(priceId: string): string | undefined;
}

/** Applies one stored Paddle-format event (see the header comment) inside `trx`. */
export function paddleApplier(options: PaddleApplierOptions) {
  const { provider } = options;

  async function transactionCompleted(trx: Transaction<Database>, event: StoredEvent, data: TransactionData): Promise<void> {
    if (data.origin === 'subscription_recurring') {
      if (!data.subscription_id) throw new Error('a renewal without subscription_id');
      if (typeof data.id !== 'string' || data.id.length === 0) throw new Error('a renewal without transaction id');
      const renewed = await recordRenewal(trx, { provider, providerRef: data.id, providerSubscriptionId: data.subscription_id, occurredAt: event.occurredAt });
      if (!renewed) throw new Error(`unknown subscription ${data.subscription_id}`);
      return;
    }
    // Other origins (a plan change, a payment-method update) grant nothing here.
    if (data.origin !== 'web' && data.origin !== 'api') return;
    const checkoutId = data.custom_data?.checkout_id;
    if (typeof checkoutId !== 'string' || !UUID.test(checkoutId)) throw new Error(`transaction ${String(data.id)} names no checkout`);
    if (typeof data.id !== 'string' || data.id.length === 0) throw new Error('a transaction without id');
    const payment = await lockPayment(trx, { id: checkoutId });
    if (!payment || payment.provider !== provider || payment.method !== 'card') throw new Error(`unknown checkout ${checkoutId}`);
    const items = data.items ?? [];
    const item = items[0];
    const priceId = item?.price?.id ?? item?.price_id ?? '';
    const sku = options.skuForPriceId(priceId);
    if (items.length !== 1 || sku !== payment.sku || item?.quantity !== payment.quantity) {
      const sold = items.map((i) => `${i.price?.id ?? i.price_id ?? '?'}×${String(i.quantity)}`).join(', ');
      throw new Error(`transaction ${data.id} does not match checkout ${checkoutId} (${payment.sku}×${payment.quantity}): it sold ${sold || 'nothing'}`);
    }
    const card = data.payments?.find((p) => p.method_details?.card)?.method_details?.card;
    await markPaid(trx, payment, {
      occurredAt: event.occurredAt,
      providerRef: data.id,
      providerSubscriptionId: data.subscription_id ?? null,
      extraInfo: { transaction_id: data.id, ...(card?.last4 ? { card: `${card.type ?? 'card'} •••• ${card.last4}` } : {}) },
    });
  }

  async function subscriptionChanged(trx: Transaction<Database>, event: StoredEvent, data: SubscriptionData): Promise<void> {
    const cancelling = event.type === 'subscription.canceled' || data.status === 'canceled' || data.scheduled_change?.action === 'cancel';
    if (!cancelling) return;
    if (!data.id) throw new Error('a subscription event without id');
    if (!(await stopRenewing(trx, provider, data.id))) throw new Error(`unknown subscription ${data.id}`);
  }

  async function adjustment(trx: Transaction<Database>, event: StoredEvent, data: AdjustmentData): Promise<void> {
    if (data.action !== 'refund' || data.status !== 'approved') return;
    if (!data.transaction_id) throw new Error('a refund without transaction_id');
    const payment = await lockPayment(trx, { provider, providerRef: data.transaction_id });
    // Not yet known: the purchase may still be on its way (events out of order): retried.
    if (!payment) throw new Error(`unknown transaction ${data.transaction_id}`);
    if (data.type === 'partial') {
      await noteDetails(trx, payment, { partial_refund: data.id ?? true }, event.occurredAt);
      return;
    }
    await markRefunded(trx, payment, { occurredAt: event.occurredAt });
  }

  return async function apply(trx: Transaction<Database>, event: StoredEvent): Promise<AfterCommit[]> {
    const data = ((event.payload as { data?: unknown }).data ?? {}) as Record<string, unknown>;
    switch (event.type) {
      case 'transaction.completed':
        await transactionCompleted(trx, event, data as TransactionData);
        break;
      case 'subscription.canceled':
      case 'subscription.updated':
        await subscriptionChanged(trx, event, data as SubscriptionData);
        break;
      case 'adjustment.created':
      case 'adjustment.updated':
        await adjustment(trx, event, data as AdjustmentData);
        break;
      default:
        break;
    }
    return [];
  };
}

/** Paddle's billing cycle interval for ours. */
export const PADDLE_INTERVAL = { weekly: 'week', monthly: 'month', yearly: 'year' } as const;
