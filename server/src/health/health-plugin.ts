/** Health: liveness, readiness, and /misc/check, which also asks payments whether the card provider answers. */
import fp from 'fastify-plugin';
import type { AppDeps } from '../app-deps';
import { registerHealthRoutes } from './health-routes';

export const healthPlugin = fp<AppDeps>(
  async (app, { db, isShuttingDown }) => {
    registerHealthRoutes(app, { db, isShuttingDown, cardProviderHealthy: () => app.payments.providerHealthy() });
  },
  { name: 'health', fastify: '5.x', dependencies: ['payments'] },
);
