/**
 * Auth: sign-up, sign-in, sessions, two-factor, and the bearer check every dashboard route
 * uses (`app.authenticate`). Exposes its service as `app.auth` (users, realtime and others
 * ask it about sessions). An account's change is told to search's meter, so a snapshot
 * never outlives it; an ended session's sockets are closed through the realtime hub.
 */
import fp from 'fastify-plugin';
import type { AppDeps } from '../app-deps';
import { createAuthService, type AuthService, type SessionsEnded } from './auth-service';
import { registerAuthentication } from './authenticate';
import { registerAuthRoutes } from './auth-routes';
import { registerSessionRoutes } from './session-routes';
import { createSessionsService } from './sessions';
import { registerTwoFactorRoutes } from './two-factor-routes';

declare module 'fastify' {
  interface FastifyInstance {
    auth: AuthService;
  }
}

export const authPlugin = fp<AppDeps>(
  async (app, deps) => {
    const { db, config } = deps;
    const meter = app.searchMeter;
    // The realtime hub is registered after auth (it asks auth about sockets' sessions); a
    // session ends only once the app serves, when the hub is there.
    const sessionsEnded = (ended: SessionsEnded) => {
      app.realtime.endSessions(ended).catch((error: Error) => app.log.warn({ err: { message: error.message } }, 'realtime: ended sessions not told'));
    };
    const auth = createAuthService({
      db,
      config,
      limiter: deps.limiter,
      mail: deps.mail,
      ipSecret: deps.ipSecret,
      signAccessToken: (payload) => app.jwt.sign(payload),
      onAccountChanged: meter.forget,
      onSessionsEnded: sessionsEnded,
      onBackgroundError: (error) => app.log.warn({ err: { message: error.message } }, 'auth: work after the answer failed'),
    });
    app.decorate('auth', auth);
    await registerAuthentication(app, { secret: deps.jwtSecret, ttlSeconds: config.ACCESS_TOKEN_TTL_SECONDS, auth: () => auth });
    registerAuthRoutes(app, { auth, secureCookies: config.publicUrl.startsWith('https://') });
    registerTwoFactorRoutes(app, { twoFactor: auth.twoFactor });
    registerSessionRoutes(app, { sessions: createSessionsService({ db, onSessionsEnded: sessionsEnded }) });
  },
  { name: 'auth', fastify: '5.x', dependencies: ['search-meter'] },
);
