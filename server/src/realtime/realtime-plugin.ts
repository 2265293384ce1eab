/**
 * Realtime: the dashboard's websocket (/ws) and the hub features publish to (`app.realtime`).
 * Features say who may join their channels (`app.realtime.addChannelRule`), e.g. payments
 * for an invoice's channel. Sockets are signed in with auth's access tokens.
 */
import fp from 'fastify-plugin';
import type { AppDeps } from '../app-deps';
import { registerRealtimeRoutes } from './realtime-routes';
import { liveSessionIds } from '../auth/tokens-service';

export const realtimePlugin = fp<AppDeps>(
  async (app, { db, config, namespace }) => {
    await registerRealtimeRoutes(app, {
      auth: app.auth,
      rules: [],
      liveSessions: (sessionIds) => liveSessionIds(db, sessionIds),
      redisUrl: config.REDIS_URL,
      namespace: namespace ?? 'leakwell',
    });
  },
  { name: 'realtime', fastify: '5.x', dependencies: ['auth'] },
);
