/**
 * The one API client. Bodies are JSON; errors arrive as `{"error": "message"}` with a
 * 4xx/5xx status and are thrown as ApiError.
 *
 * Session transport lives here too: the access token is kept in memory only (never in
 * storage); the refresh token is an HttpOnly cookie that only /authentication/refresh and
 * /authentication/logout read. A bearer call answered 401 refreshes once and retries once;
 * if that fails the session is ended.
 */
import { createStore } from './store';

/** The dashboard is served by the API server itself. */
const API_BASE = '';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** bearer: the user's token; cookie: the refresh cookie (login, refresh, logout); none. */
export type Credentials = 'bearer' | 'cookie' | 'none';

export interface RequestOptions {
  method?: 'GET' | 'POST';
  body?: unknown;
  credentials?: Credentials;
  /** Extra request headers (the API-key check sends the `{Brand}-Api-Key` header). */
  headers?: Record<string, string>;
}

/** The signed-in user's access token, or null when signed out. */
export const authToken = createStore<string | null>(null);

function send(path: string, { method = 'GET', body, credentials = 'bearer', headers: extra }: RequestOptions, token: string | null) {
  const headers: Record<string, string> = { ...extra, Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (credentials === 'bearer' && token) headers.Authorization = `Bearer ${token}`;
  return fetch(API_BASE + path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: credentials === 'cookie' ? 'include' : 'same-origin',
  });
}

async function readBody<T>(response: Response): Promise<T> {
  const text = await response.text();
  let data: unknown = null;
  if (text) {
    try {
      data = JSON.parse(text);
    } catch {
      data = null;
    }
  }
  if (!response.ok) {
    const message =
      data && typeof data === 'object' && typeof (data as { error?: unknown }).error === 'string'
        ? (data as { error: string }).error
        : `Request failed (${response.status})`;
    throw new ApiError(response.status, message);
  }
  return data as T;
}

export async function apiRequest<T>(path: string, options: RequestOptions = {}): Promise<T> {
  let response = await send(path, options, authToken.get());
  if (response.status === 401 && (options.credentials ?? 'bearer') === 'bearer') {
    const token = await refreshAuthToken();
    if (token) response = await send(path, options, token);
    if (!token || response.status === 401) void endSession();
  }
  return readBody<T>(response);
}

export const api = {
  get: <T>(path: string, credentials?: Credentials, headers?: Record<string, string>) =>
    apiRequest<T>(path, { credentials, headers }),
  post: <T>(path: string, body?: unknown, credentials?: Credentials) =>
    apiRequest<T>(path, { method: 'POST', body, credentials }),
};

let refreshing: Promise<string | null> | null = null;

/**
 * Trades the refresh cookie for a fresh access token. Concurrent callers share one
 * request. Any failure, network included, leaves the user signed out.
 */
export function refreshAuthToken(): Promise<string | null> {
  refreshing ??= (async () => {
    try {
      const { auth_token } = await readBody<{ auth_token?: string }>(
        await send('/authentication/refresh', { method: 'POST', credentials: 'cookie' }, null),
      );
      authToken.set(auth_token || null);
    } catch {
      authToken.set(null);
    }
    return authToken.get();
  })().finally(() => {
    refreshing = null;
  });
  return refreshing;
}

/** Forgets the token at once, then asks the server to drop the refresh cookie. */
export async function endSession(): Promise<void> {
  authToken.set(null);
  try {
    await send('/authentication/logout', { method: 'POST', credentials: 'cookie' }, null);
  } catch {
    // Offline: the in-memory token is gone already; the cookie expires on its own.
  }
}
