/**
 * NOWPayments' IPN callbacks, signed in `x-nowpayments-sig` with HMAC-SHA512 under
 * `NOWPAYMENTS_IPN_SECRET` over `JSON.stringify(p, Object.keys(p).sort())` of the parsed body,
 * exactly as their documentation computes it (the replacer also drops nested keys that are
 * not top-level names). They carry no event id: ours is payment_id:payment_status:updated_at,
 * so a repeated notification of one state is stored once.
 */
import { createHmac } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { constantTimeEqual } from '../../infra/secrets';
import { isPaymentId } from '../payments';
import { webhookRejected, type VerifiedEvent, type WebhookProvider } from '../ingress';
import { NOWPAYMENTS } from './nowpayments-api';
import { applyOutcome, lockCryptoPayment, type InvoiceOutcome, type Publish } from './settlement';

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

export function nowpaymentsWebhook(deps: { ipnSecret: string; publish: Publish }): WebhookProvider {
  return {
    name: NOWPAYMENTS,
    verify: (raw, headers, now) => verifyIpn(deps.ipnSecret, raw, headers, now),
    async apply(trx, event) {
      const ipn = event.payload as NowIpn;
      if (!isPaymentId(ipn.order_id)) return [];
      const payment = await lockCryptoPayment(trx, ipn.order_id, NOWPAYMENTS);
      // Only the NOWPayments payments we created for this invoice move it.
      const ours = (payment?.details.nowpayments_payment_ids ?? []) as string[];
      if (!payment || !ours.includes(String(ipn.payment_id))) return [];
      return applyOutcome(trx, payment, nowpaymentsOutcome(ipn), event.occurredAt, deps.publish);
    },
  };
}

function verifyIpn(ipnSecret: string, raw: Buffer, headers: IncomingHttpHeaders, now: Date): VerifiedEvent[] {
  const signature = headers['x-nowpayments-sig'];
  let p: unknown;
  try {
    p = JSON.parse(raw.toString('utf8'));
  } catch {
    throw webhookRejected('malformed body');
  }
  if (typeof p !== 'object' || p === null || Array.isArray(p)) throw webhookRejected('malformed body');
  const expected = nowpaymentsSignature(ipnSecret, p as Record<string, unknown>);
  if (typeof signature !== 'string' || !constantTimeEqual(signature.toLowerCase(), expected)) throw webhookRejected('bad signature');
  const ipn = p as NowIpn;
  if ((typeof ipn.payment_id !== 'number' && typeof ipn.payment_id !== 'string') || typeof ipn.payment_status !== 'string') {
    throw webhookRejected('malformed event');
  }
  const at = occurredAt(ipn, now);
  return [{ eventId: `${ipn.payment_id}:${ipn.payment_status}:${at.toISOString()}`, type: ipn.payment_status, occurredAt: at, payload: ipn }];
}
