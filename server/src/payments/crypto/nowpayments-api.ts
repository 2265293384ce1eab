/** NOWPayments' API (`x-api-key`): the settings it needs and its calls, paths under NOWPAYMENTS_API_URL. */
import type { Config } from '../../config';
import { requireSettings } from './crypto-provider';
import { providerApi } from './provider-api';

export const NOWPAYMENTS = 'nowpayments';

export type NowpaymentsSettings = ReturnType<typeof nowpaymentsSettings>;

export function nowpaymentsSettings(config: Config) {
  return requireSettings(config, NOWPAYMENTS, ['NOWPAYMENTS_API_URL', 'NOWPAYMENTS_API_KEY', 'NOWPAYMENTS_IPN_SECRET']);
}

export type NowpaymentsCall = <T>(method: 'GET' | 'POST', path: string, body?: unknown) => Promise<T>;

export function nowpaymentsApi(settings: NowpaymentsSettings, doFetch: typeof fetch): NowpaymentsCall {
  const base = settings.NOWPAYMENTS_API_URL.replace(/\/+$/, '');
  const call = providerApi({ label: 'NOWPayments', headers: { 'x-api-key': settings.NOWPAYMENTS_API_KEY }, fetch: doFetch });
  return (method, path, body) => call(method, `${base}${path}`, path.split('?')[0]!, body);
}
