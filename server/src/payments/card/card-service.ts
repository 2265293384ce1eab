/**
 * Card checkout and cancel, for the routes: a checkout is a pending payment priced by the
 * server (openPayment); a cancel asks the provider to stop renewing at the period's end and
 * notes when it was asked. The subscription stops renewing only when the provider's cancel
 * event arrives (stopRenewing, in the webhook's job); access runs to period_end.
 */
import type { Kysely } from 'kysely';
import type { Database, Plan } from '../../db/schema';
import { AppError, Errors } from '../../infra/errors';
import { centsToUsd, productDef } from '../../common/catalogue';
import { openPayment } from '../payments';
import type { AnyCardProvider } from './card-provider';
import type { CancelType } from '../payments-service';
import * as repo from './card-repository';

/** 'subscription-monitoring' is the enterprise plan (monitoring API). */
const PLAN_OF: Record<CancelType, Plan> = {
  'subscription-search': 'search',
  'subscription-monitoring': 'enterprise',
  'subscription-domain': 'domain',
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function createCardService(deps: { db: Kysely<Database>; card: AnyCardProvider; log?: { warn(obj: object, msg: string): void } }) {
  const { db, card } = deps;
  return {
    async checkout(userId: string, sku: string, quantity: number) {
      // A SKU the provider has no price for cannot be bought by card (Paddle: PADDLE_PRICE_IDS).
      if (productDef(sku) && !card.clientConfig().price_ids[sku]) throw Errors.badRequest('This product cannot be bought by card');
      const payment = await openPayment(db, { userId, sku, quantity, method: 'card', provider: card.name });
      return { checkout_id: payment.id, sku: payment.sku, quantity: payment.quantity, amount: centsToUsd(payment.amount_cents) };
    },

    /**
     * Cancels the user's recurring subscription of that kind at the end of its period. 404
     * when there is none: not the user's, not recurring, ended, or not the card provider's.
     */
    async cancel(userId: string, type: CancelType, id: string): Promise<void> {
      const plan = PLAN_OF[type];
      if (plan === 'domain' && !UUID.test(id)) throw Errors.notFound('No recurring subscription to cancel');
      const sub = await repo.findOwnSubscription(db, userId, plan, plan === 'domain' ? id : undefined);
      if (!sub || !sub.recurring || sub.provider !== card.name || !sub.provider_subscription_id || sub.period_end.getTime() <= Date.now()) {
        throw Errors.notFound('No recurring subscription to cancel');
      }
      // Asked once: a second click (or a concurrent one) does not call the provider again.
      const claimed = await repo.claimCancel(db, sub.id);
      if (!claimed) return;
      try {
        await card.cancel(sub.provider_subscription_id);
      } catch (error) {
        await repo.releaseCancel(db, sub.id);
        deps.log?.warn({ err: { message: (error as Error).message }, provider: card.name }, 'card provider cancel failed');
        throw new AppError(502, 'PROVIDER_ERROR', 'Issue cancelling subscription');
      }
    },
  };
}

export type CardService = ReturnType<typeof createCardService>;
