import type { Kysely } from 'kysely';
import type { Database, Plan } from '../../db/schema';

type Db = Kysely<Database>;

/** The user's subscription of `plan` (a domain one by its id), with what a cancel checks. */
export async function findOwnSubscription(db: Db, userId: string, plan: Plan, id?: string) {
  let query = db
    .selectFrom('subscriptions')
    .select(['id', 'recurring', 'provider', 'provider_subscription_id', 'period_end', 'cancel_requested_at'])
    .where('user_id', '=', userId)
    .where('plan', '=', plan);
  if (id !== undefined) query = query.where('id', '=', id);
  return query.executeTakeFirst();
}

/** Notes that a cancel was asked; false when it already was (so the provider is asked once). */
export async function claimCancel(db: Db, subscriptionId: string): Promise<boolean> {
  const claimed = await db
    .updateTable('subscriptions')
    .set({ cancel_requested_at: new Date(), updated_at: new Date() })
    .where('id', '=', subscriptionId)
    .where('cancel_requested_at', 'is', null)
    .returning('id')
    .executeTakeFirst();
  return claimed !== undefined;
}

/** The provider refused: the cancel may be asked again. */
export async function releaseCancel(db: Db, subscriptionId: string): Promise<void> {
  await db.updateTable('subscriptions').set({ cancel_requested_at: null }).where('id', '=', subscriptionId).execute();
}
