/** What other features may use of subscriptions (the rest is the feature's own). */
export { useProducts } from './api/use-products';
export { cryptoAllowed, formatUnitPrice, formatUsd, parseSku, periodName, productName, totalPrice, unitName } from './lib/catalogue';
export type { ParsedSku } from './lib/catalogue';
