/** The dashboard's files (the built web/ app) and its pages' headers; last, as its fallback answers every other GET. */
import fp from 'fastify-plugin';
import type { AppDeps } from '../app-deps';
import { registerWebRoutes } from './web-routes';

export const webPlugin = fp<AppDeps>(
  async (app, { config, webDistDir }) => {
    await registerWebRoutes(app, {
      brand: config.BRAND,
      supportUrl: config.SUPPORT_URL,
      distDir: webDistDir,
      serveSourceMaps: config.SERVE_SOURCE_MAPS,
      // Paddle's overlay: its script from its CDN, its checkout in a frame of its own, its API.
      thirdParty: config.CARD_PROVIDER === 'paddle' ? { script: ['https://cdn.paddle.com'], frame: ['https://*.paddle.com'], connect: ['https://*.paddle.com'] } : undefined,
    });
  },
  { name: 'web', fastify: '5.x' },
);
