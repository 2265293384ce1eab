/**
 * BTCPay Server's Greenfield API for one store (`BTCPAY_URL`, `BTCPAY_STORE_ID`,
 * `BTCPAY_API_KEY`, header `Authorization: token <key>`): its settings, its calls, and the
 * shapes we read of its answers.
 */
import type { Config } from '../../config';
import { isCryptoCurrency, requireSettings, type CryptoCurrency } from './crypto-provider';
import { providerApi, PROVIDER_TIMEOUT_MS } from './provider-api';

export const BTCPAY = 'btcpay';
export const BTCPAY_CURRENCIES: CryptoCurrency[] = ['btc', 'ltc', 'xmr'];

/** Greenfield `InvoiceData` (the fields we read). */
export interface BtcpayInvoice {
  id: string;
  storeId?: string;
  status: 'New' | 'Processing' | 'Expired' | 'Invalid' | 'Settled';
  additionalStatus?: 'None' | 'PaidLate' | 'PaidPartial' | 'Marked' | 'Invalid' | 'PaidOver';
  metadata?: { orderId?: string };
}

/** Greenfield `InvoicePaymentMethodDataModel` (1.x names `paymentMethod`/`cryptoCode`, 2.x `paymentMethodId`/`currency`). */
export interface BtcpayPaymentMethod {
  paymentMethod?: string;
  paymentMethodId?: string;
  cryptoCode?: string;
  currency?: string;
  destination?: string;
  paymentLink?: string | null;
  rate?: string;
  due?: string;
  amount?: string;
  paymentMethodPaid?: string;
  totalPaid?: string;
  activated?: boolean;
}

/** The coin of a payment method; undefined for Lightning/LNURL and coins we do not offer. */
export function coinOf(method: BtcpayPaymentMethod): CryptoCurrency | undefined {
  const id = method.paymentMethodId ?? method.paymentMethod ?? '';
  if (/lightning|lnurl|-ln$|_ln$/i.test(id)) return undefined;
  const code = (method.currency ?? method.cryptoCode ?? id.split(/[-_]/)[0] ?? '').toLowerCase();
  return isCryptoCurrency(code) && BTCPAY_CURRENCIES.includes(code) ? code : undefined;
}

export type BtcpaySettings = ReturnType<typeof btcpaySettings>;

export function btcpaySettings(config: Config) {
  return requireSettings(config, BTCPAY, ['BTCPAY_URL', 'BTCPAY_STORE_ID', 'BTCPAY_API_KEY', 'BTCPAY_WEBHOOK_SECRET']);
}

export type BtcpayApi = ReturnType<typeof btcpayApi>;

export function btcpayApi(settings: BtcpaySettings, doFetch: typeof fetch) {
  const base = settings.BTCPAY_URL.replace(/\/+$/, '');
  const store = `${base}/api/v1/stores/${encodeURIComponent(settings.BTCPAY_STORE_ID)}`;
  const request = providerApi({ label: 'BTCPay', headers: { authorization: `token ${settings.BTCPAY_API_KEY}` }, fetch: doFetch });
  const call = <T>(method: 'GET' | 'POST', url: string, body?: unknown) => request<T>(method, url, new URL(url).pathname, body);
  const invoiceUrl = (id: string) => `${store}/invoices/${encodeURIComponent(id)}`;
  return {
    createInvoice: (body: unknown) => call<BtcpayInvoice>('POST', `${store}/invoices`, body),
    invoice: (id: string) => call<BtcpayInvoice>('GET', invoiceUrl(id)),
    paymentMethods: (id: string) => call<BtcpayPaymentMethod[]>('GET', `${invoiceUrl(id)}/payment-methods`),
    async healthy(): Promise<boolean> {
      try {
        const response = await doFetch(`${base}/api/v1/health`, { signal: AbortSignal.timeout(PROVIDER_TIMEOUT_MS) });
        return response.ok;
      } catch {
        return false;
      }
    },
  };
}
