/**
 * One client's websocket (realtime-routes.ts): its messages (sign in, join, leave), the
 * channels it joined, and its end when its session ends.
 */
import type { FastifyInstance } from 'fastify';
import type { WebSocket } from 'ws';
import type { AccessClaims } from '../auth/auth-schemas';
import type { AuthService } from '../auth/auth-service';
import { CHANNEL_PATTERN, PUBLIC_CHANNELS, type JoinVerdict } from './channel-access';
import { join, leave, type SocketRegistry } from './socket-registry';

const MAX_CHANNELS_PER_SOCKET = 16;
/** The close code of a socket whose session ended (4000-4999: the application's own). */
export const SESSION_ENDED_CLOSE_CODE = 4401;

export interface SocketContext {
  app: FastifyInstance;
  auth: AuthService;
  registry: SocketRegistry;
  mayJoin(channel: string, userId: string | undefined): Promise<JoinVerdict>;
}

interface Connection {
  readonly socket: WebSocket;
  readonly joined: Set<string>;
  userId: string | undefined;
  /** Closes the socket and leaves its channels: its session ended. */
  end(): void;
  reply(message: object): void;
}

type ClientMessage = { type?: unknown; action?: unknown; channel?: unknown; token?: unknown };

export function serveSocket(ctx: SocketContext, socket: WebSocket) {
  const { registry } = ctx;
  const connection: Connection = {
    socket,
    joined: new Set(),
    userId: undefined,
    end: () => {
      registry.sessions.delete(socket);
      for (const channel of connection.joined) leave(registry, socket, channel);
      connection.joined.clear();
      connection.userId = undefined;
      socket.close(SESSION_ENDED_CLOSE_CODE, 'session ended');
    },
    reply: (message) => {
      if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(message));
    },
  };
  socket.on('message', (raw: Buffer) => onMessage(ctx, connection, raw));
  socket.on('close', () => {
    registry.sessions.delete(socket);
    for (const channel of connection.joined) leave(registry, socket, channel);
  });
}

async function onMessage(ctx: SocketContext, connection: Connection, raw: Buffer) {
  const { socket } = connection;
  let message: ClientMessage;
  try {
    message = JSON.parse(raw.toString('utf8'));
  } catch {
    return socket.close(1008, 'invalid message');
  }
  if (message.type === 'auth' && typeof message.token === 'string') return authenticate(ctx, connection, message.token);
  const channel = message.channel;
  if (message.type !== 'action' || typeof channel !== 'string' || !CHANNEL_PATTERN.test(channel)) {
    return socket.close(1008, 'invalid message');
  }
  if (message.action === 'join-channel') return joinChannel(ctx, connection, channel);
  if (message.action === 'leave-channel') {
    connection.joined.delete(channel);
    leave(ctx.registry, socket, channel);
    return connection.reply({ type: 'left', channel });
  }
  socket.close(1008, 'invalid message');
}

async function authenticate(ctx: SocketContext, connection: Connection, token: string) {
  const { socket } = connection;
  const { sessions } = ctx.registry;
  const previous = connection.userId;
  sessions.delete(socket);
  try {
    const claims = ctx.app.jwt.verify<AccessClaims>(token);
    // Known as this session before it is checked: a session that ends while the check
    // runs closes this socket too (the check may have read it still live).
    sessions.set(socket, { userId: claims.sub, sessionId: claims.sid, end: connection.end });
    connection.userId = (await ctx.auth.isSessionActive(claims.sid, claims.sub)) ? claims.sub : undefined;
  } catch {
    connection.userId = undefined;
  }
  if (socket.readyState !== socket.OPEN) return;
  if (connection.userId === undefined) sessions.delete(socket);
  // Another identity (or none) keeps no channel joined under the previous one.
  for (const channel of connection.userId === previous ? [] : connection.joined) {
    if (PUBLIC_CHANNELS.has(channel)) continue;
    connection.joined.delete(channel);
    leave(ctx.registry, socket, channel);
  }
  return connection.reply({ type: 'auth', ok: connection.userId !== undefined });
}

async function joinChannel(ctx: SocketContext, connection: Connection, channel: string) {
  const { socket, joined } = connection;
  let verdict: JoinVerdict;
  try {
    verdict = await ctx.mayJoin(channel, connection.userId);
  } catch (error) {
    ctx.app.log.warn({ err: { message: (error as Error).message } }, 'channel check failed');
    return connection.reply({ type: 'error', channel, error: 'Unavailable' });
  }
  if (verdict !== 'ok') return connection.reply({ type: 'error', channel, error: verdict });
  if (joined.size >= MAX_CHANNELS_PER_SOCKET && !joined.has(channel)) return connection.reply({ type: 'error', channel, error: 'Too many channels' });
  // The socket may have closed while the rule looked the channel up.
  if (socket.readyState !== socket.OPEN) return;
  joined.add(channel);
  join(ctx.registry, socket, channel);
  return connection.reply({ type: 'joined', channel });
}
