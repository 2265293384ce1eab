/**
 * The sandbox crypto provider (`CRYPTO_PROVIDER=sandbox`, the default; refuses to start
 * with NODE_ENV=production). It issues fake but well-formed addresses derived from the
 * payment id (the same invoice always shows the same ones) at fixed, fake USD rates, and
 * never sees a blockchain: its events come from `npm run admin -- payment:simulate
 * --invoice ID [--status settled|partial|overpaid|expired]` (or `simulateCryptoPayment`),
 * which stores and enqueues them through the very ingress a real provider's delivery takes.
 * Its webhook (`/webhooks/sandbox-crypto`) accepts bodies signed with HMAC-SHA256 (hex, header
 * `x-sandbox-signature`) under the `sandbox-crypto-webhook` secret kept in the database.
 */
import { createHash, createHmac, randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Config } from '../../config';
import type { Database } from '../../db/schema';
import type { QueueSystem } from '../../infra/queues';
import { constantTimeEqual, loadOrCreateSecret } from '../../infra/secrets';
import { createPaymentIngress, webhookRejected, type VerifiedEvent } from '../ingress';
import { coinAmount, paymentUri, CRYPTO_CURRENCIES, type CryptoCurrency, type CryptoProvider, type PaymentOption } from './crypto-provider';
import { applyOutcome, lockCryptoPayment, type InvoiceOutcome, type Publish } from './settlement';
import { isPaymentId } from '../payments';
import { findPayment } from '../payments-repository';

export const SANDBOX_CRYPTO = 'sandbox-crypto';
export const SANDBOX_SIGNATURE_HEADER = 'x-sandbox-signature';
const SECRET_NAME = 'sandbox-crypto-webhook';

/** Fake demo rates (USD per coin): the sandbox's amounts are for looks only. */
export const SANDBOX_USD_RATES: Record<CryptoCurrency, number> = { btc: 65_000, ltc: 70, xmr: 150, bch: 350, eth: 3_000 };

export const SIMULATED_STATUSES = ['settled', 'partial', 'overpaid', 'expired'] as const;
export type SimulatedStatus = (typeof SIMULATED_STATUSES)[number];

interface SandboxEvent {
  eventId: string;
  invoiceId: string;
  status: SimulatedStatus;
  currency: CryptoCurrency;
  amountReceived: string;
  createdAt: string;
}

const BECH32 = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

/** `length` characters of `alphabet`, derived from the payment id and coin (deterministic). */
function derived(paymentId: string, currency: string, alphabet: string, length: number): string {
  let out = '';
  for (let round = 0; out.length < length; round++) {
    const digest = createHash('sha256').update(`${currency}:${paymentId}:${round}`).digest();
    for (const byte of digest) out += alphabet[byte % alphabet.length];
  }
  return out.slice(0, length);
}

/** Well-formed looking, never spendable: bech32 for btc/ltc, cashaddr for bch, 95 base58 for xmr, 0x+40 hex for eth. */
export function sandboxAddress(paymentId: string, currency: CryptoCurrency): string {
  switch (currency) {
    case 'btc':
      return `bc1q${derived(paymentId, currency, BECH32, 38)}`;
    case 'ltc':
      return `ltc1q${derived(paymentId, currency, BECH32, 38)}`;
    case 'bch':
      return `q${derived(paymentId, currency, BECH32, 41)}`;
    case 'xmr':
      return `4${derived(paymentId, currency, BASE58, 94)}`;
    case 'eth':
      return `0x${derived(paymentId, currency, '0123456789abcdef', 40)}`;
  }
}

export function sandboxOptions(paymentId: string, usdCents: number): PaymentOption[] {
  return CRYPTO_CURRENCIES.map((currency) => {
    const usdRate = SANDBOX_USD_RATES[currency];
    const currencyAmount = coinAmount(usdCents, usdRate);
    const paymentAddress = sandboxAddress(paymentId, currency);
    return { currency, paymentAddress, paymentFullString: paymentUri(currency, paymentAddress, currencyAmount), currencyAmount, usdRate };
  });
}

function outcomeOf(event: SandboxEvent): InvoiceOutcome {
  const received = { currency: event.currency, amount_received: event.amountReceived };
  switch (event.status) {
    case 'settled':
      return { kind: 'paid', details: received };
    case 'overpaid':
      return { kind: 'paid', details: { ...received, overpaid: true } };
    case 'partial':
      return { kind: 'partial', details: received };
    case 'expired':
      return { kind: 'expired' };
  }
}

