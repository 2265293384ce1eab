/** Health: liveness and readiness (the database, and whether the process is shutting down). */
import fp from 'fastify-plugin';
import type { AppDeps } from '../app-deps';
import { registerHealthRoutes } from './health-routes';

export const healthPlugin = fp<AppDeps>(
  async (app, { db, isShuttingDown }) => {
    registerHealthRoutes(app, { db, isShuttingDown });
  },
  { name: 'health', fastify: '5.x' },
);
