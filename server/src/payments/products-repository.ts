import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';

/** The catalogue's prices as stored (operators change them). */
export async function listPrices(db: Kysely<Database>): Promise<{ sku: string; price_cents: number }[]> {
  return db.selectFrom('products').select(['sku', 'price_cents']).execute();
}

/** One SKU's stored price in cents; undefined when it has none. */
export async function findPriceCents(db: Kysely<Database>, sku: string): Promise<number | undefined> {
  return (await db.selectFrom('products').select('price_cents').where('sku', '=', sku).executeTakeFirst())?.price_cents;
}
