/**
 * The sandbox card provider (default; refused with NODE_ENV=production by config.ts): an
 * overlay served by this server (sandbox-routes.ts) whose Pay button makes the server build
 * the event Paddle would send, sign it like Paddle (`ts:body` HMAC-SHA256) with the sandbox
 * secret and enqueue it on `sandbox-webhook`; the job POSTs it to `/webhooks/sandbox`, the
 * very ingress a real provider uses, so the sandbox exercises the whole path. Renewals,
 * cancels and refunds are the same Paddle-shaped events (`npm run admin -- payment:renew`,
 * `payment:refund`; `POST /subscriptions/cancel`).
 *
 * The secret is SANDBOX_WEBHOOK_SECRET (comma-separated: all verify, the first signs) or one
 * generated once and kept in the database, so every instance and the admin CLI share it.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Config } from '../../config';
import type { Database } from '../../db/schema';
import type { QueueSystem } from '../../infra/queues';
import { AppError, Errors } from '../../infra/errors';
import { loadOrCreateSecret } from '../../infra/secrets';
import { PRODUCTS, productDef, productName } from '../../common/catalogue';
import type { CardProvider } from './card-contract';
import { PADDLE_INTERVAL, paddleApplier, paddleSignature, parsePaddleEvent, verifyPaddleSignature } from './paddle-format';
import { findPayment, findProviderSubscription } from '../payments-repository';
import { findPriceCents } from '../products-repository';

/**
 * The sandbox's deliveries go through a queue with retries and keep the signature made when
 * they were enqueued, so the window is wider than Paddle's 5 s (which re-signs each retry).
 */
export const SANDBOX_TOLERANCE_SECONDS = 600;
const PRICE_PREFIX = 'pri_sandbox_';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface SandboxCardProvider extends CardProvider {
  readonly name: 'sandbox';
  /** The secrets that verify (the first signs). */
  secrets(): Promise<string[]>;
  /** Pay: the checkout's `transaction.completed`, signed and enqueued. Refuses a checkout that is not an open sandbox card payment. */
  pay(checkoutId: string): Promise<{ eventId: string }>;
  /** A renewal charge of a sandbox subscription (`transaction.completed`, origin `subscription_recurring`). */
  renew(providerSubscriptionId: string): Promise<{ eventId: string }>;
  /** An approved full refund of a paid sandbox payment (`adjustment.created`). */
  refund(paymentId: string): Promise<{ eventId: string }>;
  /** Signs `event` like Paddle; returns the body and headers to POST. */
  sign(event: object, now?: Date): Promise<{ body: string; headers: Record<string, string> }>;
}

const randomId = (prefix: string) => `${prefix}${randomBytes(13).toString('hex')}`;

