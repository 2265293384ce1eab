/**
 * The product catalogue as the dashboard knows it (server/src/payments/README.md): SKU
 * scheme, default prices shown until GET /payments/get-products answers, readable names,
 * and the credit ranges of the purchase pages (spec 3 §9). The server prices every
 * purchase itself; these numbers are only what the page shows.
 */

export type PlanKind = 'search' | 'domain' | 'enterprise';
export type Period = 'weekly' | 'monthly' | 'yearly';
export type CreditKind = 'search-credits' | 'whois-credits';

export type ParsedSku =
  | { type: 'credits'; kind: CreditKind }
  | { type: 'plan'; kind: PlanKind; recurring: boolean; period: Period };

const PLAN_SKU = /^(search|domain|enterprise)-(sub|nonsub)-(weekly|monthly|yearly)$/;

export function parseSku(sku: string): ParsedSku | null {
  if (sku === 'search-credits' || sku === 'whois-credits') return { type: 'credits', kind: sku };
  const match = PLAN_SKU.exec(sku);
  if (!match) return null;
  return { type: 'plan', kind: match[1] as PlanKind, recurring: match[2] === 'sub', period: match[3] as Period };
}

export function planSku(kind: PlanKind, recurring: boolean, period: Period): string {
  return `${kind}-${recurring ? 'sub' : 'nonsub'}-${period}`;
}

/** Crypto only for SKUs whose second part is `credits` or `nonsub`: a card provider renews the rest. */
export function cryptoAllowed(sku: string): boolean {
  const second = sku.split('-')[1];
  return second === 'credits' || second === 'nonsub';
}

const PERIOD_ADJECTIVE: Record<Period, string> = { weekly: 'Weekly', monthly: 'Monthly', yearly: 'Annual' };

/** 'Monthly Search Subscription', 'Search Credits', 'Domain Monitoring (monthly)', 'Enterprise (monthly)'… */
export function productName(sku: string): string {
  const parsed = parseSku(sku);
  if (!parsed) return sku;
  if (parsed.type === 'credits') return parsed.kind === 'search-credits' ? 'Search Credits' : 'WHOIS Credits';
  const renewing = parsed.recurring ? ', auto-renew' : '';
  if (parsed.kind === 'search') return `${PERIOD_ADJECTIVE[parsed.period]} Search Subscription${parsed.recurring ? ' (auto-renew)' : ''}`;
  if (parsed.kind === 'domain') return `Domain Monitoring (${parsed.period}${renewing})`;
  return `Enterprise (${parsed.period}${renewing})`;
}

/** What one unit of a SKU is, for "× quantity" lines. */
export function unitName(sku: string, quantity: number): string {
  const parsed = parseSku(sku);
  const plural = quantity === 1 ? '' : 's';
  if (!parsed) return `unit${plural}`;
  if (parsed.type === 'credits') return `credit${plural}`;
  if (parsed.kind === 'domain') return `domain${plural}`;
  const period = { weekly: 'week', monthly: 'month', yearly: 'year' }[parsed.period];
  return `${period}${plural}`;
}

/** Spec 3 §9 defaults; subscriptions save 10% (rounded down to the cent, as the server's table). */
export const DEFAULT_PRICES: Record<string, number> = {
  'search-nonsub-weekly': 5.49,
  'search-nonsub-monthly': 15.49,
  'search-nonsub-yearly': 179.99,
  'search-sub-weekly': 4.94,
  'search-sub-monthly': 13.94,
  'search-sub-yearly': 161.99,
  'domain-nonsub-weekly': 3.49,
  'domain-nonsub-monthly': 9.99,
  'domain-nonsub-yearly': 109.99,
  'domain-sub-weekly': 3.14,
  'domain-sub-monthly': 8.99,
  'domain-sub-yearly': 98.99,
  'enterprise-nonsub-weekly': 29.99,
  'enterprise-nonsub-monthly': 99.99,
  'enterprise-nonsub-yearly': 1099.99,
  'enterprise-sub-weekly': 26.99,
  'enterprise-sub-monthly': 89.99,
  'enterprise-sub-yearly': 989.99,
  'search-credits': 0.05,
  'whois-credits': 0.02,
};

/** Periods a one-time plan may be bought for, and domains a domain plan may cover (server-enforced). */
export const MAX_PERIODS = 52;
export const MAX_DOMAINS = 100;

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
  standard: { id: 'standard', label: 'Standard', min: 0, max: 10_000, tiers: [0.05, 0.5, 1] },
  enterprise: { id: 'enterprise', label: 'Enterprise', min: 10_000, max: 100_000, tiers: [0.1, 0.5, 1] },
  whois: { id: 'whois', label: 'WHOIS', min: 0, max: 50_000, tiers: [0.05, 0.5, 1] },
};

export const SLIDER_STEP_FRACTION = 0.05;

export function tierQuantities(range: CreditRange): number[] {
  return range.tiers.map((fraction) => Math.round(range.max * fraction));
}

export function sliderStep(range: CreditRange): number {
  return Math.round(range.max * SLIDER_STEP_FRACTION);
}

/** Digits only, clamped to 0..max; '' stays '' (spec 3 §5). */
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
