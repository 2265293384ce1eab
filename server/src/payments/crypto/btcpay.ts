/**
 * BTCPay Server through its Greenfield API (`CRYPTO_PROVIDER=btcpay`; btc, ltc and xmr: BTCPay
 * has no bch or eth, docs/payments.md). An invoice is created in USD for the store
 * (`BTCPAY_URL`, `BTCPAY_STORE_ID`, `BTCPAY_API_KEY`, header `Authorization: token <key>`)
 * with the store's enabled on-chain payment methods; its payment methods give each coin's
 * destination, payment link, rate and amount due. Webhooks carry
 * `BTCPay-Sig: sha256=<hex HMAC-SHA256(BTCPAY_WEBHOOK_SECRET, raw body)>` and no timestamp.
 * A redelivery has a new `deliveryId` and the first one in `originalDeliveryId`, which is
 * the event id, so redeliveries are stored once. Applying an event re-fetches the invoice
 * (the payload only says what happened, the invoice says where it stands).
 */
import { createHmac } from 'node:crypto';
import type { Config } from '../../config';
import { constantTimeEqual } from '../../infra/secrets';
import { centsToUsd } from '../../common/catalogue';
import { lockPayment } from '../payments';
import { webhookRejected } from '../ingress';
import { CryptoProviderError, isCryptoCurrency, paymentUri, requireSettings, type CryptoCurrency, type CryptoProvider, type PaymentOption } from './crypto-provider';
import { applyOutcome, type InvoiceOutcome, type Publish } from './settlement';

export const BTCPAY = 'btcpay';
const CURRENCIES: CryptoCurrency[] = ['btc', 'ltc', 'xmr'];
const TIMEOUT_MS = 10_000;

/** Greenfield `InvoiceData` (the fields we read). */
interface BtcpayInvoice {
  id: string;
  storeId?: string;
  status: 'New' | 'Processing' | 'Expired' | 'Invalid' | 'Settled';
  additionalStatus?: 'None' | 'PaidLate' | 'PaidPartial' | 'Marked' | 'Invalid' | 'PaidOver';
  metadata?: { orderId?: string };
}

/** Greenfield `InvoicePaymentMethodDataModel` (1.x names `paymentMethod`/`cryptoCode`, 2.x `paymentMethodId`/`currency`). */
interface BtcpayPaymentMethod {
  paymentMethod?: string;
  paymentMethodId?: string;
  cryptoCode?: string;
  currency?: string;
  destination?: string;
  paymentLink?: string | null;
  rate?: string;
  due?: string;
  amount?: string;
  paymentMethodPaid?: string;
  totalPaid?: string;
  activated?: boolean;
}

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

/** The coin of a payment method; undefined for Lightning/LNURL and coins we do not offer. */
function coinOf(method: BtcpayPaymentMethod): CryptoCurrency | undefined {
  const id = method.paymentMethodId ?? method.paymentMethod ?? '';
  if (/lightning|lnurl|-ln$|_ln$/i.test(id)) return undefined;
  const code = (method.currency ?? method.cryptoCode ?? id.split(/[-_]/)[0] ?? '').toLowerCase();
  return isCryptoCurrency(code) && CURRENCIES.includes(code) ? code : undefined;
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

export function createBtcpayProvider(deps: { config: Config; publish: Publish; fetch?: typeof fetch }): CryptoProvider {
  const settings = requireSettings(deps.config, BTCPAY, ['BTCPAY_URL', 'BTCPAY_STORE_ID', 'BTCPAY_API_KEY', 'BTCPAY_WEBHOOK_SECRET']);
  const base = settings.BTCPAY_URL.replace(/\/+$/, '');
  const store = `${base}/api/v1/stores/${encodeURIComponent(settings.BTCPAY_STORE_ID)}`;
  const doFetch = deps.fetch ?? fetch;

  async function call<T>(method: 'GET' | 'POST', url: string, body?: unknown): Promise<T> {
    let response: Response;
    try {
      response = await doFetch(url, {
        method,
        headers: { authorization: `token ${settings.BTCPAY_API_KEY}`, accept: 'application/json', ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (error) {
      throw new CryptoProviderError(`BTCPay unreachable: ${(error as Error).name}`);
    }
    // Only the status reaches the error (and the log): never the key or the body.
    if (!response.ok) throw new CryptoProviderError(`BTCPay ${method} ${new URL(url).pathname} answered ${response.status}`);
    return (await response.json()) as T;
  }

  const invoiceUrl = (id: string) => `${store}/invoices/${encodeURIComponent(id)}`;

  return {
    name: BTCPAY,
    currencies: CURRENCIES,
    async createInvoice({ paymentId, usdCents, expiresAt }) {
      const invoice = await call<BtcpayInvoice>('POST', `${store}/invoices`, {
        amount: centsToUsd(usdCents).toFixed(2),
        currency: 'USD',
        metadata: { orderId: paymentId },
        // The store's enabled payment methods (BTC, LTC, XMR on chain) are offered.
        checkout: { expirationMinutes: Math.max(1, Math.round((expiresAt.getTime() - Date.now()) / 60_000)) },
      });
      const methods = await call<BtcpayPaymentMethod[]>('GET', `${invoiceUrl(invoice.id)}/payment-methods`);
      const options: PaymentOption[] = [];
      for (const method of methods) {
        const currency = coinOf(method);
        if (!currency || !method.destination) continue;
        const currencyAmount = method.due ?? method.amount ?? '0';
        options.push({
          currency,
          paymentAddress: method.destination,
          paymentFullString: method.paymentLink || paymentUri(currency, method.destination, currencyAmount),
          currencyAmount,
          usdRate: Number(method.rate ?? 0),
        });
      }
      if (options.length === 0) throw new CryptoProviderError('BTCPay offered no on-chain payment method for btc, ltc or xmr');
      return { providerRef: invoice.id, options };
    },
    webhook: {
      name: BTCPAY,
      verify(raw, headers) {
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
      },
      async apply(trx, event) {
        const delivery = event.payload as BtcpayDelivery;
        const payment = await lockPayment(trx, { provider: BTCPAY, providerRef: delivery.invoiceId });
        if (!payment || payment.method !== 'crypto') return [];
        const [invoice, methods] = await Promise.all([
          call<BtcpayInvoice>('GET', invoiceUrl(delivery.invoiceId)),
          call<BtcpayPaymentMethod[]>('GET', `${invoiceUrl(delivery.invoiceId)}/payment-methods`),
        ]);
        return applyOutcome(trx, payment, btcpayOutcome(invoice, methods), event.occurredAt, deps.publish);
      },
    },
    async health() {
      try {
        const response = await doFetch(`${base}/api/v1/health`, { signal: AbortSignal.timeout(TIMEOUT_MS) });
        return response.ok;
      } catch {
        return false;
      }
    },
  };
}
