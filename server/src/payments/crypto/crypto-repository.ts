/** The SQL of crypto invoices: a crypto payment's invoice facts and who may see them. */
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema';
import { isPaymentId } from '../payments';

/** Keeps what the provider answered: its invoice id and the payment options (and its own facts). */
export async function saveInvoice(db: Kysely<Database>, paymentId: string, invoice: { providerRef: string; details: Record<string, unknown> }): Promise<void> {
  await db
    .updateTable('payments')
    .set({ provider_ref: invoice.providerRef, details: JSON.stringify(invoice.details) })
    .where('id', '=', paymentId)
    .execute();
}

/** The user's own crypto invoice; undefined for anyone else's (or none). */
export async function findOwnCryptoInvoice(db: Kysely<Database>, paymentId: string, userId: string) {
  if (!isPaymentId(paymentId)) return undefined;
  return db
    .selectFrom('payments')
    .select(['id', 'status', 'expires_at', 'created_at', 'details'])
    .where('id', '=', paymentId)
    .where('user_id', '=', userId)
    .where('method', '=', 'crypto')
    .executeTakeFirst();
}
