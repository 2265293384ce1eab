/**
 * Crypto checkout (docs/payments.md "Dashboard calls"): `POST /payments/crypto-invoice`
 * opens a payment priced by the server for a SKU crypto may buy (credits and one-time
 * plans) and asks the configured provider for an invoice; `GET /payments/crypto-invoice/:id`
 * shows the buyer's own invoice again after a reload. The page then waits on the websocket
 * channel `crypto-payment-{id}`, which only the invoice's owner may join (channelRule).
 */
import type { FastifyInstance } from 'fastify';
import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import type { RateLimiter } from '../infra/rate-limiter';
import { AppError, ErrorBody, Errors } from '../infra/errors';
import { cryptoAllowed } from '../common/catalogue';
import { openPayment } from './payments';
import { CryptoProviderError, type CryptoProvider, type PaymentOption } from './crypto/crypto-provider';
import { findOwnCryptoInvoice, saveInvoice } from './crypto/crypto-repository';
import type { ChannelRule } from '../realtime/realtime-service';


const PaymentOptionBody = Type.Object({
  currency: Type.String({ description: 'btc, ltc, xmr, bch or eth' }),
  paymentAddress: Type.String(),
  paymentFullString: Type.String({ description: 'Payment URI with the amount (BIP21, monero:, EIP-681), as a wallet reads it.' }),
  currencyAmount: Type.String({ description: 'Exact amount of the coin to send.' }),
  usdRate: Type.Number({ description: 'USD per coin.' }),
});

const InvoiceBody = Type.Object({
  id: Type.String({ description: 'The invoice (payment) id; its websocket channel is crypto-payment-{id}.' }),
  expiration: Type.String({ description: 'ISO time the invoice expires.' }),
  payment_options: Type.Array(PaymentOptionBody),
});

const InvoiceWithStatus = Type.Object({
  ...InvoiceBody.properties,
  status: Type.Union([Type.Literal('pending'), Type.Literal('paid'), Type.Literal('expired'), Type.Literal('refunded')]),
});

/** Invoices cost a provider call each: a user gets a handful a minute. */
const INVOICES_PER_USER = { ratePerSecond: 1 / 12, burst: 5 };

export function registerCryptoRoutes(
  app: FastifyInstance,
  deps: { db: Kysely<Database>; provider: CryptoProvider; limiter: RateLimiter; invoiceMinutes: number },
): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { db, provider } = deps;
  const common = { onRequest: [app.authenticate] };
  const tags = ['payments'];
  const security = [{ bearer: [] }];

  r.post(
    '/payments/crypto-invoice',
    {
      ...common,
      schema: {
        operationId: 'createCryptoInvoice',
        tags,
        security,
        summary: 'A crypto invoice for a SKU crypto may buy (credits, one-time plans)',
        body: Type.Object(
          { sku: Type.String({ minLength: 1, maxLength: 64 }), quantity: Type.Integer({ minimum: 1, maximum: 1_000_000 }) },
          { additionalProperties: false },
        ),
        response: { 200: InvoiceBody, 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 429: ErrorBody, 502: ErrorBody },
      },
    },
    async (request) => {
      const { sku, quantity } = request.body;
      if (!cryptoAllowed(sku)) throw Errors.badRequest('This product cannot be bought with crypto');
      const decision = await deps.limiter.take(`crypto-invoice:${request.user.sub}`, INVOICES_PER_USER);
      if (!decision.allowed) throw Errors.tooManyRequests(decision.retryAfterMs);
      const expiresAt = new Date(Date.now() + deps.invoiceMinutes * 60_000);
      const payment = await openPayment(db, { userId: request.user.sub, sku, quantity, method: 'crypto', provider: provider.name, expiresAt });
      let created;
      try {
        created = await provider.createInvoice({ paymentId: payment.id, usdCents: payment.amount_cents, expiresAt });
      } catch (error) {
        if (!(error instanceof CryptoProviderError)) throw error;
        request.log.warn({ provider: provider.name, err: { message: error.message } }, 'crypto invoice not created');
        throw new AppError(502, 'CRYPTO_PROVIDER_UNAVAILABLE', 'The crypto payment provider is unavailable, please try again later');
      }
      await saveInvoice(db, payment.id, { providerRef: created.providerRef, details: { ...created.details, payment_options: created.options } });
      return { id: payment.id, expiration: expiresAt.toISOString(), payment_options: created.options };
    },
  );

  r.get(
    '/payments/crypto-invoice/:id',
    {
      ...common,
      schema: {
        operationId: 'getCryptoInvoice',
        tags,
        security,
        summary: "The user's own crypto invoice and where it stands (another user's is a 404)",
        params: Type.Object({ id: Type.String({ maxLength: 64 }) }, { additionalProperties: false }),
        response: { 200: InvoiceWithStatus, 401: ErrorBody, 404: ErrorBody },
      },
    },
    async (request) => {
      const invoice = await findOwnCryptoInvoice(db, request.params.id, request.user.sub);
      if (!invoice) throw Errors.notFound();
      return {
        id: invoice.id,
        expiration: (invoice.expires_at ?? invoice.created_at).toISOString(),
        status: invoice.status,
        payment_options: (invoice.details.payment_options ?? []) as PaymentOption[],
      };
    },
  );
}

/** `crypto-payment-{id}`: only the invoice's owner may listen. */
export function cryptoPaymentChannelRule(db: Kysely<Database>): ChannelRule {
  const prefix = 'crypto-payment-';
  return {
    prefix,
    async authorize(channel, userId) {
      return userId !== undefined && (await findOwnCryptoInvoice(db, channel.slice(prefix.length), userId)) !== undefined;
    },
  };
}
