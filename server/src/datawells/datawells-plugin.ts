/** Data wells: the public list of the sources searched, and their details. */
import fp from 'fastify-plugin';
import type { AppDeps } from '../app-deps';
import { createDataWellService } from './datawells-service';
import { registerDataWellRoutes } from './datawells-routes';

export const dataWellsPlugin = fp<AppDeps>(
  async (app, { db, limiter }) => {
    registerDataWellRoutes(app, { datawells: createDataWellService(db), limiter });
  },
  { name: 'datawells', fastify: '5.x' },
);
