/** What other features may use of checkout (the rest is the feature's own). */
export { purchaseQuery } from './lib/purchase-params';
