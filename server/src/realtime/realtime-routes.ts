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
import type { AuthService, SessionsEnded } from '../auth/auth-service';
import { createInProcessBus, createRedisBus, type Deliver, type RealtimeBus } from './realtime-bus';
import { SESSION_SWEEP_MS } from './session-sweep';
import type { ChannelRule, RealtimeHub } from './realtime-service';
import { channelAccess } from './channel-access';
import { createSocketRegistry, deliverToMembers, endSessions, type SocketRegistry } from './socket-registry';
import { serveSocket } from './socket-connection';

export type { ChannelRule, RealtimeHub } from './realtime-service';
export { SESSION_ENDED_CLOSE_CODE } from './socket-connection';

const MAX_MESSAGE_BYTES = 2048;
/** The bus's channel for ended sessions: outside CHANNEL_PATTERN, so no client can join it. */
const SESSIONS_ENDED_CHANNEL = ':sessions-ended';

declare module 'fastify' {
  interface FastifyInstance {
    realtime: RealtimeHub;
  }
}

interface RealtimeDeps {
  auth: AuthService;
  rules: ChannelRule[];
  redisUrl?: string;
  namespace: string;
  /** Of the given session ids, those still live: the periodic check closes the others' sockets. */
  liveSessions?: (sessionIds: string[]) => Promise<Set<string>>;
}

export async function registerRealtimeRoutes(app: FastifyInstance, deps: RealtimeDeps): Promise<void> {
  await app.register(fastifyWebsocket, { options: { maxPayload: MAX_MESSAGE_BYTES } });
  const registry = createSocketRegistry();
  const bus = await openBus(app, deps, (channel, data) => {
    if (channel === SESSIONS_ENDED_CHANNEL) return endSessions(registry, data as SessionsEnded);
    deliverToMembers(registry, channel, data);
  });
  if (deps.liveSessions) sweepSessions(app, registry.sessions, deps.liveSessions);

  const context = { app, auth: deps.auth, registry, mayJoin: channelAccess(deps.rules) };
  app.get('/ws', { websocket: true, schema: { hide: true } }, (socket) => serveSocket(context, socket));

  app.decorate('realtime', {
    publish: (channel: string, data: unknown) => bus.publish(channel, data),
    endSessions: (ended: SessionsEnded) => bus.publish(SESSIONS_ENDED_CHANNEL, ended),
    addChannelRule: (rule: ChannelRule) => {
      if (deps.rules.some((known) => known.prefix === rule.prefix)) throw new Error(`realtime: a rule for ${rule.prefix} already`);
      deps.rules.push(rule);
    },
  });
}

/** Redis pub/sub when configured, else in process; closed with the app. */
async function openBus(app: FastifyInstance, deps: RealtimeDeps, deliver: Deliver): Promise<RealtimeBus> {
  const bus = deps.redisUrl
    ? await createRedisBus({
        redisUrl: deps.redisUrl,
        namespace: deps.namespace,
        deliver,
        onError: (error) => app.log.warn({ err: { message: error.message } }, 'realtime bus'),
      })
    : createInProcessBus(deliver);
  app.addHook('onClose', () => bus.close());
  return bus;
}

/** Every SESSION_SWEEP_MS, ends the sockets whose session is no longer live (session-sweep.ts). */
function sweepSessions(app: FastifyInstance, sessions: SocketRegistry['sessions'], liveSessions: NonNullable<RealtimeDeps['liveSessions']>) {
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
