/** Small HTTP helpers for API tests. */
export interface Reply<T = any> {
  status: number;
  body: T;
  headers: Headers;
  cookie: string;
}

export async function call<T = any>(
  base: string,
  method: string,
  path: string,
  options: { body?: unknown; token?: string; cookie?: string; headers?: Record<string, string>; ip?: string } = {},
): Promise<Reply<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.cookie) headers.cookie = options.cookie;
  if (options.ip) headers['x-forwarded-for'] = options.ip;
  const response = await fetch(base + path, {
    method,
    headers,
    ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
  });
  const text = await response.text();
  let body: any = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: response.status, body, headers: response.headers, cookie: (response.headers.getSetCookie()[0] ?? '').split(';')[0] ?? '' };
}

let ipCounter = 1;
/** A fresh client address per test, so throttles of one test do not touch another. */
export function freshIp(): string {
  const n = ipCounter++;
  return `198.18.${(n >> 8) & 255}.${n & 255}`;
}

/**
 * A public API (/v2) request with the key header, or without it when `key` is undefined.
 * Sent from a fresh client address unless `ip` is given (the address counts only where the
 * server trusts the proxy, TRUSTED_PROXIES=127.0.0.1).
 */
export function callV2<T = any>(
  target: { url: string; runtime: { config: { apiKeyHeader: string } } },
  key: string | undefined,
  body: unknown,
  options: { path?: string; header?: string; ip?: string } = {},
): Promise<Reply<T>> {
  const header = options.header ?? target.runtime.config.apiKeyHeader;
  return call<T>(target.url, 'POST', options.path ?? '/v2/search', {
    body,
    headers: key === undefined ? {} : { [header]: key },
    ip: options.ip ?? freshIp(),
  });
}
