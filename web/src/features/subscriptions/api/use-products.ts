import useSWR from 'swr';
import { useSession } from '@/lib/session';
import { toast } from '@/lib/toast-store';
import { DEFAULT_PRICES } from '../lib/catalogue';
import { getProducts } from './subscriptions-api';

const PRODUCTS_KEY = '/payments/get-products';

/** GET /payments/get-products; until it answers (or if it fails) the documented default prices show. */
export function useProducts() {
  const { token } = useSession();
  const { data, isLoading } = useSWR(token ? PRODUCTS_KEY : null, getProducts, {
    onError: () => toast.error('could not load'),
  });
  const prices = new Map(data?.products.map((product) => [product.sku, Number(product.price)]));
  const priceOf = (sku: string): number => prices.get(sku) ?? DEFAULT_PRICES[sku] ?? 0;
  return { priceOf, loaded: Boolean(data), isLoading };
}
