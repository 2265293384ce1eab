import { WebSocket } from 'ws';
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

/** A websocket client of a test server's /ws: messages queued in order, `next` waits (with a limit) for the following one. */
export interface SocketClient {
  socket: WebSocket;
  next(timeoutMs?: number): Promise<any>;
  send(message: object): void;
  closed: Promise<number>;
}

export function connectWebSocket(target: { url: string }): Promise<SocketClient> {
  const socket = new WebSocket(target.url.replace('http', 'ws') + '/ws');
  const queue: any[] = [];
  const waiters: ((m: any) => void)[] = [];
  socket.on('message', (data) => {
    const message = JSON.parse(data.toString());
    const waiter = waiters.shift();
    if (waiter) waiter(message);
    else queue.push(message);
  });
  const closed = new Promise<number>((resolve) => socket.on('close', (code) => resolve(code)));
  const next = (timeoutMs = 10_000) =>
    queue.length
      ? Promise.resolve(queue.shift())
      : new Promise((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error('no websocket message in time')), timeoutMs);
          waiters.push((m) => {
            clearTimeout(timer);
            resolve(m);
          });
        });
  return new Promise((resolve, reject) => {
    socket.on('open', () => resolve({ socket, next, send: (m) => socket.send(JSON.stringify(m)), closed }));
    socket.on('error', reject);
  });
}
