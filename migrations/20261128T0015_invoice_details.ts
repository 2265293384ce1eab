import type { Kysely } from 'kysely';

// Frozen: never edit after it lands; add a new migration instead.
// The billing details a user asks to have printed on their invoices ("Save extra invoice
// details"): {name, company, address, vat_id}, each optional text. Copied into an invoice's
// extra_info when the invoice is written, while the setting is on; null until first saved.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('users').addColumn('invoice_details', 'jsonb').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('users').dropColumn('invoice_details').execute();
}
