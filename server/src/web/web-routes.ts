/**
 * Serves the built dashboard (dist/web) with the SPA fallback: a GET for an unknown
 * path that accepts HTML gets index.html, and the dashboard shows its own not-found
 * screen. API routes are registered by method, so GET /search is the page while
 * POST /search is the API. Brand and support URL are injected into index.html.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply } from 'fastify';
import fastifyStatic from '@fastify/static';
import { Errors } from '../infra/errors';

/** Dashboard paths that are also GET API routes. */
const PAGES_SHADOWED_BY_API = new Set(['/subscriptions', '/data-wells']);

export const WEB_DIST = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../dist/web');

function escapeAttribute(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Origins a third-party script of ours (the card provider's overlay) loads from, frames and calls. */
export interface ThirdPartySources {
  script?: string[];
  frame?: string[];
  connect?: string[];
}

function contentSecurityPolicy(extra: ThirdPartySources = {}): string {
  const plus = (list?: string[]) => (list?.length ? ` ${list.join(' ')}` : '');
  return [
    "default-src 'self'",
    `script-src 'self'${plus(extra.script)}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    `connect-src 'self'${plus(extra.connect)}`,
    `frame-src 'self'${plus(extra.frame)}`,
    "font-src 'self' data:",
    "object-src 'none'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
    "form-action 'self'",
  ].join('; ');
}

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
  const CONTENT_SECURITY_POLICY = contentSecurityPolicy(options.thirdParty);
  const dist = options.distDir ?? WEB_DIST;
  const indexFile = path.join(dist, 'index.html');
  let indexHtml: string | undefined;
  const renderIndex = () => {
    if (indexHtml === undefined) {
      const template = fs.existsSync(indexFile)
        ? fs.readFileSync(indexFile, 'utf8')
        : '<!doctype html><title>%APP_BRAND%</title><p>The dashboard is not built: run <code>npm run build:web</code>.</p>';
      indexHtml = template
        .replaceAll('%APP_BRAND%', escapeAttribute(options.brand))
        .replaceAll('%APP_SUPPORT_URL%', escapeAttribute(options.supportUrl));
    }
    return indexHtml;
  };

  // Callback hooks (here and below): they run on every request, the public API's included,
  // and a callback costs no promise.
  app.addHook('onSend', (_request, reply, payload, done) => {
    reply.header('x-content-type-options', 'nosniff');
    // Links carry tokens in their query (?t=, ?v=, ?k=): never leak them through Referer.
    reply.header('referrer-policy', 'no-referrer');
    const type = String(reply.getHeader('content-type') ?? '');
    if (type.startsWith('text/html')) {
      reply.header('content-security-policy', CONTENT_SECURITY_POLICY);
      reply.header('x-frame-options', 'DENY');
    }
    done(null, payload);
  });

  const sendIndex = (reply: FastifyReply) => reply.code(200).type('text/html; charset=utf-8').header('cache-control', 'no-cache').send(renderIndex());

  if (fs.existsSync(path.join(dist, 'assets'))) {
    await app.register(fastifyStatic, {
      root: path.join(dist, 'assets'),
      prefix: '/assets/',
      immutable: true,
      maxAge: '365d',
      index: false,
      // A refused path falls through to the not-found handler: 404, as for any missing asset.
      allowedPath: (pathName) => options.serveSourceMaps || !pathName.endsWith('.map'),
    });
  }
  for (const file of fs.existsSync(dist) ? fs.readdirSync(dist) : []) {
    if (file === 'index.html' || file === 'assets') continue;
    if (!options.serveSourceMaps && file.endsWith('.map')) continue;
    const full = path.join(dist, file);
    if (!fs.statSync(full).isFile()) continue;
    app.get(`/${file}`, { schema: { hide: true } }, (_request, reply) => reply.type(typeForFile(file)).send(fs.createReadStream(full)));
  }
  app.get('/', { schema: { hide: true } }, (_request, reply) => sendIndex(reply));

  // A dashboard page whose path is also a GET API route (the page /subscriptions and
  // the call GET /subscriptions): a browser loading the page asks for HTML and gets the
  // dashboard; the dashboard's own calls ask for JSON and reach the route.
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

function typeForFile(file: string): string {
  const ext = path.extname(file).toLowerCase();
  return (
    { '.svg': 'image/svg+xml', '.png': 'image/png', '.ico': 'image/x-icon', '.txt': 'text/plain', '.json': 'application/json', '.webmanifest': 'application/manifest+json' }[
      ext
    ] ?? 'application/octet-stream'
  );
}
