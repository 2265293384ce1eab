/** Marketing: the dashboard's banners. */
import fp from 'fastify-plugin';
import type { AppDeps } from '../app-deps';
import { createBannerService } from './banner-service';
import { registerBannerRoutes } from './banner-routes';

export const marketingPlugin = fp<AppDeps>(
  async (app, { db }) => {
    registerBannerRoutes(app, { banners: createBannerService(db) });
  },
  { name: 'marketing', fastify: '5.x' },
);
