/**
 * NOWPayments (`CRYPTO_PROVIDER=nowpayments`; btc, ltc, xmr, bch and eth). Their API creates
 * one payment per coin (`POST /v1/payment`, header `x-api-key`), so an invoice is one
 * NOWPayments payment per coin, all carrying our payment id as `order_id`: the buyer pays
 * whichever they like and the first that finishes pays the invoice. (Their invoice API
 * answers a hosted page, not addresses.) IPN callbacks are signed in `x-nowpayments-sig`
 * with HMAC-SHA512 under `NOWPAYMENTS_IPN_SECRET` over
 * `JSON.stringify(p, Object.keys(p).sort())` of the parsed body, exactly as their
 * documentation computes it (the replacer also drops nested keys that are not top-level
 * names). They carry no event id: ours is payment_id:payment_status:updated_at, so a
 * repeated notification of one state is stored once.
 */
import { createHmac } from 'node:crypto';
import type { Config } from '../../config';
import { constantTimeEqual } from '../../infra/secrets';
import { centsToUsd } from '../../common/catalogue';
import { webhookRejected } from '../ingress';
import { CryptoProviderError, isCryptoCurrency, paymentUri, requireSettings, CRYPTO_CURRENCIES, type CryptoProvider, type PaymentOption } from './crypto-provider';
import { applyOutcome, isPaymentId, lockCryptoPayment, type InvoiceOutcome, type Publish } from './settlement';

export const NOWPAYMENTS = 'nowpayments';
const TIMEOUT_MS = 10_000;

/** `POST /v1/payment`'s answer (the fields we read). */
interface NowPayment {
  payment_id: string | number;
  payment_status: string;
  pay_address: string;
  pay_amount: number | string;
  pay_currency: string;
  price_amount: number | string;
}

/** An IPN callback (the fields we read). */
interface NowIpn {
  payment_id: string | number;
  payment_status: string;
  pay_amount?: number | string;
  actually_paid?: number | string;
  pay_currency?: string;
  order_id?: string;
  updated_at?: string | number;
}

/** The signature NOWPayments documents; copied as written. */
export function nowpaymentsSignature(secret: string, p: Record<string, unknown>): string {
  const hmac = createHmac('sha512', secret);
  hmac.update(JSON.stringify(p, Object.keys(p).sort()));
  return hmac.digest('hex');
}

export function nowpaymentsOutcome(ipn: NowIpn): InvoiceOutcome {
  const currency = String(ipn.pay_currency ?? '').toLowerCase();
  const received = { currency, amount_received: String(ipn.actually_paid ?? 0) };
  switch (ipn.payment_status) {
    case 'finished':
    case 'confirmed': {
      const overpaid = Number(ipn.actually_paid ?? 0) > Number(ipn.pay_amount ?? Infinity);
      return { kind: 'paid', details: overpaid ? { ...received, overpaid: true } : received };
    }
    case 'partially_paid':
      return { kind: 'partial', details: received };
    case 'expired':
    case 'failed':
      return { kind: 'expired' };
    case 'refunded':
      return { kind: 'refunded' };
    default:
      // waiting, confirming, sending: on its way, nothing decided.
      return { kind: 'none' };
  }
}

function occurredAt(ipn: NowIpn, now: Date): Date {
  const value = ipn.updated_at;
  const date = typeof value === 'number' ? new Date(value) : typeof value === 'string' ? new Date(/^\d+$/.test(value) ? Number(value) : value) : now;
  return Number.isNaN(date.getTime()) ? now : date;
}

