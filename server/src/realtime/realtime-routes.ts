/**
 * The dashboard's websocket at /ws. A client joins and leaves channels with
 * `{"type":"action","action":"join-channel"|"leave-channel","channel":"…"}` and the server
 * pushes `{"type":"message","channel":…,"data":…}` to the channel's members. The "test"
 * channel is open to everyone (the /test page). Every other channel belongs to someone: the
 * client first authenticates with the account's access token (`{"type":"auth","token":"…"}`,
 * checked like every bearer request), then a join is allowed only when the channel's rule
 * (one per channel prefix, e.g. `crypto-payment-` for the invoice's owner) says this user may
 * listen; otherwise the reply is `{"type":"error","channel",error:"Not Found"}` (a channel
 * that is not yours does not exist for you). Publishing goes through the realtime bus (Redis
 * pub/sub when configured), so every instance delivers to its own sockets.
 * Messages are small and bounded; anything else closes the socket with 1008.
 * When a session ends (logout, password change or reset, account closure, a reused refresh
 * token), the sockets authenticated with it are closed with 4401 on every instance: the
 * auth service tells `endSessions`, which goes through the same bus. Sessions ended where
 * no server hears of it (the operator CLI's user:suspend) are caught by a periodic check of
 * every authenticated socket's session (`liveSessions`, session-sweep.ts), within 5 s.
 */
import type { FastifyInstance } from 'fastify';
import fastifyWebsocket from '@fastify/websocket';
import type { WebSocket } from 'ws';
import type { AccessClaims } from '../auth/auth-schemas';
import type { AuthService, SessionsEnded } from '../auth/auth-service';
import { createInProcessBus, createRedisBus } from './realtime-bus';
import { SESSION_SWEEP_MS } from './session-sweep';
import type { ChannelRule, RealtimeHub } from './realtime-service';

export type { ChannelRule, RealtimeHub } from './realtime-service';

const MAX_MESSAGE_BYTES = 2048;
const MAX_CHANNELS_PER_SOCKET = 16;
const CHANNEL_PATTERN = /^[a-z0-9-]{1,100}$/;
const PUBLIC_CHANNELS = new Set(['test']);
/** The bus's channel for ended sessions: outside CHANNEL_PATTERN, so no client can join it. */
const SESSIONS_ENDED_CHANNEL = ':sessions-ended';
/** The close code of a socket whose session ended (4000-4999: the application's own). */
export const SESSION_ENDED_CLOSE_CODE = 4401;


/** What a socket is signed in as: the access token's claims, kept from before they are checked. */
interface SocketSession {
  userId: string;
  sessionId: string;
  /** Closes the socket and leaves its channels. */
  end(): void;
}

declare module 'fastify' {
  interface FastifyInstance {
    realtime: RealtimeHub;
  }
}

