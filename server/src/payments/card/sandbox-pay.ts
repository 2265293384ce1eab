/** The sandbox overlay's Pay: the checkout's `transaction.completed`, signed and enqueued. */
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema';
import { AppError, Errors } from '../../infra/errors';
import { productDef } from '../../common/catalogue';
import { isPaymentId } from '../payments';
import { findPayment } from '../payments-repository';
import type { SandboxDelivery } from './sandbox-delivery';
import { sandboxItem, sandboxTransaction } from './sandbox-events';

/** Refuses a checkout that is not an open sandbox card payment. */
export async function paySandboxCheckout(deps: { db: Kysely<Database>; deliver: SandboxDelivery['deliver'] }, checkoutId: string): Promise<{ eventId: string }> {
  if (!isPaymentId(checkoutId)) throw Errors.notFound();
  const payment = await findPayment(deps.db, checkoutId);
  if (!payment || payment.provider !== 'sandbox' || payment.method !== 'card') throw Errors.notFound();
  if (payment.status !== 'pending') throw new AppError(409, 'CHECKOUT_CLOSED', 'This checkout is not open');
  const product = productDef(payment.sku);
  const recurring = product?.kind === 'plan' && product.recurring;
  return deps.deliver(
    'transaction.completed',
    sandboxTransaction({
      origin: 'web',
      subscriptionId: recurring ? `sandbox-sub-${randomUUID()}` : null,
      customData: { checkout_id: payment.id },
      items: [sandboxItem(payment.sku, payment.quantity, Math.round(payment.amount_cents / payment.quantity))],
      totalCents: payment.amount_cents,
    }),
  );
}
