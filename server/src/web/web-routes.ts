/**
 * Serves the built dashboard (dist/web) with the SPA fallback: a GET for an unknown
 * path that accepts HTML gets index.html, and the dashboard shows its own not-found
 * screen. API routes are registered by method, so GET /search is the page while
 * POST /search is the API. Brand and support URL are injected into index.html.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { Errors } from '../infra/errors';
import { indexPage, type SendIndex } from './index-page';
import { registerSecurityHeaders, type ThirdPartySources } from './security-headers';
import { registerStaticFiles } from './static-files';

export type { ThirdPartySources } from './security-headers';

/** Dashboard paths that are also GET API routes. */
const PAGES_SHADOWED_BY_API = new Set(['/subscriptions', '/data-wells']);

export const WEB_DIST = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../dist/web');

export async function registerWebRoutes(
  app: FastifyInstance,
  options: {
    brand: string;
    supportUrl: string;
    distDir?: string;
    thirdParty?: ThirdPartySources;
    /**
     * Serve the build's source maps (`/assets/*.map`): SERVE_SOURCE_MAPS. The build writes
     * them (hidden: no bundle names them) for the operator's own use; unless that setting
     * asks, they are not served in any mode, as they would hand anyone the dashboard's source.
     */
    serveSourceMaps: boolean;
  },
) {
  const dist = options.distDir ?? WEB_DIST;
  const sendIndex = indexPage({ dist, brand: options.brand, supportUrl: options.supportUrl });
  registerSecurityHeaders(app, options.thirdParty);
  await registerStaticFiles(app, { dist, serveSourceMaps: options.serveSourceMaps });
  app.get('/', { schema: { hide: true } }, (_request, reply) => sendIndex(reply));
  registerSpaFallback(app, sendIndex);
}

/** Every other page of the dashboard is index.html too: its router shows the page (or its not-found screen). */
function registerSpaFallback(app: FastifyInstance, sendIndex: SendIndex) {
  // A dashboard page whose path is also a GET API route (the page /subscriptions and
  // the call GET /subscriptions): a browser loading the page asks for HTML and gets the
  // dashboard; the dashboard's own calls ask for JSON and reach the route. A callback hook:
  // it runs on every request, the public API's included, and a callback costs no promise.
  app.addHook('onRequest', (request, reply, done) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') return done();
    const pathname = request.url.split('?')[0]!;
    if (!PAGES_SHADOWED_BY_API.has(pathname)) return done();
    if (!(request.headers.accept ?? '').includes('text/html')) return done();
    // Answered here: the route is not reached (no `done`).
    sendIndex(reply);
  });

  app.setNotFoundHandler(async (request, reply) => {
    const wantsHtml = (request.headers.accept ?? '').includes('text/html');
    if ((request.method === 'GET' || request.method === 'HEAD') && wantsHtml && !request.url.startsWith('/assets/')) {
      return sendIndex(reply);
    }
    throw Errors.notFound();
  });
}
