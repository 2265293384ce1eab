/**
 * The dashboard's websocket at /ws. A client joins and leaves channels with
 * `{"type":"action","action":"join-channel"|"leave-channel","channel":"…"}` and the server
 * pushes `{"type":"message","channel":…,"data":…}` to the channel's members. The "test"
 * channel is open to everyone (the /test page); other channels will carry events such as
 * crypto-payment-{id} and need the account's access token first
 * (`{"type":"auth","token":"…"}`), checked like every bearer request.
 * Messages are small and bounded; anything else closes the socket with 1008.
 */
import type { FastifyInstance } from 'fastify';
import fastifyWebsocket from '@fastify/websocket';
import type { WebSocket } from 'ws';
import type { AccessClaims } from '../auth/authenticate';
import type { AuthService } from '../auth/auth-service';

const MAX_MESSAGE_BYTES = 2048;
const MAX_CHANNELS_PER_SOCKET = 16;
const CHANNEL_PATTERN = /^[a-z0-9-]{1,100}$/;
const PUBLIC_CHANNELS = new Set(['test']);

export interface RealtimeHub {
  publish(channel: string, data: unknown): void;
}

declare module 'fastify' {
  interface FastifyInstance {
    realtime: RealtimeHub;
  }
}

export async function registerRealtimeRoutes(app: FastifyInstance, deps: { auth: AuthService }): Promise<void> {
  await app.register(fastifyWebsocket, { options: { maxPayload: MAX_MESSAGE_BYTES } });
  const members = new Map<string, Set<WebSocket>>();

  const leave = (socket: WebSocket, channel: string) => {
    const set = members.get(channel);
    set?.delete(socket);
    if (set?.size === 0) members.delete(channel);
  };

  app.get('/ws', { websocket: true, schema: { hide: true } }, (socket) => {
    const joined = new Set<string>();
    let userId: string | undefined;
    const reply = (message: object) => socket.send(JSON.stringify(message));
    socket.on('message', async (raw: Buffer) => {
      let message: { type?: unknown; action?: unknown; channel?: unknown; token?: unknown };
      try {
        message = JSON.parse(raw.toString('utf8'));
      } catch {
        return socket.close(1008, 'invalid message');
      }
      if (message.type === 'auth' && typeof message.token === 'string') {
        try {
          const claims = app.jwt.verify<AccessClaims>(message.token);
          if (await deps.auth.isSessionActive(claims.sid, claims.sub)) userId = claims.sub;
        } catch {
          userId = undefined;
        }
        return reply({ type: 'auth', ok: userId !== undefined });
      }
      const channel = message.channel;
      if (message.type !== 'action' || typeof channel !== 'string' || !CHANNEL_PATTERN.test(channel)) {
        return socket.close(1008, 'invalid message');
      }
      if (message.action === 'join-channel') {
        if (!PUBLIC_CHANNELS.has(channel) && !userId) return reply({ type: 'error', channel, error: 'Unauthorized' });
        if (joined.size >= MAX_CHANNELS_PER_SOCKET) return reply({ type: 'error', channel, error: 'Too many channels' });
        joined.add(channel);
        if (!members.has(channel)) members.set(channel, new Set());
        members.get(channel)!.add(socket);
        return reply({ type: 'joined', channel });
      }
      if (message.action === 'leave-channel') {
        joined.delete(channel);
        leave(socket, channel);
        return reply({ type: 'left', channel });
      }
      socket.close(1008, 'invalid message');
    });
    socket.on('close', () => {
      for (const channel of joined) leave(socket, channel);
    });
  });

  app.decorate('realtime', {
    publish(channel: string, data: unknown) {
      const text = JSON.stringify({ type: 'message', channel, data });
      for (const socket of members.get(channel) ?? []) socket.send(text);
    },
  });
}
