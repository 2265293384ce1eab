/**
 * BTCPay's webhooks carry `BTCPay-Sig: sha256=<hex HMAC-SHA256(BTCPAY_WEBHOOK_SECRET, raw body)>`
 * and no timestamp. A redelivery has a new `deliveryId` and the first one in
 * `originalDeliveryId`, which is the event id, so redeliveries are stored once. Applying an
 * event re-fetches the invoice (the payload only says what happened, the invoice says where
 * it stands).
 */
import { createHmac } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { constantTimeEqual } from '../../infra/secrets';
import { lockPayment } from '../payments';
import { webhookRejected, type VerifiedEvent, type WebhookProvider } from '../ingress';
import { BTCPAY, coinOf, type BtcpayApi, type BtcpayInvoice, type BtcpayPaymentMethod, type BtcpaySettings } from './btcpay-api';
import { applyOutcome, type InvoiceOutcome, type Publish } from './settlement';

/** A webhook delivery (the fields every invoice event has). */
interface BtcpayDelivery {
  deliveryId: string;
  webhookId?: string;
  originalDeliveryId?: string | null;
  isRedelivery?: boolean;
  type: string;
  timestamp: number;
  storeId: string;
  invoiceId: string;
}

function isDelivery(value: unknown): value is BtcpayDelivery {
  const d = value as Partial<BtcpayDelivery> | null;
  return (
    typeof d === 'object' &&
    d !== null &&
    typeof d.deliveryId === 'string' &&
    typeof d.type === 'string' &&
    typeof d.timestamp === 'number' &&
    typeof d.storeId === 'string' &&
    typeof d.invoiceId === 'string'
  );
}

/** Where the invoice stands, as our payment's outcome. */
export function btcpayOutcome(invoice: BtcpayInvoice, methods: BtcpayPaymentMethod[]): InvoiceOutcome {
  const paid = methods.find((method) => Number(method.paymentMethodPaid ?? 0) > 0);
  const received: Record<string, unknown> = paid ? { currency: coinOf(paid) ?? paid.currency?.toLowerCase(), amount_received: paid.paymentMethodPaid } : {};
  if (invoice.status === 'Settled') return { kind: 'paid', details: invoice.additionalStatus === 'PaidOver' ? { ...received, overpaid: true } : received };
  // Paid after the invoice expired: the money arrived, the purchase stands.
  if (invoice.additionalStatus === 'PaidLate') return { kind: 'paid', details: { ...received, paid_late: true } };
  if (invoice.status === 'Expired' || invoice.status === 'Invalid') return { kind: 'expired', details: received };
  if (invoice.additionalStatus === 'PaidPartial') return { kind: 'partial', details: received };
  return { kind: 'none', details: received };
}

export function btcpayWebhook(deps: {
  settings: Pick<BtcpaySettings, 'BTCPAY_WEBHOOK_SECRET' | 'BTCPAY_STORE_ID'>;
  api: Pick<BtcpayApi, 'invoice' | 'paymentMethods'>;
  publish: Publish;
}): WebhookProvider {
  return {
    name: BTCPAY,
    verify: (raw, headers) => verifyDelivery(deps.settings, raw, headers),
    async apply(trx, event) {
      const delivery = event.payload as BtcpayDelivery;
      const payment = await lockPayment(trx, { provider: BTCPAY, providerRef: delivery.invoiceId });
      if (!payment || payment.method !== 'crypto') return [];
      const [invoice, methods] = await Promise.all([deps.api.invoice(delivery.invoiceId), deps.api.paymentMethods(delivery.invoiceId)]);
      return applyOutcome(trx, payment, btcpayOutcome(invoice, methods), event.occurredAt, deps.publish);
    },
  };
}

function verifyDelivery(settings: Pick<BtcpaySettings, 'BTCPAY_WEBHOOK_SECRET' | 'BTCPAY_STORE_ID'>, raw: Buffer, headers: IncomingHttpHeaders): VerifiedEvent[] {
  const header = headers['btcpay-sig'];
  const expected = `sha256=${createHmac('sha256', settings.BTCPAY_WEBHOOK_SECRET).update(raw).digest('hex')}`;
  if (typeof header !== 'string' || !constantTimeEqual(header.toLowerCase(), expected)) throw webhookRejected('bad signature');
  let delivery: unknown;
  try {
    delivery = JSON.parse(raw.toString('utf8'));
  } catch {
    throw webhookRejected('malformed body');
  }
  if (!isDelivery(delivery)) throw webhookRejected('malformed event');
  // Another store's event on a shared server is none of ours.
  if (delivery.storeId !== settings.BTCPAY_STORE_ID) return [];
  return [
    {
      eventId: delivery.originalDeliveryId || delivery.deliveryId,
      type: delivery.type,
      occurredAt: new Date(delivery.timestamp * 1000),
      payload: delivery,
    },
  ];
}
