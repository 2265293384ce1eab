/** `npm run admin -- payment:renew`: a renewal charge of a sandbox subscription. */
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema';
import { AppError, Errors } from '../../infra/errors';
import { findProviderSubscription } from '../payments-repository';
import { findPriceCents } from '../products-repository';
import type { SandboxDelivery } from './sandbox-delivery';
import { sandboxItem, sandboxTransaction } from './sandbox-events';

/** `transaction.completed` with origin `subscription_recurring`, at today's price. */
export async function renewSandboxSubscription(
  deps: { db: Kysely<Database>; deliver: SandboxDelivery['deliver'] },
  providerSubscriptionId: string,
): Promise<{ eventId: string }> {
  const sub = await findProviderSubscription(deps.db, 'sandbox', providerSubscriptionId);
  if (!sub) throw Errors.notFound(`No sandbox subscription ${providerSubscriptionId}`);
  if (!sub.recurring) throw new AppError(409, 'NOT_RECURRING', `Subscription ${providerSubscriptionId} does not renew (cancelled or refunded)`);
  const sku = `${sub.plan}-sub-${sub.billing_interval}`;
  const unit = (await findPriceCents(deps.db, sku)) ?? 0;
  return deps.deliver(
    'transaction.completed',
    sandboxTransaction({ origin: 'subscription_recurring', subscriptionId: providerSubscriptionId, customData: null, items: [sandboxItem(sku, sub.quantity, unit)], totalCents: unit * sub.quantity }),
  );
}
