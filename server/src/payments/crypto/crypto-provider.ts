/**
 * One interface for the crypto invoice providers (docs/payments.md: the crypto-invoice call), chosen by
 * `CRYPTO_PROVIDER`: `sandbox` (default, fake addresses, events from
 * `npm run admin -- payment:simulate`), `btcpay` (self-hosted BTCPay Server, Greenfield API:
 * btc, ltc, xmr) or `nowpayments` (all five coins). A provider creates an invoice for a
 * payment the server opened and priced, and its webhook moves that payment through the one
 * ingress (`../ingress.ts`).
 */
import type { Config } from '../../config';
import type { WebhookProvider } from '../ingress';

export type CryptoCurrency = 'btc' | 'ltc' | 'xmr' | 'bch' | 'eth';
export const CRYPTO_CURRENCIES: CryptoCurrency[] = ['btc', 'ltc', 'xmr', 'bch', 'eth'];

/** One way to pay an invoice, as the dashboard shows it (crypto invoice response). */
export interface PaymentOption {
  currency: CryptoCurrency;
  paymentAddress: string;
  /** What a wallet reads from the QR code: a payment URI with the amount. */
  paymentFullString: string;
  /** Exact decimal amount of the coin to send. */
  currencyAmount: string;
  /** USD per coin. */
  usdRate: number;
}

export interface CreatedInvoice {
  /** The provider's invoice id (stored as the payment's provider_ref). */
  providerRef: string;
  options: PaymentOption[];
  /** Provider facts worth keeping with the payment (its details). */
  details?: Record<string, unknown>;
}

export interface CryptoProvider {
  /** Also the payment's `provider` and the webhook's `/webhooks/:provider` segment. */
  readonly name: string;
  readonly currencies: CryptoCurrency[];
  createInvoice(input: { paymentId: string; usdCents: number; expiresAt: Date }): Promise<CreatedInvoice>;
  webhook: WebhookProvider;
  /** True when the provider's API answers (the sandbox always does). */
  health(): Promise<boolean>;
}

/** Where a provider's API is not reachable or answers something unexpected: a 502 for the buyer. */
export class CryptoProviderError extends Error {}

const URI_SCHEMES: Record<CryptoCurrency, string> = {
  btc: 'bitcoin',
  ltc: 'litecoin',
  bch: 'bitcoincash',
  xmr: 'monero',
  eth: 'ethereum',
};

/**
 * The payment URI a wallet reads: BIP21 for btc, ltc and bch
 * (`amount` in coins), `monero:<addr>?tx_amount=` and EIP-681 `ethereum:<0x…>?value=<wei>`.
 * A bch cashaddr may already carry its `bitcoincash:` prefix.
 */
export function paymentUri(currency: CryptoCurrency, address: string, amount: string): string {
  const scheme = URI_SCHEMES[currency];
  const bare = address.startsWith(`${scheme}:`) ? address.slice(scheme.length + 1) : address;
  if (currency === 'xmr') return `${scheme}:${bare}?tx_amount=${amount}`;
  if (currency === 'eth') return `${scheme}:${bare}?value=${decimalToUnits(amount, 18)}`;
  return `${scheme}:${bare}?amount=${amount}`;
}

/** "0.0123" with 18 decimals → "12300000000000000": exact, no floating point. */
export function decimalToUnits(amount: string, decimals: number): string {
  const match = /^(\d+)(?:\.(\d+))?$/.exec(amount.trim());
  if (!match) throw new CryptoProviderError(`not a decimal amount: ${amount}`);
  const fraction = (match[2] ?? '').slice(0, decimals).padEnd(decimals, '0');
  return BigInt(`${match[1]}${fraction}`).toString();
}

/** usd / rate as a decimal string with `places` decimals, rounded up (never under-asks). */
export function coinAmount(usdCents: number, usdRate: number, places = 8): string {
  const scale = 10 ** places;
  const units = Math.ceil((usdCents / 100 / usdRate) * scale - 1e-9);
  const whole = Math.floor(units / scale);
  const fraction = String(units - whole * scale).padStart(places, '0');
  return `${whole}.${fraction}`;
}

export function isCryptoCurrency(value: string): value is CryptoCurrency {
  return (CRYPTO_CURRENCIES as string[]).includes(value);
}

/** Settings a provider needs, checked at start (a misconfigured provider refuses to start). */
export function requireSettings<K extends keyof Config>(config: Config, provider: string, names: K[]): { [N in K]-?: NonNullable<Config[N]> } {
  const missing = names.filter((name) => config[name] === undefined || config[name] === '');
  if (missing.length) throw new Error(`CRYPTO_PROVIDER=${provider} needs ${missing.join(', ')}`);
  return Object.fromEntries(names.map((name) => [name, config[name]])) as { [N in K]-?: NonNullable<Config[N]> };
}
