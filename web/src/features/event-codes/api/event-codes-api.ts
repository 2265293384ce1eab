import { api } from '@/lib/api';

export interface GrantedProduct {
  sku: string;
  quantity: number;
}

/** Shorter codes are never sent. */
export const EVENT_CODE_MIN_LENGTH = 4;

/** POST /user/event-code: the products granted; null when the code is invalid (non-ok or empty list). */
export async function redeemEventCode(code: string): Promise<GrantedProduct[] | null> {
  try {
    const { products } = await api.post<{ products?: GrantedProduct[] }>('/user/event-code', { code });
    return Array.isArray(products) && products.length > 0 ? products : null;
  } catch {
    return null;
  }
}
