/**
 * WhoisXML's APIs: where each lives and one call to it. The key goes in the `apiKey`
 * parameter (body for the POST), as WhoisXML's own clients send it. Neither the key nor the
 * query is ever in an error message (only the API's name and the HTTP status or failure).
 */
import { Agent, request, type Dispatcher } from 'undici';
import { ProviderError } from '../provider';
import { exchangeFailure, readJsonObject, statusFailure } from '../live/http-json';
import { obj, type Obj } from './read';

export interface WhoisXmlOptions {
  apiKey: string;
  /** WHOISXML_BASE_URL: one base for every API (whoisxml-provider.ts); default WhoisXML's own hosts. */
  baseUrl?: string;
  /** WHOIS_TIMEOUT_MS: one call. */
  timeoutMs: number;
  /** WHOIS_MAX_BYTES: one answer. */
  maxBytes: number;
}

export type Api = 'whois' | 'history' | 'reverse-whois' | 'reverse-ip' | 'reverse-mx' | 'reverse-ns' | 'subdomains';

const ENDPOINTS: Record<Api, { host: string; path: string }> = {
  whois: { host: 'www.whoisxmlapi.com', path: '/whoisserver/WhoisService' },
  history: { host: 'whois-history.whoisxmlapi.com', path: '/api/v1' },
  'reverse-whois': { host: 'reverse-whois.whoisxmlapi.com', path: '/api/v2' },
  'reverse-ip': { host: 'reverse-ip.whoisxmlapi.com', path: '/api/v1' },
  'reverse-mx': { host: 'reverse-mx.whoisxmlapi.com', path: '/api/v1' },
  'reverse-ns': { host: 'reverse-ns.whoisxmlapi.com', path: '/api/v1' },
  subdomains: { host: 'subdomains.whoisxmlapi.com', path: '/api/v1' },
};

/** The URL of an API: its own host, or under the base named after the host's first label. */
export function whoisXmlUrl(api: Api, baseUrl?: string): URL {
  const { host, path } = ENDPOINTS[api];
  if (!baseUrl) return new URL(`https://${host}${path}`);
  const prefix = host.startsWith('www.') ? '' : `/${host.slice(0, host.indexOf('.'))}`;
  return new URL(`${baseUrl.replace(/\/+$/, '')}${prefix}${path}`);
}

/**
 * An error in a 200 answer: `{ErrorMessage: {errorCode, msg}}` (WHOIS API) or
 * `{code, messages}` (the others). A numeric code names the failure like an HTTP status;
 * any other error (WHOIS_01, a bad parameter) is 'unparseable'.
 */
function bodyError(api: Api, body: Obj): ProviderError | null {
  const whoisError = obj(body.ErrorMessage);
  const code = whoisError ? whoisError.errorCode : body.code;
  if (!whoisError && code === undefined && body.messages === undefined) return null;
  const numeric = typeof code === 'number' || (typeof code === 'string' && /^\d{3}$/.test(code)) ? Number(code) : 0;
  const label = typeof code === 'string' || typeof code === 'number' ? String(code).slice(0, 40) : 'unknown';
  return statusFailure('whoisxml', numeric, `WhoisXML ${api}: error ${label}`) ?? new ProviderError('whoisxml', 'unparseable', `WhoisXML ${api}: error ${label}`);
}

/** One call: GET with `params` in the query, or POST of `body`; the answer's JSON object. */
export type WhoisXmlCall = (api: Api, params: Record<string, string | null>, signal: AbortSignal, body?: Obj) => Promise<Obj>;

/** The calls over one connection pool, and its close (at shutdown). */
export function whoisXmlClient(options: WhoisXmlOptions): { call: WhoisXmlCall; close(): Promise<void> } {
  const agent = new Agent({ connect: { timeout: options.timeoutMs } });

  function send(url: URL, signal: AbortSignal, params: Record<string, string | null>, body?: Obj): Promise<Dispatcher.ResponseData> {
    if (body) {
      return request(url, {
        method: 'POST',
        dispatcher: agent,
        signal,
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ ...body, apiKey: options.apiKey }),
      });
    }
    url.searchParams.set('apiKey', options.apiKey);
    for (const [key, value] of Object.entries(params)) if (value !== null) url.searchParams.set(key, value);
    return request(url, { method: 'GET', dispatcher: agent, signal, headers: { accept: 'application/json' } });
  }

  async function call(api: Api, params: Record<string, string | null>, signal: AbortSignal, body?: Obj): Promise<Obj> {
    const url = whoisXmlUrl(api, options.baseUrl);
    const label = `WhoisXML ${api}`;
    const callSignal = AbortSignal.any([signal, AbortSignal.timeout(options.timeoutMs)]);
    let response: Dispatcher.ResponseData;
    try {
      response = await send(url, callSignal, params, body);
    } catch (error) {
      throw exchangeFailure('whoisxml', error, callSignal, label);
    }
    response.body.on('error', () => {});
    try {
      const failed = statusFailure('whoisxml', response.statusCode, label);
      if (failed) throw failed;
      if (response.statusCode !== 200) throw new ProviderError('whoisxml', 'unparseable', `${label}: HTTP ${response.statusCode}`);
      const answer = await readJsonObject('whoisxml', response, options.maxBytes, label);
      const error = bodyError(api, answer);
      if (error) throw error;
      return answer;
    } catch (error) {
      throw exchangeFailure('whoisxml', error, callSignal, label);
    } finally {
      if (!response.body.destroyed) response.body.destroy();
    }
  }

  return { call, close: () => agent.close() };
}
