/**
 * One JSON call to a crypto provider's API (BTCPay, NOWPayments): a bounded wait, and
 * failures as `CryptoProviderError` naming only the provider, the call and the HTTP status:
 * never the key or the answer's body, which reach the log.
 */
import { CryptoProviderError } from './crypto-provider';

export const PROVIDER_TIMEOUT_MS = 10_000;

export type ProviderCall = <T>(method: 'GET' | 'POST', url: string, shownPath: string, body?: unknown) => Promise<T>;

/** `label` names the provider in errors; `headers` authenticate every call. */
export function providerApi(options: { label: string; headers: Record<string, string>; fetch: typeof fetch }): ProviderCall {
  return async <T>(method: 'GET' | 'POST', url: string, shownPath: string, body?: unknown): Promise<T> => {
    let response: Response;
    try {
      response = await options.fetch(url, {
        method,
        headers: { ...options.headers, accept: 'application/json', ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
        signal: AbortSignal.timeout(PROVIDER_TIMEOUT_MS),
      });
    } catch (error) {
      throw new CryptoProviderError(`${options.label} unreachable: ${(error as Error).name}`);
    }
    if (!response.ok) throw new CryptoProviderError(`${options.label} ${method} ${shownPath} answered ${response.status}`);
    return (await response.json()) as T;
  };
}
