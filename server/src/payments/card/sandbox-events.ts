/**
 * The Paddle-shaped data of the sandbox's events: the transaction of a checkout or a renewal,
 * the adjustment of a refund, the cancelled subscription. Prices are `pri_sandbox_<sku>`.
 */
import { randomBytes } from 'node:crypto';
import { productDef, productName } from '../../common/catalogue';
import type { Payment } from '../payments-repository';
import { PADDLE_INTERVAL } from './paddle-format';

export const PRICE_PREFIX = 'pri_sandbox_';

export const randomId = (prefix: string) => `${prefix}${randomBytes(13).toString('hex')}`;

/** The SKU of a sandbox price id; undefined for anything else. */
export function skuForSandboxPrice(priceId: string): string | undefined {
  return priceId.startsWith(PRICE_PREFIX) && productDef(priceId.slice(PRICE_PREFIX.length)) ? priceId.slice(PRICE_PREFIX.length) : undefined;
}

export function sandboxItem(sku: string, quantity: number, unitCents: number) {
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

export function sandboxTransaction(fields: {
  origin: string;
  subscriptionId: string | null;
  customData: Record<string, string> | null;
  items: ReturnType<typeof sandboxItem>[];
  totalCents: number;
}) {
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

/** An approved full refund of a paid payment (`adjustment.created`). */
export function sandboxRefundAdjustment(payment: Payment) {
  const now = new Date().toISOString();
  const total = String(payment.amount_cents);
  return {
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
  };
}

/** A subscription cancelled now (`subscription.canceled`). */
export function sandboxCancellation(providerSubscriptionId: string) {
  return {
    id: providerSubscriptionId,
    status: 'canceled',
    canceled_at: new Date().toISOString(),
    scheduled_change: null,
    custom_data: null,
  };
}
