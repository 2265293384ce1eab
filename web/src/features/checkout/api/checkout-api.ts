import { api } from '@/lib/api';

/** GET /payments/card-config: how to load and configure the card provider's overlay. */
export interface CardConfig {
  provider: 'sandbox' | 'paddle';
  script_url: string;
  global_name: string;
  token: string;
  environment?: string | null;
  price_ids: Record<string, string>;
}

export function getCardConfig() {
  return api.get<CardConfig>('/payments/card-config');
}

/** GET /misc/check (no auth): the database and the providers answer. */
export async function checkHealth(): Promise<boolean> {
  try {
    const { success } = await api.get<{ success?: boolean }>('/misc/check', 'none');
    return success === true;
  } catch {
    return false;
  }
}

/** A pending checkout priced by the server; its id travels to the provider as customData. */
export function createCheckout(sku: string, quantity: number) {
  return api.post<{ checkout_id: string; sku: string; quantity: number; amount: number }>('/payments/checkout', { sku, quantity });
}

export type CryptoCurrency = 'btc' | 'ltc' | 'xmr' | 'bch' | 'eth';

export interface CryptoPaymentOption {
  currency: CryptoCurrency | string;
  paymentAddress: string;
  /** Address plus amount, as wallets read it. */
  paymentFullString: string;
  currencyAmount: number | string;
  usdRate: number | string;
}

export interface CryptoInvoice {
  id: string;
  expiration: string;
  payment_options: CryptoPaymentOption[];
}

export function createCryptoInvoice(sku: string, quantity: number) {
  return api.post<CryptoInvoice>('/payments/crypto-invoice', { sku, quantity });
}
