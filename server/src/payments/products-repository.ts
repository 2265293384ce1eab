import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';

/** The catalogue's prices as stored (operators change them). */
export async function listPrices(db: Kysely<Database>): Promise<{ sku: string; price_cents: number }[]> {
  return db.selectFrom('products').select(['sku', 'price_cents']).execute();
}
