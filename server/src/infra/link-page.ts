/**
 * The plain pages a mailed link lands on (unsubscribe, email channel confirmation, domain
 * verification by a role address): server-rendered, no script, not cached, no referrer, so
 * a token in the URL goes nowhere else. Each asks for a POST before it acts, since mail
 * scanners follow links. Everything interpolated must go through `escapeHtml`.
 */
import type { FastifyReply } from 'fastify';

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Sends `body` (HTML, escaped by the caller) in a minimal page titled `{brand}: {title}`. */
export function linkPage(reply: FastifyReply, status: number, page: { brand: string; title: string; body: string }) {
  return reply
    .code(status)
    .type('text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('referrer-policy', 'no-referrer')
    .send(
      `<!doctype html><html lang="en"><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escapeHtml(page.brand)}: ${escapeHtml(page.title)}</title>` +
        `<body style="font-family:system-ui,sans-serif;max-width:560px;margin:3em auto"><main>${page.body}</main></body></html>`,
    );
}
