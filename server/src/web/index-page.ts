/** The dashboard's index.html, with brand and support URL filled in, read once. */
import fs from 'node:fs';
import path from 'node:path';
import type { FastifyReply } from 'fastify';
import { escapeHtml } from '../infra/link-page';

const NOT_BUILT = '<!doctype html><title>%APP_BRAND%</title><p>The dashboard is not built: run <code>npm run build:web</code>.</p>';

/** Sends index.html (200, revalidated on every load). */
export type SendIndex = (reply: FastifyReply) => FastifyReply;

export function indexPage(options: { dist: string; brand: string; supportUrl: string }): SendIndex {
  const indexFile = path.join(options.dist, 'index.html');
  let indexHtml: string | undefined;
  const renderIndex = () => {
    if (indexHtml === undefined) {
      const template = fs.existsSync(indexFile) ? fs.readFileSync(indexFile, 'utf8') : NOT_BUILT;
      indexHtml = template.replaceAll('%APP_BRAND%', escapeHtml(options.brand)).replaceAll('%APP_SUPPORT_URL%', escapeHtml(options.supportUrl));
    }
    return indexHtml;
  };
  return (reply) => reply.code(200).type('text/html; charset=utf-8').header('cache-control', 'no-cache').send(renderIndex());
}
