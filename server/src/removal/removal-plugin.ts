/** Removal: an entry's removal request (confirmed by mail) and the opt-out of one's own values. */
import fp from 'fastify-plugin';
import type { AppDeps } from '../app-deps';
import { createRemovalService } from './removal-service';
import { createOptOutService } from './opt-out-service';
import { registerRemovalRoutes } from './removal-routes';

export const removalPlugin = fp<AppDeps>(
  async (app, { db, engine, mail, config, limiter }) => {
    registerRemovalRoutes(app, {
      removal: createRemovalService({ db, engine, mail, config, limiter }),
      optOut: createOptOutService({ db, engine, mail, config, limiter }),
    });
  },
  { name: 'removal', fastify: '5.x', dependencies: ['auth'] },
);
