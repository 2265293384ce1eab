/**
 * NOWPayments (`CRYPTO_PROVIDER=nowpayments`; btc, ltc, xmr, bch and eth). Their API creates
 * one payment per coin (`POST /v1/payment`, header `x-api-key`), so an invoice is one
 * NOWPayments payment per coin (nowpayments-invoice.ts); IPN callbacks are signed with
 * `NOWPAYMENTS_IPN_SECRET` (nowpayments-ipn.ts).
 */
import type { Config } from '../../config';
import { CRYPTO_CURRENCIES, type CryptoProvider } from './crypto-provider';
import { NOWPAYMENTS, nowpaymentsApi, nowpaymentsSettings } from './nowpayments-api';
import { createNowpaymentsInvoice } from './nowpayments-invoice';
import { nowpaymentsWebhook } from './nowpayments-ipn';
import type { Publish } from './settlement';

export { NOWPAYMENTS } from './nowpayments-api';
export { nowpaymentsOutcome, nowpaymentsSignature } from './nowpayments-ipn';

export function createNowpaymentsProvider(deps: { config: Config; publish: Publish; fetch?: typeof fetch }): CryptoProvider {
  const settings = nowpaymentsSettings(deps.config);
  const call = nowpaymentsApi(settings, deps.fetch ?? fetch);
  return {
    name: NOWPAYMENTS,
    currencies: CRYPTO_CURRENCIES,
    createInvoice: (input) => createNowpaymentsInvoice({ call, publicUrl: deps.config.publicUrl }, input),
    webhook: nowpaymentsWebhook({ ipnSecret: settings.NOWPAYMENTS_IPN_SECRET, publish: deps.publish }),
    async health() {
      try {
        const status = await call<{ message?: string }>('GET', '/v1/status');
        return status.message === 'OK';
      } catch {
        return false;
      }
    },
  };
}
