/**
 * BTCPay Server through its Greenfield API (`CRYPTO_PROVIDER=btcpay`; btc, ltc and xmr: BTCPay
 * has no bch or eth, docs/payments.md): the API (btcpay-api.ts), an invoice per payment
 * (btcpay-invoice.ts) and its signed webhooks (btcpay-webhook.ts).
 */
import type { Config } from '../../config';
import { BTCPAY, BTCPAY_CURRENCIES, btcpayApi, btcpaySettings } from './btcpay-api';
import { createBtcpayInvoice } from './btcpay-invoice';
import { btcpayWebhook } from './btcpay-webhook';
import type { CryptoProvider } from './crypto-provider';
import type { Publish } from './settlement';

export { BTCPAY } from './btcpay-api';
export { btcpayOutcome } from './btcpay-webhook';

export function createBtcpayProvider(deps: { config: Config; publish: Publish; fetch?: typeof fetch }): CryptoProvider {
  const settings = btcpaySettings(deps.config);
  const api = btcpayApi(settings, deps.fetch ?? fetch);
  return {
    name: BTCPAY,
    currencies: BTCPAY_CURRENCIES,
    createInvoice: (input) => createBtcpayInvoice(api, input),
    webhook: btcpayWebhook({ settings, api, publish: deps.publish }),
    health: () => api.healthy(),
  };
}
