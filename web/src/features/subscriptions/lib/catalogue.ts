/**
 * The purchase pages' view of the catalogue. The SKU scheme, quantity limits, crypto rule,
 * product names and default prices are the server's own (`@common/catalogue`); added here:
 * the default prices in USD, shown until GET /payments/get-products answers, and the credit
 * ranges of the purchase pages. The server prices every purchase itself.
 */
import {
  DEFAULT_PRICE_CENTS,
  MAX_DOMAINS,
  MAX_PERIODS,
  SEARCH_CREDITS_MAX,
  SEARCH_CREDITS_STANDARD_MAX,
  WHOIS_CREDITS_MAX,
  centsToUsd,
  cryptoAllowed,
  productDef,
  productName,
  type BillingInterval,
  type Plan,
} from '@common/catalogue';

export { MAX_DOMAINS, MAX_PERIODS, cryptoAllowed, productName };

export type PlanKind = Plan;
export type Period = BillingInterval;
export type CreditKind = 'search-credits' | 'whois-credits';

export type ParsedSku =
  | { type: 'credits'; kind: CreditKind }
  | { type: 'plan'; kind: PlanKind; recurring: boolean; period: Period };

export function parseSku(sku: string): ParsedSku | null {
  const product = productDef(sku);
  if (!product) return null;
  if (product.kind === 'credits') return { type: 'credits', kind: product.credit === 'search' ? 'search-credits' : 'whois-credits' };
  return { type: 'plan', kind: product.plan, recurring: product.recurring, period: product.interval };
}

export function planSku(kind: PlanKind, recurring: boolean, period: Period): string {
  return `${kind}-${recurring ? 'sub' : 'nonsub'}-${period}`;
}

const PERIOD_NAMES: Record<Period, string> = { weekly: 'week', monthly: 'month', yearly: 'year' };

/** One period of a plan in words ("renews every month"). */
export function periodName(period: Period): string {
  return PERIOD_NAMES[period];
}

/** What one unit of a SKU is, for "× quantity" lines: a domain plan is counted in domains. */
export function unitName(sku: string, quantity: number): string {
  const parsed = parseSku(sku);
  const plural = quantity === 1 ? '' : 's';
  if (!parsed) return `unit${plural}`;
  if (parsed.type === 'credits') return `credit${plural}`;
  if (parsed.kind === 'domain') return `domain${plural}`;
  return `${periodName(parsed.period)}${plural}`;
}

/** Default prices in USD per unit, shown until GET /payments/get-products answers. */
export const DEFAULT_PRICES: Record<string, number> = Object.fromEntries(
  Object.entries(DEFAULT_PRICE_CENTS).map(([sku, cents]) => [sku, centsToUsd(cents)]),
);

/** A credit range of a purchase page: tier tiles at fractions of `max`, a slider in 5% steps. */
export interface CreditRange {
  id: string;
  label: string;
  /** Smallest quantity sold in this range (the slider's start). */
  min: number;
  max: number;
  tiers: number[];
}

export const CREDIT_RANGES: Record<'standard' | 'enterprise' | 'whois', CreditRange> = {
  standard: { id: 'standard', label: 'Standard', min: 0, max: SEARCH_CREDITS_STANDARD_MAX, tiers: [0.05, 0.5, 1] },
  enterprise: { id: 'enterprise', label: 'Enterprise', min: SEARCH_CREDITS_STANDARD_MAX, max: SEARCH_CREDITS_MAX, tiers: [0.1, 0.5, 1] },
  whois: { id: 'whois', label: 'WHOIS', min: 0, max: WHOIS_CREDITS_MAX, tiers: [0.05, 0.5, 1] },
};

export const SLIDER_STEP_FRACTION = 0.05;

export function tierQuantities(range: CreditRange): number[] {
  return range.tiers.map((fraction) => Math.round(range.max * fraction));
}

export function sliderStep(range: CreditRange): number {
  return Math.round(range.max * SLIDER_STEP_FRACTION);
}

/** Digits only, clamped to 0..max; '' stays ''. */
export function clampQuantityText(text: string, max: number): string {
  const digits = text.replace(/\D/g, '');
  if (digits === '') return '';
  return String(Math.min(Number(digits), max));
}

/** Price × quantity − discount %, in cents to avoid float drift. */
export function totalPrice(price: number, quantity: number, discountPercent = 0): number {
  const cents = Math.round(price * 100) * quantity;
  return Math.round(cents * (1 - discountPercent / 100)) / 100;
}

const usd = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', minimumFractionDigits: 2 });

export function formatUsd(amount: number): string {
  return usd.format(amount);
}

/** Prices per credit need more than two decimals to be readable ($0.05 is fine, $0.005 is not). */
export function formatUnitPrice(amount: number): string {
  return amount < 0.1 ? `$${amount.toFixed(amount * 100 === Math.round(amount * 100) ? 2 : 3)}` : formatUsd(amount);
}

export function formatCredits(credits: number): string {
  return `${credits.toLocaleString('en-US')} CR`;
}
