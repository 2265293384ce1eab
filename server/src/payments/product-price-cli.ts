/** `product:set --sku SKU --price USD`: the price of the next checkouts, and its audit entry. */
import { productDef } from '../common/catalogue';
import { withDatabase } from '../db/cli-database';
import { UsageError, stringOption, type CommandContext, type OptionValues } from '../infra/operator-commands';
import { recordAudit } from '../audit/audit-service';
import { setPriceCents } from './products-repository';

export async function setPriceCommand({ operator }: CommandContext, values: OptionValues): Promise<number> {
  const sku = stringOption(values, 'sku') ?? '';
  if (!productDef(sku)) throw new UsageError(`--sku: unknown product "${sku}"`);
  const price = stringOption(values, 'price') ?? '';
  // Whole cents: 15.49, 0.05, 3.
  if (!/^\d{1,7}(\.\d{1,2})?$/.test(price) || Math.round(Number(price) * 100) <= 0) throw new UsageError('--price takes a positive USD amount with at most 2 decimals');
  const cents = Math.round(Number(price) * 100);
  return withDatabase(async (db) => {
    await db.transaction().execute(async (trx) => {
      const previous = await setPriceCents(trx, sku, cents);
      await recordAudit(trx, { operator, action: 'product:set', target: sku, details: { price_cents: cents, previous_price_cents: previous } });
    });
    process.stdout.write(`${sku}: $${(cents / 100).toFixed(2)} per unit from the next checkout\n`);
    return 0;
  });
}
