/**
 * Pino options. The product promises that only search counts are kept, so logs never
 * contain passwords, tokens, API keys, cookies, request bodies or search text: request
 * URLs are logged without their query string (a `?q=` in a page URL included) nor the
 * path values of the Breach API and the password range (`loggedUrl`), and the headers
 * that carry credentials are redacted.
 */
import type { FastifyServerOptions } from 'fastify';
import type { Config } from '../config';

export function stripQuery(url: string | undefined): string {
  if (!url) return '';
  const index = url.indexOf('?');
  return index < 0 ? url : `${url.slice(0, index)}?[redacted]`;
}

/**
 * The URL as logged: without its query string, and under `/api/v3/` (the Breach API, whose
 * paths carry the account, domain or address searched) without anything past the call's name.
 */
export function loggedUrl(url: string | undefined): string {
  const stripped = stripQuery(url);
  // The Pwned Passwords range: its routes log at `warn`, but a path they do not match (a
  // 404) is logged by the app: the prefix stays out of it too.
  if (/^\/range\//i.test(stripped)) return stripped.replace(/^(\/range)\/[^?]*/i, '$1/[redacted]');
  const v3 = /^(\/api\/v3\/[^/?]+)\/([^?]+)/i.exec(stripped);
  if (!v3 || /^\/api\/v3\/subscription\/status$/i.test(v3[0])) return stripped;
  return `${v3[1]}/[redacted]${stripped.slice(v3[0].length)}`;
}

export function loggerOptions(config: Config, stream?: NodeJS.WritableStream): FastifyServerOptions['logger'] {
  const pretty = stream === undefined && process.stdout.isTTY && config.NODE_ENV !== 'production';
  return {
    level: config.LOG_LEVEL,
    ...(stream ? { stream } : {}),
    ...(pretty ? { transport: { target: 'pino-pretty', options: { translateTime: 'HH:MM:ss', ignore: 'pid,hostname' } } } : {}),
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers.cookie',
        `req.headers["${config.apiKeyHeader.toLowerCase()}"]`,
        'res.headers["set-cookie"]',
        '*.password',
        '*.token',
        '*.apiKey',
        '*.query',
      ],
      censor: '[redacted]',
    },
    serializers: {
      req(request: { method: string; url: string; ip?: string; id?: string }) {
        return { method: request.method, url: loggedUrl(request.url), id: request.id };
      },
      res(reply: { statusCode: number }) {
        return { statusCode: reply.statusCode };
      },
    },
  };
}
