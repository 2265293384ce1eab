/**
 * RDAP over HTTP (RFC 7480): GET `{base}domain/{name}` asking for `application/rdap+json`.
 * Every connection goes through the SSRF guard (an undici Agent from infra/ssrf.ts), so a
 * bootstrap, redirect or `related` URL that reaches a private address is refused at connect.
 * Answers are read up to a byte cap; the exchange ends with the caller's signal.
 */
import { request, type Dispatcher } from 'undici';
import { ProviderError } from '../provider';
import { exchangeFailure, readJsonObject, statusFailure } from './http-json';

export interface RdapFetchOptions {
  dispatcher: Dispatcher;
  maxBytes: number;
  signal: AbortSignal;
}

/** A domain object, or 404: the authoritative server does not know the name. */
export type RdapResult = { found: true; object: Record<string, unknown> } | { found: false };

const MAX_REDIRECTS = 3;

/**
 * GETs one RDAP URL (following up to MAX_REDIRECTS redirects to http(s) URLs): 200 → the
 * parsed object; 404 → not found; 401/403 → 'auth'; 429 → 'http-429'; 5xx → 'http-5xx';
 * any other status or a body that is no JSON object → 'unparseable'.
 */
export async function fetchRdap(start: URL, opts: RdapFetchOptions): Promise<RdapResult> {
  let url = start;
  for (let hop = 0; ; hop++) {
    const label = `RDAP server ${url.host}`;
    let response: Dispatcher.ResponseData;
    try {
      response = await request(url, {
        method: 'GET',
        dispatcher: opts.dispatcher,
        signal: opts.signal,
        headers: { accept: 'application/rdap+json, application/json;q=0.9' },
      });
    } catch (error) {
      throw exchangeFailure('live', error, opts.signal, label);
    }
    const { statusCode, headers, body } = response;
    body.on('error', () => {}); // destroying an unread body emits one; the outcome is decided below
    try {
      if (statusCode >= 300 && statusCode < 400 && statusCode !== 304) {
        const location = typeof headers.location === 'string' ? headers.location : undefined;
        const next = location !== undefined && URL.canParse(location, url.href) ? new URL(location, url) : null;
        if (!next || !/^https?:$/.test(next.protocol)) throw new ProviderError('live', 'unparseable', `${label}: redirect without a usable location`);
        if (hop >= MAX_REDIRECTS) throw new ProviderError('live', 'unparseable', `${label}: more than ${MAX_REDIRECTS} redirects`);
        url = next;
        continue;
      }
      if (statusCode === 404) return { found: false };
      const failed = statusFailure('live', statusCode, label);
      if (failed) throw failed;
      if (statusCode !== 200) throw new ProviderError('live', 'unparseable', `${label}: HTTP ${statusCode}`);
      return { found: true, object: await readJsonObject('live', response, opts.maxBytes, label) };
    } catch (error) {
      throw exchangeFailure('live', error, opts.signal, label);
    } finally {
      // Whatever was not read (a redirect's, an error's, an oversized body) is dropped, not left open.
      if (!body.destroyed) body.destroy();
    }
  }
}

/**
 * The registrar's RDAP URL of a thin registry's answer: the first `links` member with
 * rel `related`, an http(s) href to a domain object and an RDAP (or no) media type.
 */
export function relatedDomainLink(object: Record<string, unknown>, self: URL): URL | null {
  const links = object.links;
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
