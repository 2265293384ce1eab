/**
 * The build's files: `assets/` (hashed names, cached for a year) and the files at the top of
 * dist/web (the favicon). Source maps only when SERVE_SOURCE_MAPS asks.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import fastifyStatic from '@fastify/static';

export async function registerStaticFiles(app: FastifyInstance, options: { dist: string; serveSourceMaps: boolean }): Promise<void> {
  const { dist } = options;
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
}

function typeForFile(file: string): string {
  const ext = path.extname(file).toLowerCase();
  return (
    { '.svg': 'image/svg+xml', '.png': 'image/png', '.ico': 'image/x-icon', '.txt': 'text/plain', '.json': 'application/json', '.webmanifest': 'application/manifest+json' }[
      ext
    ] ?? 'application/octet-stream'
  );
}
