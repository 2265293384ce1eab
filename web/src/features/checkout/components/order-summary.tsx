import { formatUnitPrice, formatUsd, periodName, productName, totalPrice, unitName } from '@/features/subscriptions';
import type { PurchaseParams } from '../lib/purchase-params';

/** Product, quantity and total of a checkout (the server prices the purchase itself). */
export function OrderSummary({ purchase, price }: { purchase: PurchaseParams; price: number }) {
  const { sku, quantity, parsed } = purchase;
  // A recurring plan renews once a period, whatever its unit (a domain plan counts domains).
  const renewsEvery = parsed.type === 'plan' && parsed.recurring ? periodName(parsed.period) : null;
  return (
    <dl className="order-summary" data-testid="order-summary">
      <div>
        <dt>Product</dt>
        <dd data-testid="order-product">{productName(sku)}</dd>
      </div>
      <div>
        <dt>Quantity</dt>
        <dd data-testid="order-quantity">
          {quantity.toLocaleString('en-US')} {unitName(sku, quantity)}
        </dd>
      </div>
      <div>
        <dt>Price</dt>
        <dd>
          {formatUnitPrice(price)} / {unitName(sku, 1)}
        </dd>
      </div>
      <div className="order-total">
        <dt>Total</dt>
        <dd data-testid="order-total">
          {formatUsd(totalPrice(price, quantity))}
          {renewsEvery && <span className="muted"> renews every {renewsEvery}</span>}
        </dd>
      </div>
    </dl>
  );
}
