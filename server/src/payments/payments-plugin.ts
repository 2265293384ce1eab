/**
 * Payments: checkout, the providers' webhooks (card and crypto) into the payment-event
 * queue, crypto invoices and their websocket channel, and the expiry of overdue invoices.
 * Registers the payment-event and sandbox-webhook processors. Others ask it (`app.payments`)
 * for the card provider's health and a recurring plan's cancel.
 */
import fp from 'fastify-plugin';
import type { AppDeps } from '../app-deps';
import { createPaymentIngress } from './ingress';
import { expireOverduePayments } from './payments';
import { createWebhookProviders } from './providers';
import { registerCheckoutRoutes } from './checkout-routes';
import { cardProviderFor } from './card/card-provider';
import { createCardService } from './card/card-service';
import type { PaymentsService } from './payments-service';
import { createCryptoProvider } from './crypto';
import { cryptoPaymentChannelRule, registerCryptoRoutes } from './crypto-routes';

const PAYMENT_EXPIRY_SWEEP_MS = 30_000;

declare module 'fastify' {
  interface FastifyInstance {
    payments: PaymentsService;
  }
}

export const paymentsPlugin = fp<AppDeps>(
  async (app, { db, config, queues, limiter }) => {
    app.realtime.addChannelRule(cryptoPaymentChannelRule(db));
    const crypto = await createCryptoProvider({ config, db, publish: app.realtime.publish });
    registerCryptoRoutes(app, { db, provider: crypto, limiter, invoiceMinutes: config.CRYPTO_INVOICE_MINUTES });
    const payments = createPaymentIngress({
      db,
      queues,
      // The crypto provider's webhook publishes to the realtime hub, hence added here.
      providers: [...createWebhookProviders({ config, db, queues }), crypto.webhook],
    });
    payments.register(app);
    const card = cardProviderFor({ config, db, queues });
    const cardService = createCardService({ db, card, log: app.log });
    registerCheckoutRoutes(app, { db, card, service: cardService });
    app.decorate('payments', {
      providerHealthy: () => card.health().catch(() => false),
      cancelSubscription: (userId, type, id) => cardService.cancel(userId, type, id),
    } satisfies PaymentsService);
    app.jobs.register('payment-event', ({ eventRowId }) => payments.processEvent(eventRowId));
    // Through the same route as a real provider's delivery (inject: no need to know our own address).
    app.jobs.register('sandbox-webhook', async ({ body, headers }) => {
      const reply = await app.inject({ method: 'POST', url: '/webhooks/sandbox', payload: body, headers });
      if (reply.statusCode !== 200) throw new Error(`sandbox webhook answered ${reply.statusCode}`);
    });
    // Invoices whose time ran out are expired (and their open pages told) even when the
    // provider never says so, as the sandbox does not.
    app.jobs.every('payment-expiry', PAYMENT_EXPIRY_SWEEP_MS, async () => {
      const expired = await expireOverduePayments(db);
      await Promise.all(expired.map(({ id }) => app.realtime.publish(`crypto-payment-${id}`, { status: 'expired' })));
    });
  },
  { name: 'payments', fastify: '5.x', dependencies: ['auth', 'realtime', 'jobs'] },
);