export function createNowpaymentsProvider(deps: { config: Config; publish: Publish; fetch?: typeof fetch }): CryptoProvider {
  const settings = requireSettings(deps.config, NOWPAYMENTS, ['NOWPAYMENTS_API_URL', 'NOWPAYMENTS_API_KEY', 'NOWPAYMENTS_IPN_SECRET']);
  const base = settings.NOWPAYMENTS_API_URL.replace(/\/+$/, '');
  const doFetch = deps.fetch ?? fetch;

  async function call<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
    let response: Response;
    try {
      response = await doFetch(`${base}${path}`, {
        method,
        headers: { 'x-api-key': settings.NOWPAYMENTS_API_KEY, accept: 'application/json', ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (error) {
      throw new CryptoProviderError(`NOWPayments unreachable: ${(error as Error).name}`);
    }
    if (!response.ok) throw new CryptoProviderError(`NOWPayments ${method} ${path.split('?')[0]} answered ${response.status}`);
    return (await response.json()) as T;
  }

  return {
    name: NOWPAYMENTS,
    currencies: CRYPTO_CURRENCIES,
    async createInvoice({ paymentId, usdCents }) {
      const usd = centsToUsd(usdCents);
      const created = await Promise.allSettled(
        CRYPTO_CURRENCIES.map((currency) =>
          call<NowPayment>('POST', '/v1/payment', {
            price_amount: usd,
            price_currency: 'usd',
            pay_currency: currency,
            order_id: paymentId,
            order_description: `Payment ${paymentId}`,
            ipn_callback_url: `${deps.config.publicUrl}/webhooks/${NOWPAYMENTS}`,
          }),
        ),
      );
      // A coin NOWPayments refuses (an amount under its minimum) is left out; none at all is an error.
      const payments = created.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
      const options: PaymentOption[] = [];
      for (const payment of payments) {
        const currency = payment.pay_currency.toLowerCase();
        if (!isCryptoCurrency(currency) || !payment.pay_address) continue;
        const currencyAmount = String(payment.pay_amount);
        options.push({
          currency,
          paymentAddress: payment.pay_address,
          paymentFullString: paymentUri(currency, payment.pay_address, currencyAmount),
          currencyAmount,
          usdRate: Math.round((usd / Number(payment.pay_amount)) * 100) / 100,
        });
      }
      if (options.length === 0) {
        const reason = created.find((result) => result.status === 'rejected') as PromiseRejectedResult | undefined;
        throw reason?.reason instanceof Error ? reason.reason : new CryptoProviderError('NOWPayments created no payment');
      }
      const ids = payments.map((payment) => String(payment.payment_id));
      return { providerRef: ids[0]!, options, details: { nowpayments_payment_ids: ids } };
    },
    webhook: {
      name: NOWPAYMENTS,
      verify(raw, headers, now) {
        const signature = headers['x-nowpayments-sig'];
        let p: unknown;
        try {
          p = JSON.parse(raw.toString('utf8'));
        } catch {
          throw webhookRejected('malformed body');
        }
        if (typeof p !== 'object' || p === null || Array.isArray(p)) throw webhookRejected('malformed body');
        const expected = nowpaymentsSignature(settings.NOWPAYMENTS_IPN_SECRET, p as Record<string, unknown>);
        if (typeof signature !== 'string' || !constantTimeEqual(signature.toLowerCase(), expected)) throw webhookRejected('bad signature');
        const ipn = p as NowIpn;
        if ((typeof ipn.payment_id !== 'number' && typeof ipn.payment_id !== 'string') || typeof ipn.payment_status !== 'string') {
          throw webhookRejected('malformed event');
        }
        const at = occurredAt(ipn, now);
        return [{ eventId: `${ipn.payment_id}:${ipn.payment_status}:${at.toISOString()}`, type: ipn.payment_status, occurredAt: at, payload: ipn }];
      },
      async apply(trx, event) {
        const ipn = event.payload as NowIpn;
        if (!isPaymentId(ipn.order_id)) return [];
        const payment = await lockCryptoPayment(trx, ipn.order_id, NOWPAYMENTS);
        // Only the NOWPayments payments we created for this invoice move it.
        const ours = (payment?.details.nowpayments_payment_ids ?? []) as string[];
        if (!payment || !ours.includes(String(ipn.payment_id))) return [];
        return applyOutcome(trx, payment, nowpaymentsOutcome(ipn), event.occurredAt, deps.publish);
      },
    },
    async health() {
      try {
        const status = await call<{ message?: string }>('GET', '/v1/status');
        return status.message === 'OK';
      } catch {
        return false;
      }
    },
  };
}
