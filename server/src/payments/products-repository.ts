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

/** Sets one SKU's price (the operator's product:set), in the caller's transaction; returns the price it had. */
export async function setPriceCents(trx: Kysely<Database>, sku: string, cents: number): Promise<number> {
  const before = await trx.selectFrom('products').select('price_cents').where('sku', '=', sku).forUpdate().executeTakeFirstOrThrow();
  await trx.updateTable('products').set({ price_cents: cents, updated_at: new Date() }).where('sku', '=', sku).executeTakeFirstOrThrow();
  return before.price_cents;
}
