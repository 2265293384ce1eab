/**
 * One signed POST to a webhook receiver (Standard Webhooks). The whole exchange —
 * connect, send, headers and the body read — has one time limit; at most
 * MAX_RESPONSE_BYTES of the answer are read; redirects are never followed (a 3xx is a
 * failure); connections go through the SSRF guard's Agent.
 */
import { request, type Dispatcher } from 'undici';
import { signWebhook } from './signing';

export const MAX_RESPONSE_BYTES = 64 * 1024;

export interface WebhookAttempt {
  /** The HTTP status, or null when no answer came (refused, timeout, network). */
  status: number | null;
  ms: number;
  /** Why it failed (null on a 2xx). */
  error: string | null;
  /** The receiver's Retry-After, when it gave one (429, 503). */
  retryAfterMs?: number;
  /** How many bytes of the answer were read (bounded). */
  bytesRead: number;
}

/** Retry-After as milliseconds: seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (!text) return undefined;
  if (/^\d+$/.test(text.trim())) return Number(text.trim()) * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function describe(error: unknown, timedOut: boolean, timeoutMs: number): string {
  if (timedOut) return `timeout after ${timeoutMs} ms`;
  const e = error as { code?: string; message?: string; cause?: { code?: string; message?: string } };
  const inner = e.cause ?? e;
  if (inner.code === 'ESSRF') return String(inner.message);
  return `${inner.code ?? 'error'}: ${String(inner.message ?? e.message ?? error)}`.slice(0, 300);
}

export async function sendWebhook(options: {
  url: string;
  secret: string;
  /** The webhook-id: the delivery's id, the same on every retry. */
  id: string;
  body: string;
  timeoutMs: number;
  dispatcher: Dispatcher;
  userAgent: string;
  now?: () => number;
}): Promise<WebhookAttempt> {
  const started = Date.now();
  const timestamp = Math.floor((options.now ?? Date.now)() / 1000);
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, options.timeoutMs);
  let bytesRead = 0;
  try {
    const response = await request(options.url, {
      method: 'POST',
      dispatcher: options.dispatcher,
      signal: controller.signal,
      // One connection per attempt: nothing idles in the pool between alerts, and every
      // attempt connects (so passes the SSRF guard) afresh.
      reset: true,
      headers: {
        'content-type': 'application/json',
        'user-agent': options.userAgent,
        'webhook-id': options.id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signWebhook(options.secret, options.id, timestamp, options.body),
      },
      body: options.body,
    });
    // Read a bounded part of the answer (receivers may log it), then drop the rest.
    for await (const chunk of response.body) {
      bytesRead += (chunk as Buffer).length;
      if (bytesRead >= MAX_RESPONSE_BYTES) {
        bytesRead = Math.min(bytesRead, MAX_RESPONSE_BYTES);
        response.body.destroy();
        break;
      }
    }
    const status = response.statusCode;
    const ms = Date.now() - started;
    if (status >= 200 && status < 300) return { status, ms, error: null, bytesRead };
    const retryAfterMs = parseRetryAfter(response.headers['retry-after']);
    const error = status >= 300 && status < 400 ? `HTTP ${status} (redirects are not followed)` : `HTTP ${status}`;
    return { status, ms, error, bytesRead, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) };
  } catch (error) {
    return { status: null, ms: Date.now() - started, error: describe(error, timedOut, options.timeoutMs), bytesRead };
  } finally {
    clearTimeout(timer);
  }
}