export function createSandboxProvider(deps: { config: Config; db: Kysely<Database>; queues: QueueSystem }): SandboxCardProvider {
  const { db, queues } = deps;
  let secretsPromise: Promise<string[]> | undefined;
  const secrets = () => {
    const configured = deps.config.card.sandboxWebhookSecrets;
    if (configured.length > 0) return Promise.resolve(configured);
    secretsPromise ??= loadOrCreateSecret(db, 'sandbox-webhook').then(
      (secret) => [secret],
      (error: unknown) => {
        secretsPromise = undefined;
        throw error;
      },
    );
    return secretsPromise;
  };

  async function sign(event: object, now = new Date()) {
    const [secret] = await secrets();
    const body = JSON.stringify(event);
    return { body, headers: { 'content-type': 'application/json', 'paddle-signature': paddleSignature(secret!, Math.floor(now.getTime() / 1000), body) } };
  }

  /** Builds the envelope, signs it and enqueues its delivery (job id = event id). */
  async function deliver(eventType: string, data: Record<string, unknown>): Promise<{ eventId: string }> {
    const now = new Date();
    const eventId = randomId('evt_sbx_');
    const event = { event_id: eventId, event_type: eventType, occurred_at: now.toISOString(), notification_id: randomId('ntf_sbx_'), data };
    await queues.enqueue('sandbox-webhook', await sign(event, now), eventId);
    return { eventId };
  }

  function item(sku: string, quantity: number, unitCents: number) {
    const product = productDef(sku);
    const recurring = product?.kind === 'plan' && product.recurring;
    return {
      price: {
        id: `${PRICE_PREFIX}${sku}`,
        product_id: `pro_sandbox_${sku}`,
        description: productName(sku),
        name: productName(sku),
        unit_price: { amount: String(unitCents), currency_code: 'USD' },
        billing_cycle: recurring && product.kind === 'plan' ? { interval: PADDLE_INTERVAL[product.interval], frequency: 1 } : null,
        status: 'active',
      },
      quantity,
    };
  }

  function transaction(fields: { origin: string; subscriptionId: string | null; customData: Record<string, string> | null; items: ReturnType<typeof item>[]; totalCents: number }) {
    const now = new Date().toISOString();
    const total = String(fields.totalCents);
    return {
      id: randomId('txn_sbx_'),
      status: 'completed',
      origin: fields.origin,
      subscription_id: fields.subscriptionId,
      custom_data: fields.customData,
      currency_code: 'USD',
      collection_mode: 'automatic',
      items: fields.items,
      details: { totals: { subtotal: total, tax: '0', discount: '0', total, grand_total: total, fee: '0', earnings: total, currency_code: 'USD' } },
      payments: [{ amount: total, status: 'captured', captured_at: now, method_details: { type: 'card', card: { type: 'visa', last4: '4242' } } }],
      created_at: now,
      updated_at: now,
      billed_at: now,
    };
  }

  const provider: SandboxCardProvider = {
    name: 'sandbox',
    clientConfig: () => ({
      provider: 'sandbox',
      script_url: '/sandbox/checkout.js',
      global_name: 'SandboxCheckout',
      token: 'sandbox',
      environment: 'sandbox',
      price_ids: Object.fromEntries(PRODUCTS.map((product) => [product.sku, `${PRICE_PREFIX}${product.sku}`])),
    }),
    webhook: {
      name: 'sandbox',
      async verify(rawBody, headers, now) {
        verifyPaddleSignature(rawBody, headers, await secrets(), now, SANDBOX_TOLERANCE_SECONDS);
        return [parsePaddleEvent(rawBody)];
      },
      apply: paddleApplier({
        provider: 'sandbox',
        skuForPriceId: (priceId) => (priceId.startsWith(PRICE_PREFIX) && productDef(priceId.slice(PRICE_PREFIX.length)) ? priceId.slice(PRICE_PREFIX.length) : undefined),
      }),
    },
    async cancel(providerSubscriptionId) {
      // Paddle answers the cancel call, then sends its events; the sandbox sends the event.
      await deliver('subscription.canceled', {
        id: providerSubscriptionId,
        status: 'canceled',
        canceled_at: new Date().toISOString(),
        scheduled_change: null,
        custom_data: null,
      });
    },
    async health() {
      try {
        return (await secrets()).length > 0;
      } catch {
        return false;
      }
    },
    secrets,
    sign,
    async pay(checkoutId) {
      if (!UUID.test(checkoutId)) throw Errors.notFound();
      const payment = await findPayment(db, checkoutId);
      if (!payment || payment.provider !== 'sandbox' || payment.method !== 'card') throw Errors.notFound();
      if (payment.status !== 'pending') throw new AppError(409, 'CHECKOUT_CLOSED', 'This checkout is not open');
      const product = productDef(payment.sku);
      const recurring = product?.kind === 'plan' && product.recurring;
      return deliver(
        'transaction.completed',
        transaction({
          origin: 'web',
          subscriptionId: recurring ? `sandbox-sub-${randomUUID()}` : null,
          customData: { checkout_id: payment.id },
          items: [item(payment.sku, payment.quantity, Math.round(payment.amount_cents / payment.quantity))],
          totalCents: payment.amount_cents,
        }),
      );
    },
    async renew(providerSubscriptionId) {
      const sub = await findProviderSubscription(db, 'sandbox', providerSubscriptionId);
      if (!sub) throw Errors.notFound(`No sandbox subscription ${providerSubscriptionId}`);
      if (!sub.recurring) throw new AppError(409, 'NOT_RECURRING', `Subscription ${providerSubscriptionId} does not renew (cancelled or refunded)`);
      const sku = `${sub.plan}-sub-${sub.billing_interval}`;
      const unit = (await findPriceCents(db, sku)) ?? 0;
      return deliver(
        'transaction.completed',
        transaction({ origin: 'subscription_recurring', subscriptionId: providerSubscriptionId, customData: null, items: [item(sku, sub.quantity, unit)], totalCents: unit * sub.quantity }),
      );
    },
    async refund(paymentId) {
      if (!UUID.test(paymentId)) throw Errors.notFound(`No payment ${paymentId}`);
      const payment = await findPayment(db, paymentId);
      if (!payment || payment.provider !== 'sandbox') throw Errors.notFound(`No sandbox payment ${paymentId}`);
      if (payment.status !== 'paid' || !payment.provider_ref) throw new AppError(409, 'NOT_PAID', `Payment ${paymentId} is ${payment.status}: only a paid payment is refunded`);
      const now = new Date().toISOString();
      const total = String(payment.amount_cents);
      return deliver('adjustment.created', {
        id: randomId('adj_sbx_'),
        action: 'refund',
        type: 'full',
        reason: 'sandbox refund',
        status: 'approved',
        transaction_id: payment.provider_ref,
        subscription_id: payment.provider_subscription_id,
        currency_code: 'USD',
        totals: { subtotal: total, tax: '0', total, fee: '0', earnings: total, currency_code: 'USD' },
        created_at: now,
        updated_at: now,
      });
    },
  };
  return provider;
}
