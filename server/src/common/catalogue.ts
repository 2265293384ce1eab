/**
 * The catalogue's rules, shared by the server and the dashboard (as credentials.ts is):
 * which SKUs exist, what a quantity may be, what a purchase grants, what it is called.
 * Prices live in the `products` table (operators change them); the server computes every
 * amount from SKU and quantity, never from what a browser sends. The default prices are
 * written once, here. See docs/payments.md.
 */

export type Plan = 'search' | 'domain' | 'enterprise';
export type BillingInterval = 'weekly' | 'monthly' | 'yearly';

export const INTERVAL_DAYS: Record<BillingInterval, number> = { weekly: 7, monthly: 30, yearly: 365 };

export type CreditKind = 'search' | 'whois';

export type ProductDef =
  | { sku: string; kind: 'plan'; plan: Plan; recurring: boolean; interval: BillingInterval; maxQuantity: number }
  | { sku: string; kind: 'credits'; credit: CreditKind; maxQuantity: number };

/** Standard search credits go to 10,000, enterprise from 10,000 to 100,000; more through support. */
export const SEARCH_CREDITS_MAX = 100_000;
export const SEARCH_CREDITS_STANDARD_MAX = 10_000;
export const WHOIS_CREDITS_MAX = 50_000;
/** A one-time plan is bought for up to a year of weeks, or as many domains as this. */
export const MAX_PERIODS = 52;
export const MAX_DOMAINS = 100;

const PLANS: Plan[] = ['search', 'domain', 'enterprise'];
const INTERVALS: BillingInterval[] = ['weekly', 'monthly', 'yearly'];

export const PRODUCTS: ProductDef[] = [
  { sku: 'search-credits', kind: 'credits', credit: 'search', maxQuantity: SEARCH_CREDITS_MAX },
  { sku: 'whois-credits', kind: 'credits', credit: 'whois', maxQuantity: WHOIS_CREDITS_MAX },
  ...PLANS.flatMap((plan) =>
    INTERVALS.flatMap((interval) =>
      [false, true].map((recurring): ProductDef => ({
        sku: `${plan}-${recurring ? 'sub' : 'nonsub'}-${interval}`,
        kind: 'plan',
        plan,
        recurring,
        interval,
        // Domains are counted per domain; other recurring plans renew one period at a time.
        maxQuantity: plan === 'domain' ? MAX_DOMAINS : recurring ? 1 : MAX_PERIODS,
      })),
    ),
  ),
];

/** One-time plans per period, in cents; a subscription (`*-sub-*`) saves 10% of these. */
const ONE_TIME_PLAN_CENTS: Record<Plan, Record<BillingInterval, number>> = {
  search: { weekly: 549, monthly: 1549, yearly: 17999 },
  domain: { weekly: 349, monthly: 999, yearly: 10999 },
  enterprise: { weekly: 2999, monthly: 9999, yearly: 109999 },
};
const CREDIT_CENTS: Record<CreditKind, number> = { search: 5, whois: 2 };

function defaultPriceCents(product: ProductDef): number {
  if (product.kind === 'credits') return CREDIT_CENTS[product.credit];
  const oneTime = ONE_TIME_PLAN_CENTS[product.plan][product.interval];
  // Rounded down to the cent: $5.49 a week becomes $4.94.
  return product.recurring ? Math.floor((oneTime * 9) / 10) : oneTime;
}

/**
 * Every SKU's default price in cents per unit: what the `products` table is seeded with
 * (migrations/20261123T0003_payments.ts) and what the purchase pages show until the
 * server's prices arrive. Operators change the stored prices (product:set); changing one
 * here changes new databases only, so it comes with a migration that writes it to existing
 * ones.
 */
export const DEFAULT_PRICE_CENTS: Readonly<Record<string, number>> = Object.fromEntries(
  PRODUCTS.map((product) => [product.sku, defaultPriceCents(product)]),
);

const BY_SKU = new Map(PRODUCTS.map((product) => [product.sku, product]));

export function productDef(sku: string): ProductDef | undefined {
  return BY_SKU.get(sku);
}

/** Crypto only for SKUs whose second part is `credits` or `nonsub` (no renewals). */
export function cryptoAllowed(sku: string): boolean {
  const second = sku.split('-')[1];
  return second === 'credits' || second === 'nonsub';
}

/** A message when `quantity` is not one this SKU can be bought in, else undefined. */
export function quantityProblem(product: ProductDef, quantity: number): string | undefined {
  if (!Number.isInteger(quantity) || quantity < 1) return 'Quantity must be a whole number of at least 1';
  if (quantity > product.maxQuantity) return `Quantity must be at most ${product.maxQuantity.toLocaleString('en-US')}; contact support for more`;
  return undefined;
}

/** Price × quantity, in cents (no discount: the coupon field applies none). */
export function amountCents(priceCents: number, quantity: number): number {
  return priceCents * quantity;
}

export function centsToUsd(cents: number): number {
  return Math.round(cents) / 100;
}

const INTERVAL_NAMES: Record<BillingInterval, string> = { weekly: 'Weekly', monthly: 'Monthly', yearly: 'Annual' };
const PLAN_NAMES: Record<Plan, string> = { search: 'Search Subscription', domain: 'Domain Monitoring', enterprise: 'Enterprise' };

/** A readable name for invoices, mails and the thank-you page. */
export function productName(sku: string): string {
  const product = productDef(sku);
  if (!product) return sku;
  if (product.kind === 'credits') return product.credit === 'search' ? 'Search Credits' : 'WHOIS Credits';
  return `${INTERVAL_NAMES[product.interval]} ${PLAN_NAMES[product.plan]}${product.recurring ? ' (auto-renew)' : ''}`;
}
