/**
 * The dashboard's one websocket (/ws, server/src/realtime/realtime-routes.ts): open while
 * signed in, closed on sign-out. It authenticates with the access token first
 * and joins channels only once the server has confirmed it (the server checks the token
 * asynchronously, so a join sent right behind the auth message could arrive unauthenticated).
 * A dropped connection reconnects with backoff and rejoins every channel still wanted; one
 * closed because its session ended (4401) signs the dashboard out.
 */
import { authToken, refreshAuthToken } from './api';

type Handler = (data: unknown) => void;

const RECONNECT_MIN_MS = 1_000;
const RECONNECT_MAX_MS = 30_000;
/** The server's close code for a socket whose session ended (signed out elsewhere, password changed…). */
const SESSION_ENDED = 4401;

const handlers = new Map<string, Set<Handler>>();
let socket: WebSocket | null = null;
let authed = false;
let retryDelay = RECONNECT_MIN_MS;
let retryTimer: ReturnType<typeof setTimeout> | undefined;

function socketUrl(): string {
  return `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws`;
}

function send(message: object): void {
  if (socket?.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
}

function join(channel: string): void {
  if (authed) send({ type: 'action', action: 'join-channel', channel });
}

function connect(): void {
  clearTimeout(retryTimer);
  if (socket || !authToken.get()) return;
  const current = new WebSocket(socketUrl());
  socket = current;
  authed = false;
  current.onopen = () => {
    retryDelay = RECONNECT_MIN_MS;
    send({ type: 'auth', token: authToken.get() });
  };
  current.onmessage = (event) => {
    let message: { type?: string; ok?: boolean; channel?: string; data?: unknown };
    try {
      message = JSON.parse(String(event.data));
    } catch {
      return;
    }
    if (message.type === 'auth') {
      authed = message.ok === true;
      if (authed) for (const channel of handlers.keys()) join(channel);
    } else if (message.type === 'message' && typeof message.channel === 'string') {
      for (const handler of handlers.get(message.channel) ?? []) handler(message.data);
    }
  };
  current.onclose = (event) => {
    if (socket !== current) return;
    socket = null;
    authed = false;
    if (!authToken.get()) return;
    // This session was ended elsewhere ("Sign out everywhere", a password change): the refresh
    // fails, the token is dropped and the sign-in screen shows at once, not at the next call.
    // (A new token, should the refresh work, reconnects through the subscription below.)
    // Not on /close-account: the closure the page just made ended the session, and the page
    // shows its outcome before signing out by itself.
    if (event.code === SESSION_ENDED) return void (location.pathname === '/close-account' ? undefined : refreshAuthToken());
    retryTimer = setTimeout(connect, retryDelay);
    retryDelay = Math.min(retryDelay * 2, RECONNECT_MAX_MS);
  };
}

function disconnect(): void {
  clearTimeout(retryTimer);
  retryDelay = RECONNECT_MIN_MS;
  const current = socket;
  socket = null;
  authed = false;
  current?.close();
}

/** Follows the session: connects on sign-in, re-authenticates on a refreshed token, closes on sign-out. */
export function startRealtime(): void {
  let lastToken = authToken.get();
  if (lastToken) connect();
  authToken.subscribe(() => {
    const token = authToken.get();
    if (token === lastToken) return;
    lastToken = token;
    if (!token) disconnect();
    else if (!socket) connect();
    else send({ type: 'auth', token });
  });
}

/** Receives the `data` of every message pushed on `channel` until the returned function is called. */
export function subscribeChannel(channel: string, handler: Handler): () => void {
  let set = handlers.get(channel);
  if (!set) {
    set = new Set();
    handlers.set(channel, set);
    join(channel);
  }
  set.add(handler);
  return () => {
    const current = handlers.get(channel);
    current?.delete(handler);
    if (current?.size === 0) {
      handlers.delete(channel);
      if (authed) send({ type: 'action', action: 'leave-channel', channel });
    }
  };
}
