/**
 * The SQL of payments and their provider events. The rules (what may be bought, which move
 * a payment may make) are in payments.ts and ingress.ts; these run in the caller's
 * transaction where one is given.
 */
import type { Insertable, Kysely, Selectable, Transaction, Updateable } from 'kysely';
import type { Database, PaymentsTable } from '../db/schema';

type Db = Kysely<Database> | Transaction<Database>;
export type Payment = Selectable<PaymentsTable>;

/** What buying a plan checks of the account: its enterprise and recurring search state. */
export async function findBuyer(db: Db, userId: string) {
  return db.selectFrom('users').select(['is_enterprise', 'enterprise_until', 'search_is_recurring', 'search_subscribed_until']).where('id', '=', userId).executeTakeFirst();
}

export async function insertPayment(db: Db, values: Insertable<PaymentsTable>): Promise<Payment> {
  return db.insertInto('payments').values(values).returningAll().executeTakeFirstOrThrow();
}

/** A payment by id (no lock). */
export async function findPayment(db: Db, id: string): Promise<Payment | undefined> {
  return db.selectFrom('payments').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The payment, locked for the rest of `trx`. */
export async function lockPayment(trx: Db, where: { id: string } | { provider: string; providerRef: string }): Promise<Payment | undefined> {
  let query = trx.selectFrom('payments').selectAll();
  query = 'id' in where ? query.where('id', '=', where.id) : query.where('provider', '=', where.provider).where('provider_ref', '=', where.providerRef);
  return query.forUpdate().executeTakeFirst();
}

export async function updatePayment(trx: Db, id: string, set: Updateable<PaymentsTable>): Promise<void> {
  await trx.updateTable('payments').set(set).where('id', '=', id).execute();
}

/** The first paid (or since refunded) purchase of a provider's subscription. */
export async function findFirstPurchase(trx: Db, provider: string, providerSubscriptionId: string): Promise<Payment | undefined> {
  return trx
    .selectFrom('payments')
    .selectAll()
    .where('provider', '=', provider)
    .where('provider_subscription_id', '=', providerSubscriptionId)
    .where('status', 'in', ['paid', 'refunded'])
    .orderBy('created_at')
    .executeTakeFirst();
}

/** A renewal's payment; undefined when the provider's charge (`provider_ref`) was recorded already. */
export async function insertRenewalPayment(trx: Db, values: Insertable<PaymentsTable>): Promise<Payment | undefined> {
  return trx
    .insertInto('payments')
    .values(values)
    .onConflict((oc) => oc.columns(['provider', 'provider_ref']).where('provider_ref', 'is not', null).doNothing())
    .returningAll()
    .executeTakeFirst();
}

/** Pending payments whose time ran out become expired; their ids and owners. */
export async function expireOverdue(db: Db, now: Date): Promise<{ id: string; user_id: string }[]> {
  return db
    .updateTable('payments')
    .set({ status: 'expired', last_event_at: now })
    .where('status', '=', 'pending')
    .where('expires_at', '<', now)
    .returning(['id', 'user_id'])
    .execute();
}

/** The account's invoice settings and billing details. */
export async function findInvoiceSettings(trx: Db, userId: string) {
  return trx.selectFrom('users').select(['store_invoices', 'store_extra_invoice_data', 'invoice_details']).where('id', '=', userId).executeTakeFirstOrThrow();
}

/** The invoice of a payment (once: its id is the payment's). */
export async function insertInvoice(trx: Db, values: Insertable<Database['invoices']>): Promise<void> {
  await trx.insertInto('invoices').values(values).onConflict((oc) => oc.column('id').doNothing()).execute();
}

/**
 * Stores a provider's event; a duplicate delivery changes nothing but returns the stored row
 * (a no-op update), so a retry can enqueue an event whose first delivery failed to.
 */
export async function storeEvent(db: Db, event: { provider: string; eventId: string; type: string; occurredAt: Date; payload: unknown }) {
  return db
    .insertInto('payment_events')
    .values({
      provider: event.provider,
      event_id: event.eventId,
      event_type: event.type,
      occurred_at: event.occurredAt,
      payload: JSON.stringify(event.payload),
    })
    .onConflict((oc) => oc.constraint('payment_events_provider_event_key').doUpdateSet((eb) => ({ provider: eb.ref('excluded.provider') })))
    .returning(['id', 'processed_at'])
    .executeTakeFirstOrThrow();
}

/** The stored event, locked for the rest of `trx`. */
export async function lockEvent(trx: Db, eventRowId: string) {
  return trx.selectFrom('payment_events').selectAll().where('id', '=', eventRowId).forUpdate().executeTakeFirst();
}

export async function markEventProcessed(trx: Db, eventRowId: string): Promise<void> {
  await trx
    .updateTable('payment_events')
    .set((eb) => ({ processed_at: new Date(), attempts: eb('attempts', '+', 1), last_error: null }))
    .where('id', '=', eventRowId)
    .execute();
}

export async function markEventFailed(db: Db, eventRowId: string, error: string): Promise<void> {
  await db
    .updateTable('payment_events')
    .set((eb) => ({ attempts: eb('attempts', '+', 1), last_error: error.slice(0, 500) }))
    .where('id', '=', eventRowId)
    .execute();
}

/** What the sandbox needs of a provider's subscription to charge its renewal. */
export async function findProviderSubscription(db: Db, provider: string, providerSubscriptionId: string) {
  return db
    .selectFrom('subscriptions')
    .select(['plan', 'billing_interval', 'quantity', 'recurring'])
    .where('provider', '=', provider)
    .where('provider_subscription_id', '=', providerSubscriptionId)
    .executeTakeFirst();
}
