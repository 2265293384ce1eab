/** Subscriptions: the account's plans and their state (dashboard routes); a recurring plan's cancel goes to payments' provider. */
import fp from 'fastify-plugin';
import type { AppDeps } from '../app-deps';
import { createSubscriptionsService } from './subscriptions-service';
import { registerSubscriptionsRoutes } from './subscriptions-routes';

export const subscriptionsPlugin = fp<AppDeps>(
  async (app, { db }) => {
    registerSubscriptionsRoutes(app, { subscriptions: createSubscriptionsService(db), payments: app.payments });
  },
  { name: 'subscriptions', fastify: '5.x', dependencies: ['auth', 'payments'] },
);
