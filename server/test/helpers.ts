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