function isSandboxEvent(value: unknown): value is SandboxEvent {
  const event = value as Partial<SandboxEvent> | null;
  return (
    typeof event === 'object' &&
    event !== null &&
    typeof event.eventId === 'string' &&
    isPaymentId(event.invoiceId) &&
    (SIMULATED_STATUSES as readonly string[]).includes(event.status ?? '') &&
    (CRYPTO_CURRENCIES as string[]).includes(event.currency ?? '') &&
    typeof event.amountReceived === 'string' &&
    !Number.isNaN(Date.parse(event.createdAt ?? ''))
  );
}

function toVerified(event: SandboxEvent): VerifiedEvent {
  return { eventId: event.eventId, type: event.status, occurredAt: new Date(event.createdAt), payload: event };
}

export async function createSandboxCryptoProvider(deps: { config: Config; db: Kysely<Database>; publish: Publish }): Promise<CryptoProvider> {
  if (deps.config.NODE_ENV === 'production') throw new Error('CRYPTO_PROVIDER=sandbox refuses to run with NODE_ENV=production');
  const secret = await loadOrCreateSecret(deps.db, SECRET_NAME);
  return {
    name: SANDBOX_CRYPTO,
    currencies: CRYPTO_CURRENCIES,
    async createInvoice({ paymentId, usdCents }) {
      return { providerRef: `sandbox_${paymentId}`, options: sandboxOptions(paymentId, usdCents) };
    },
    webhook: {
      name: SANDBOX_CRYPTO,
      verify(raw, headers) {
        const signature = headers[SANDBOX_SIGNATURE_HEADER];
        if (typeof signature !== 'string' || !constantTimeEqual(signature, signSandboxBody(secret, raw))) throw webhookRejected('bad signature');
        let event: unknown;
        try {
          event = JSON.parse(raw.toString('utf8'));
        } catch {
          throw webhookRejected('malformed body');
        }
        if (!isSandboxEvent(event)) throw webhookRejected('malformed event');
        return [toVerified(event)];
      },
      async apply(trx, stored) {
        const event = stored.payload as SandboxEvent;
        const payment = await lockCryptoPayment(trx, event.invoiceId, SANDBOX_CRYPTO);
        if (!payment) return [];
        return applyOutcome(trx, payment, outcomeOf(event), stored.occurredAt, deps.publish);
      },
    },
    async health() {
      return true;
    },
  };
}

export function signSandboxBody(secret: string, raw: Buffer | string): string {
  return createHmac('sha256', secret).update(raw).digest('hex');
}

/** The amount the simulated payer sends: what was asked, half of it, or half again. */
function simulatedAmount(asked: string, status: SimulatedStatus): string {
  const factor = status === 'partial' ? 0.5 : status === 'overpaid' ? 1.5 : 1;
  return status === 'expired' ? '0' : (Number(asked) * factor).toFixed(8);
}

/**
 * Simulates what the sandbox's blockchain would report for invoice `paymentId`: stores the
 * event and enqueues its processing on the server's queues (the server's workers apply it
 * and tell the browser), exactly as a verified delivery to `/webhooks/sandbox-crypto`.
 * Works whether or not the server runs (its workers pick the job up when it does).
 * Returns the event id (pass it again to deliver the same event twice).
 */
export async function simulateCryptoPayment(
  deps: { config: Config; db: Kysely<Database>; queues: QueueSystem },
  input: { paymentId: string; status?: SimulatedStatus; currency?: CryptoCurrency; eventId?: string; at?: Date },
): Promise<string> {
  const status = input.status ?? 'settled';
  const payment = isPaymentId(input.paymentId)
    ? await findPayment(deps.db, input.paymentId)
    : undefined;
  if (!payment || payment.method !== 'crypto' || payment.provider !== SANDBOX_CRYPTO) throw new Error(`no sandbox crypto invoice ${input.paymentId}`);
  const currency = input.currency ?? 'btc';
  const options = (payment.details.payment_options ?? []) as PaymentOption[];
  const asked = options.find((option) => option.currency === currency)?.currencyAmount ?? '0';
  const event: SandboxEvent = {
    eventId: input.eventId ?? randomUUID(),
    invoiceId: input.paymentId,
    status,
    currency,
    amountReceived: simulatedAmount(asked, status),
    createdAt: (input.at ?? new Date()).toISOString(),
  };
  const provider = await createSandboxCryptoProvider({ config: deps.config, db: deps.db, publish: () => {} });
  await createPaymentIngress({ db: deps.db, queues: deps.queues, providers: [provider.webhook] }).receive(provider.webhook, [toVerified(event)]);
  return event.eventId;
}
