/** The price list: the catalogue's SKUs (common/catalogue.ts) at their stored prices. */
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import { PRODUCTS, centsToUsd } from '../common/catalogue';
import * as repo from './products-repository';

/** Every SKU of the catalogue that has a price, in the catalogue's order; USD per unit. */
export async function listProducts(db: Kysely<Database>): Promise<{ products: { sku: string; price: number }[] }> {
  const prices = new Map((await repo.listPrices(db)).map((row) => [row.sku, row.price_cents]));
  return {
    products: PRODUCTS.flatMap(({ sku }) => {
      const cents = prices.get(sku);
      return cents === undefined ? [] : [{ sku, price: centsToUsd(cents) }];
    }),
  };
}
