/**
 * RDAP over HTTP (RFC 7480): GET `{base}domain/{name}` asking for `application/rdap+json`.
 * Every connection goes through the SSRF guard (an undici Agent from delivery/ssrf.ts), so a
 * bootstrap, redirect or `related` URL that reaches a private address is refused at connect.
 * Answers are read up to a byte cap; the exchange ends with the caller's signal.
 */
import { request, type Dispatcher } from 'undici';
import { ProviderError, type ProviderFailure } from '../provider';

export interface RdapFetchOptions {
  dispatcher: Dispatcher;
  maxBytes: number;
  signal: AbortSignal;
}

/** A domain object, or 404: the authoritative server does not know the name. */
export type RdapResult = { found: true; object: unknown } | { found: false };

const MAX_REDIRECTS = 3;

function failure(reason: ProviderFailure, message: string): ProviderError {
  return new ProviderError('live', reason, message);
}

/** True when an error (or its cause, as undici wraps them) is the SSRF guard's refusal. */
function isRefusal(error: unknown): boolean {
  for (let e = error as { code?: string; cause?: unknown } | undefined, depth = 0; e && depth < 4; e = e.cause as typeof e, depth++) {
    if (e.code === 'ESSRF') return true;
  }
  return false;
}

/** The host of an RDAP URL, for messages (never the path, which holds the query). */
function hostOf(url: URL): string {
  return url.host;
}

async function readCapped(body: Dispatcher.ResponseData['body'], maxBytes: number, host: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let received = 0;
  for await (const chunk of body) {
    received += (chunk as Buffer).length;
    if (received > maxBytes) {
      body.destroy();
      throw failure('too-large', `RDAP server ${host}: answer over ${maxBytes} bytes`);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/**
 * GETs one RDAP URL (following up to MAX_REDIRECTS redirects to http(s) URLs): 200 → the
 * parsed object; 404 → not found; 401/403 → 'auth'; 429 → 'http-429'; 5xx → 'http-5xx';
 * any other status or a body that is no JSON object → 'unparseable'.
 */
export async function fetchRdap(start: URL, opts: RdapFetchOptions): Promise<RdapResult> {
  let url = start;
  for (let hop = 0; ; hop++) {
    const host = hostOf(url);
    let response: Dispatcher.ResponseData;
    try {
      response = await request(url, {
        method: 'GET',
        dispatcher: opts.dispatcher,
        signal: opts.signal,
        headers: { accept: 'application/rdap+json, application/json;q=0.9' },
      });
    } catch (error) {
      if (opts.signal.aborted) throw failure('timeout', `RDAP server ${host}: out of time`);
      if (isRefusal(error)) throw failure('refused', `RDAP server ${host}: ${(error as Error).message}`);
      throw failure('network', `RDAP server ${host}: ${(error as { code?: string }).code ?? (error as Error).message}`);
    }
    const { statusCode, headers, body } = response;
    body.on('error', () => {}); // destroying an unread body emits one; the outcome is decided below
    try {
      if (statusCode >= 300 && statusCode < 400 && statusCode !== 304) {
        const location = typeof headers.location === 'string' ? headers.location : undefined;
        const next = location === undefined ? null : URL.canParse(location, url.href) ? new URL(location, url) : null;
        if (!next || !/^https?:$/.test(next.protocol)) throw failure('unparseable', `RDAP server ${host}: redirect without a usable location`);
        if (hop >= MAX_REDIRECTS) throw failure('unparseable', `RDAP server ${host}: more than ${MAX_REDIRECTS} redirects`);
        url = next;
        continue;
      }
      if (statusCode === 404) return { found: false };
      if (statusCode === 401 || statusCode === 403) throw failure('auth', `RDAP server ${host}: HTTP ${statusCode}`);
      if (statusCode === 429) throw failure('http-429', `RDAP server ${host}: HTTP 429`);
      if (statusCode >= 500) throw failure('http-5xx', `RDAP server ${host}: HTTP ${statusCode}`);
      if (statusCode !== 200) throw failure('unparseable', `RDAP server ${host}: HTTP ${statusCode}`);
      const length = Number(headers['content-length']);
      if (Number.isFinite(length) && length > opts.maxBytes) throw failure('too-large', `RDAP server ${host}: answer over ${opts.maxBytes} bytes`);
      const raw = await readCapped(body, opts.maxBytes, host);
      let object: unknown;
      try {
        object = JSON.parse(raw.toString('utf8'));
      } catch {
        throw failure('unparseable', `RDAP server ${host}: the answer is not JSON`);
      }
      if (typeof object !== 'object' || object === null || Array.isArray(object)) throw failure('unparseable', `RDAP server ${host}: the answer is not a JSON object`);
      return { found: true, object };
    } catch (error) {
      if (error instanceof ProviderError) throw error;
      if (opts.signal.aborted) throw failure('timeout', `RDAP server ${host}: out of time`);
      throw failure('network', `RDAP server ${host}: ${(error as { code?: string }).code ?? (error as Error).message}`);
    } finally {
      // Whatever was not read (a redirect's or an error's body) is dropped, not left open.
      if (!body.destroyed) body.destroy();
    }
  }
}

/**
 * The registrar's RDAP URL of a thin registry's answer: the first `links` member with
 * rel `related`, an http(s) href to a domain object and an RDAP (or no) media type.
 */
export function relatedDomainLink(object: unknown, self: URL): URL | null {
  const links = (object as { links?: unknown }).links;
  if (!Array.isArray(links)) return null;
  for (const link of links.slice(0, 100)) {
    const { rel, href, type } = (link ?? {}) as { rel?: unknown; href?: unknown; type?: unknown };
    if (rel !== 'related' || typeof href !== 'string' || href.length > 2000 || !URL.canParse(href)) continue;
    if (type !== undefined && (typeof type !== 'string' || !/rdap\+json|application\/json/i.test(type))) continue;
    const url = new URL(href);
    if (!/^https?:$/.test(url.protocol) || !/\/domain\/[^/]+$/i.test(url.pathname) || url.href === self.href) continue;
    return url;
  }
  return null;
}
