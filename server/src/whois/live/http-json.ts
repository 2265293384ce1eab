/**
 * What the RDAP client and the WhoisXML adapter do alike with an HTTP answer: the status
 * as a provider failure, the body read up to a byte cap and parsed as a JSON object.
 * Messages start with `label` (naming the server or the API), never the URL (its path or query holds the query, and
 * WhoisXML's the API key).
 */
import type { Dispatcher } from 'undici';
import { ProviderError, type ProviderName } from '../provider';
import { storableText } from './storable-text';

/** 401/403 → 'auth', 429 → 'http-429', 5xx → 'http-5xx'; null for any other status. */
export function statusFailure(provider: ProviderName, statusCode: number, label: string): ProviderError | null {
  if (statusCode === 401 || statusCode === 403) return new ProviderError(provider, 'auth', `${label}: HTTP ${statusCode}`);
  if (statusCode === 429) return new ProviderError(provider, 'http-429', `${label}: HTTP 429`);
  if (statusCode >= 500) return new ProviderError(provider, 'http-5xx', `${label}: HTTP ${statusCode}`);
  return null;
}

/**
 * The body as a JSON object: 'too-large' past `maxBytes` (by Content-Length, or while
 * reading, which then stops), 'unparseable' when it is no JSON object. Every string in it
 * is made storable (storable-text.ts: a "\u0000" or a lone "\ud800" escape would make the
 * snapshot's insert fail).
 */
export async function readJsonObject(
  provider: ProviderName,
  response: Dispatcher.ResponseData,
  maxBytes: number,
  label: string,
): Promise<Record<string, unknown>> {
  const tooLarge = () => new ProviderError(provider, 'too-large', `${label}: answer over ${maxBytes} bytes`);
  const length = Number(response.headers['content-length']);
  if (Number.isFinite(length) && length > maxBytes) throw tooLarge();
  const chunks: Buffer[] = [];
  let received = 0;
  for await (const chunk of response.body) {
    received += (chunk as Buffer).length;
    if (received > maxBytes) throw tooLarge();
    chunks.push(chunk as Buffer);
  }
  let value: unknown;
  try {
    value = JSON.parse(Buffer.concat(chunks).toString('utf8'), (_key, v: unknown) => (typeof v === 'string' ? storableText(v) : v));
  } catch {
    throw new ProviderError(provider, 'unparseable', `${label}: the answer is not JSON`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new ProviderError(provider, 'unparseable', `${label}: the answer is not a JSON object`);
  return value as Record<string, unknown>;
}

/** True when an error (or a cause of it, as undici wraps them) is the SSRF guard's refusal. */
export function isRefusal(error: unknown): boolean {
  for (let e = error as { code?: string; cause?: unknown } | undefined, depth = 0; e && depth < 4; e = e.cause as typeof e, depth++) {
    if (e.code === 'ESSRF') return true;
  }
  return false;
}

/** A failed exchange (no HTTP answer) as a provider failure: out of time, refused, or network. */
export function exchangeFailure(provider: ProviderName, error: unknown, signal: AbortSignal, label: string): ProviderError {
  if (error instanceof ProviderError) return error;
  if (signal.aborted) return new ProviderError(provider, 'timeout', `${label}: out of time`);
  if (isRefusal(error)) return new ProviderError(provider, 'refused', `${label}: ${(error as Error).message}`);
  return new ProviderError(provider, 'network', `${label}: ${(error as { code?: string }).code ?? (error as Error).message}`);
}
