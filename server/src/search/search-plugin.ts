/**
 * Search: the dashboard's search and the public API's (/v2/search and the free password
 * lookups), one service with one admission (access, credits, limits) for both. Exposed as
 * `app.searchService` (not `app.search`: Fastify already has that, the SEARCH method's shorthand).
 */
import fp from 'fastify-plugin';
import type { AppDeps } from '../app-deps';
import { createSearchService, type SearchService } from './search-service';
import { registerSearchRoutes } from './search-routes';
import { registerSearchV2Routes } from './search-v2-routes';

declare module 'fastify' {
  interface FastifyInstance {
    searchService: SearchService;
  }
}

export const searchPlugin = fp<AppDeps>(
  async (app, { db, engine, config, metrics }) => {
    const search = createSearchService({ db, engine: metrics ? metrics.instrumentEngine(engine) : engine, config, meter: app.searchMeter });
    app.decorate('searchService', search);
    registerSearchRoutes(app, { search });
    app.v2Routes((v2) => registerSearchV2Routes(v2, { search, maxDepth: config.API_MAX_DEPTH }));
  },
  { name: 'search', fastify: '5.x', dependencies: ['search-meter', 'auth', 'api-v2'] },
);