export async function registerRealtimeRoutes(
  app: FastifyInstance,
  deps: {
    auth: AuthService;
    rules: ChannelRule[];
    redisUrl?: string;
    namespace: string;
    /** Of the given session ids, those still live: the periodic check closes the others' sockets. */
    liveSessions?: (sessionIds: string[]) => Promise<Set<string>>;
  },
): Promise<void> {
  await app.register(fastifyWebsocket, { options: { maxPayload: MAX_MESSAGE_BYTES } });
  const members = new Map<string, Set<WebSocket>>();
  const sessions = new Map<WebSocket, SocketSession>();

  const endSessions = (ended: SessionsEnded) => {
    for (const session of [...sessions.values()]) {
      const matches =
        'sessionId' in ended ? session.sessionId === ended.sessionId : session.userId === ended.userId && session.sessionId !== ended.exceptSessionId;
      if (matches) session.end();
    }
  };
  const deliver = (channel: string, data: unknown) => {
    if (channel === SESSIONS_ENDED_CHANNEL) return endSessions(data as SessionsEnded);
    const text = JSON.stringify({ type: 'message', channel, data });
    for (const socket of members.get(channel) ?? []) if (socket.readyState === socket.OPEN) socket.send(text);
  };
  const bus = deps.redisUrl
    ? await createRedisBus({
        redisUrl: deps.redisUrl,
        namespace: deps.namespace,
        deliver,
        onError: (error) => app.log.warn({ err: { message: error.message } }, 'realtime bus'),
      })
    : createInProcessBus(deliver);
  app.addHook('onClose', () => bus.close());

  const liveSessions = deps.liveSessions;
  if (liveSessions) {
    let sweeping = false;
    const sweep = setInterval(() => {
      if (sweeping || sessions.size === 0) return;
      sweeping = true;
      const asked = new Set([...sessions.values()].map((session) => session.sessionId));
      liveSessions([...asked])
        .then((live) => {
          for (const session of [...sessions.values()]) if (asked.has(session.sessionId) && !live.has(session.sessionId)) session.end();
        })
        .catch((error: Error) => app.log.warn({ err: { message: error.message } }, 'realtime: session check failed'))
        .finally(() => {
          sweeping = false;
        });
    }, SESSION_SWEEP_MS);
    sweep.unref();
    app.addHook('onClose', async () => clearInterval(sweep));
  }

  const ruleFor = (channel: string) => deps.rules.find((rule) => channel.startsWith(rule.prefix));

  /** 'ok', or the error the client is told. */
  const mayJoin = async (channel: string, userId: string | undefined): Promise<'ok' | 'Unauthorized' | 'Not Found'> => {
    if (PUBLIC_CHANNELS.has(channel)) return 'ok';
    if (!userId) return 'Unauthorized';
    const rule = ruleFor(channel);
    return rule && (await rule.authorize(channel, userId)) ? 'ok' : 'Not Found';
  };

  const leave = (socket: WebSocket, channel: string) => {
    const set = members.get(channel);
    set?.delete(socket);
    if (set?.size === 0) members.delete(channel);
  };

  app.get('/ws', { websocket: true, schema: { hide: true } }, (socket) => {
    const joined = new Set<string>();
    let userId: string | undefined;
    const endThis = () => {
      sessions.delete(socket);
      for (const channel of joined) leave(socket, channel);
      joined.clear();
      userId = undefined;
      socket.close(SESSION_ENDED_CLOSE_CODE, 'session ended');
    };
    const reply = (message: object) => {
      if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(message));
    };
    socket.on('message', async (raw: Buffer) => {
      let message: { type?: unknown; action?: unknown; channel?: unknown; token?: unknown };
      try {
        message = JSON.parse(raw.toString('utf8'));
      } catch {
        return socket.close(1008, 'invalid message');
      }
      if (message.type === 'auth' && typeof message.token === 'string') {
        const previous = userId;
        sessions.delete(socket);
        try {
          const claims = app.jwt.verify<AccessClaims>(message.token);
          // Known as this session before it is checked: a session that ends while the check
          // runs closes this socket too (the check may have read it still live).
          sessions.set(socket, { userId: claims.sub, sessionId: claims.sid, end: endThis });
          userId = (await deps.auth.isSessionActive(claims.sid, claims.sub)) ? claims.sub : undefined;
        } catch {
          userId = undefined;
        }
        if (socket.readyState !== socket.OPEN) return;
        if (userId === undefined) sessions.delete(socket);
        // Another identity (or none) keeps no channel joined under the previous one.
        for (const channel of userId === previous ? [] : joined) {
          if (PUBLIC_CHANNELS.has(channel)) continue;
          joined.delete(channel);
          leave(socket, channel);
        }
        return reply({ type: 'auth', ok: userId !== undefined });
      }
      const channel = message.channel;
      if (message.type !== 'action' || typeof channel !== 'string' || !CHANNEL_PATTERN.test(channel)) {
        return socket.close(1008, 'invalid message');
      }
      if (message.action === 'join-channel') {
        let verdict: Awaited<ReturnType<typeof mayJoin>>;
        try {
          verdict = await mayJoin(channel, userId);
        } catch (error) {
          app.log.warn({ err: { message: (error as Error).message } }, 'channel check failed');
          return reply({ type: 'error', channel, error: 'Unavailable' });
        }
        if (verdict !== 'ok') return reply({ type: 'error', channel, error: verdict });
        if (joined.size >= MAX_CHANNELS_PER_SOCKET && !joined.has(channel)) return reply({ type: 'error', channel, error: 'Too many channels' });
        // The socket may have closed while the rule looked the channel up.
        if (socket.readyState !== socket.OPEN) return;
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
      sessions.delete(socket);
      for (const channel of joined) leave(socket, channel);
    });
  });

  app.decorate('realtime', {
    publish: (channel: string, data: unknown) => bus.publish(channel, data),
    endSessions: (ended: SessionsEnded) => bus.publish(SESSIONS_ENDED_CHANNEL, ended),
    addChannelRule: (rule: ChannelRule) => {
      if (deps.rules.some((known) => known.prefix === rule.prefix)) throw new Error(`realtime: a rule for ${rule.prefix} already`);
      deps.rules.push(rule);
    },
  });
}
