/** Billing: the payment history and event codes (a code grants through payments' grants service). */
import fp from 'fastify-plugin';
import type { AppDeps } from '../app-deps';
import { createBillingService } from './billing-service';
import { registerInvoiceDetailsRoutes, registerPaymentHistoryRoutes } from './billing-routes';
import { createEventCodeService } from './event-code-service';
import { registerEventCodeRoutes } from './event-code-routes';

export const billingPlugin = fp<AppDeps>(
  async (app, { db, limiter }) => {
    const billing = createBillingService(db);
    registerPaymentHistoryRoutes(app, { billing });
    registerInvoiceDetailsRoutes(app, { billing });
    registerEventCodeRoutes(app, { eventCodes: createEventCodeService({ db, limiter }) });
  },
  { name: 'billing', fastify: '5.x', dependencies: ['auth'] },
);
