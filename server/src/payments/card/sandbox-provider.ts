/**
 * The sandbox card provider (default; refused with NODE_ENV=production by config.ts): an
 * overlay served by this server (sandbox-routes.ts) whose Pay button makes the server build
 * the event Paddle would send, sign it like Paddle (`ts:body` HMAC-SHA256) with the sandbox
 * secret and enqueue it on `sandbox-webhook`; the job POSTs it to `/webhooks/sandbox`, the
 * very ingress a real provider uses, so the sandbox exercises the whole path. Renewals,
 * cancels and refunds are the same Paddle-shaped events (`npm run admin -- payment:renew`,
 * `payment:refund`; `POST /subscriptions/cancel`). Pay, renewal and refund are a module each,
 * signing and delivery another (sandbox-delivery.ts); this module composes them.
 */
import type { Kysely } from 'kysely';
import type { Config } from '../../config';
import type { Database } from '../../db/schema';
import type { QueueSystem } from '../../infra/queues';
import { PRODUCTS } from '../../common/catalogue';
import type { CardClientConfig, CardProvider } from './card-contract';
import { paddleApplier, parsePaddleEvent, verifyPaddleSignature } from './paddle-format';
import { createSandboxDelivery, type SandboxDelivery } from './sandbox-delivery';
import { PRICE_PREFIX, sandboxCancellation, skuForSandboxPrice } from './sandbox-events';
import { paySandboxCheckout } from './sandbox-pay';
import { refundSandboxPayment } from './sandbox-refund';
import { renewSandboxSubscription } from './sandbox-renew';

/**
 * The sandbox's deliveries go through a queue with retries and keep the signature made when
 * they were enqueued, so the window is wider than Paddle's 5 s (which re-signs each retry).
 */
export const SANDBOX_TOLERANCE_SECONDS = 600;

export interface SandboxCardProvider extends CardProvider, Pick<SandboxDelivery, 'secrets' | 'sign'> {
  readonly name: 'sandbox';
  /** Pay: the checkout's `transaction.completed`, signed and enqueued. Refuses a checkout that is not an open sandbox card payment. */
  pay(checkoutId: string): Promise<{ eventId: string }>;
  /** A renewal charge of a sandbox subscription (`transaction.completed`, origin `subscription_recurring`). */
  renew(providerSubscriptionId: string): Promise<{ eventId: string }>;
  /** An approved full refund of a paid sandbox payment (`adjustment.created`). */
  refund(paymentId: string): Promise<{ eventId: string }>;
}

export function createSandboxProvider(deps: { config: Config; db: Kysely<Database>; queues: QueueSystem }): SandboxCardProvider {
  const { secrets, sign, deliver } = createSandboxDelivery(deps);
  const useCase = { db: deps.db, deliver };
  return {
    name: 'sandbox',
    clientConfig: sandboxClientConfig,
    webhook: sandboxWebhook(secrets),
    async cancel(providerSubscriptionId) {
      // Paddle answers the cancel call, then sends its events; the sandbox sends the event.
      await deliver('subscription.canceled', sandboxCancellation(providerSubscriptionId));
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
    pay: (checkoutId) => paySandboxCheckout(useCase, checkoutId),
    renew: (providerSubscriptionId) => renewSandboxSubscription(useCase, providerSubscriptionId),
    refund: (paymentId) => refundSandboxPayment(useCase, paymentId),
  };
}

function sandboxClientConfig(): CardClientConfig {
  return {
    provider: 'sandbox',
    script_url: '/sandbox/checkout.js',
    global_name: 'SandboxCheckout',
    token: 'sandbox',
    environment: 'sandbox',
    price_ids: Object.fromEntries(PRODUCTS.map((product) => [product.sku, `${PRICE_PREFIX}${product.sku}`])),
  };
}

function sandboxWebhook(secrets: SandboxDelivery['secrets']): CardProvider['webhook'] {
  return {
    name: 'sandbox',
    async verify(rawBody, headers, now) {
      verifyPaddleSignature(rawBody, headers, await secrets(), now, SANDBOX_TOLERANCE_SECONDS);
      return [parsePaddleEvent(rawBody)];
    },
    apply: paddleApplier({ provider: 'sandbox', skuForPriceId: skuForSandboxPrice }),
  };
}
