import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema';

type Db = Kysely<Database>;

/** The invoice settings the history answers with. */
export async function getInvoiceSettings(db: Db, userId: string) {
  return db.selectFrom('users').select(['store_extra_invoice_data']).where('id', '=', userId).where('closed_at', 'is', null).executeTakeFirst();
}

/** The billing details printed on the user's invoices (null until first saved). */
export async function getInvoiceDetails(db: Db, userId: string) {
  return db.selectFrom('users').select(['invoice_details']).where('id', '=', userId).where('closed_at', 'is', null).executeTakeFirst();
}

export async function setInvoiceDetails(db: Db, userId: string, details: Record<string, string>): Promise<boolean> {
  const result = await db
    .updateTable('users')
    .set({ invoice_details: JSON.stringify(details) })
    .where('id', '=', userId)
    .where('closed_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** One page of the user's invoices, newest first (ties by id, so pages never overlap). */
export async function listInvoices(db: Db, userId: string, page: { limit: number; offset: number }) {
  return db
    .selectFrom('invoices')
    .select(['id', 'item_type', 'quantity', 'created', 'amount_cents', 'method', 'extra_info'])
    .where('user_id', '=', userId)
    .orderBy('created', 'desc')
    .orderBy('id', 'desc')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
}

export async function countInvoices(db: Db, userId: string): Promise<number> {
  const row = await db.selectFrom('invoices').select(sql<string>`count(*)`.as('total')).where('user_id', '=', userId).executeTakeFirstOrThrow();
  return Number(row.total);
}

/** Deletes the user's invoices only; their payments stay (renewals and refunds need them). */
export async function deleteInvoices(db: Db, userId: string): Promise<number> {
  const result = await db.deleteFrom('invoices').where('user_id', '=', userId).executeTakeFirst();
  return Number(result.numDeletedRows);
}
