/** The headers of every answer (nosniff, no referrer) and of every HTML page (the dashboard's CSP, no framing). */
import type { FastifyInstance } from 'fastify';

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

export function registerSecurityHeaders(app: FastifyInstance, thirdParty?: ThirdPartySources): void {
  const policy = contentSecurityPolicy(thirdParty);
  // A callback hook: it runs on every request, the public API's included, and a callback costs no promise.
  app.addHook('onSend', (_request, reply, payload, done) => {
    reply.header('x-content-type-options', 'nosniff');
    // Links carry tokens in their query (?t=, ?v=, ?k=): never leak them through Referer.
    reply.header('referrer-policy', 'no-referrer');
    const type = String(reply.getHeader('content-type') ?? '');
    if (type.startsWith('text/html')) {
      reply.header('content-security-policy', policy);
      reply.header('x-frame-options', 'DENY');
    }
    done(null, payload);
  });
}
