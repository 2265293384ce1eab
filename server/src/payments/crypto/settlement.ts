/**
 * What a crypto provider's event does to its payment, the same for every provider: paid
 * (also late, also overpaid) grants once, partial notes what arrived and stays pending,
 * expired ends an unpaid invoice, refunded takes back. Each outcome that changed the
 * payment tells the invoice's page over the websocket (`crypto-payment-{id}`) once the
 * transaction committed: the browser hears what the database says.
 */
import type { Transaction } from 'kysely';
import type { Database } from '../../db/schema';
import type { AfterCommit } from '../ingress';
import { isPaymentId, lockPayment, markExpired, markPaid, markRefunded, noteDetails, type Payment } from '../payments';

type Trx = Transaction<Database>;

/** Publishes to a websocket channel (realtime hub; across instances through Redis). */
export type Publish = (channel: string, data: unknown) => void | Promise<void>;

export type InvoiceOutcome =
  | { kind: 'paid'; details?: Record<string, unknown> }
  | { kind: 'partial'; details: Record<string, unknown> }
  | { kind: 'expired'; details?: Record<string, unknown> }
  | { kind: 'refunded' }
  /** An event that changes nothing (a new invoice, a payment seen but not confirmed). */
  | { kind: 'none'; details?: Record<string, unknown> };

export function cryptoChannel(paymentId: string): string {
  return `crypto-payment-${paymentId}`;
}

/** The crypto payment `id` of `provider`, locked; undefined when it is not one (never someone else's). */
export async function lockCryptoPayment(trx: Trx, id: unknown, provider: string): Promise<Payment | undefined> {
  if (!isPaymentId(id)) return undefined;
  const payment = await lockPayment(trx, { id });
  return payment && payment.method === 'crypto' && payment.provider === provider ? payment : undefined;
}

/** Applies `outcome` to the locked `payment`; returns the websocket message to send after commit. */
export async function applyOutcome(trx: Trx, payment: Payment, outcome: InvoiceOutcome, occurredAt: Date, publish: Publish): Promise<AfterCommit[]> {
  const channel = cryptoChannel(payment.id);
  const tell = (data: Record<string, unknown>): AfterCommit[] => [() => publish(channel, data)];
  const noted = async (details: Record<string, unknown> | undefined): Promise<Payment> => {
    if (!details || Object.keys(details).length === 0) return payment;
    await noteDetails(trx, payment, details, occurredAt);
    // markPaid writes details from the row it is given: hand it the row as it now is.
    return (await lockPayment(trx, { id: payment.id }))!;
  };
  switch (outcome.kind) {
    case 'paid': {
      const current = await noted(outcome.details);
      return (await markPaid(trx, current, { occurredAt })) ? tell({ status: 'complete' }) : [];
    }
    case 'partial': {
      if (payment.status !== 'pending') return [];
      await noted(outcome.details);
      return tell({ status: 'partial', ...outcome.details });
    }
    case 'expired': {
      const current = await noted(outcome.details);
      return (await markExpired(trx, current, { occurredAt })) ? tell({ status: 'expired' }) : [];
    }
    case 'refunded':
      return (await markRefunded(trx, payment, { occurredAt })) ? tell({ status: 'refunded' }) : [];
    case 'none':
      await noted(outcome.details);
      return [];
  }
}
