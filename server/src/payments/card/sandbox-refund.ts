/** `npm run admin -- payment:refund`: an approved full refund of a paid sandbox payment. */
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema';
import { AppError, Errors } from '../../infra/errors';
import { isPaymentId } from '../payments';
import { findPayment } from '../payments-repository';
import type { SandboxDelivery } from './sandbox-delivery';
import { sandboxRefundAdjustment } from './sandbox-events';

export async function refundSandboxPayment(deps: { db: Kysely<Database>; deliver: SandboxDelivery['deliver'] }, paymentId: string): Promise<{ eventId: string }> {
  if (!isPaymentId(paymentId)) throw Errors.notFound(`No payment ${paymentId}`);
  const payment = await findPayment(deps.db, paymentId);
  if (!payment || payment.provider !== 'sandbox') throw Errors.notFound(`No sandbox payment ${paymentId}`);
  if (payment.status !== 'paid' || !payment.provider_ref) throw new AppError(409, 'NOT_PAID', `Payment ${paymentId} is ${payment.status}: only a paid payment is refunded`);
  return deps.deliver('adjustment.created', sandboxRefundAdjustment(payment));
}
