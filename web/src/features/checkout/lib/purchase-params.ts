import { parseSku, type ParsedSku } from '@/features/subscriptions';

export interface PurchaseParams {
  sku: string;
  parsed: ParsedSku;
  quantity: number;
}

/** `?p={sku}&q={quantity}`: null when the SKU is missing or unknown; q defaults to 1. */
export function readPurchaseParams(search: string): PurchaseParams | null {
  const params = new URLSearchParams(search);
  const sku = params.get('p') ?? '';
  const parsed = parseSku(sku);
  if (!parsed) return null;
  const q = Number(params.get('q') ?? '1');
  const quantity = Number.isInteger(q) && q > 0 ? q : 1;
  return { sku, parsed, quantity };
}

export function purchaseQuery(sku: string, quantity: number): string {
  return new URLSearchParams({ p: sku, q: String(quantity) }).toString();
}
