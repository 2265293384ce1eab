/**
 * Sessions as tokens: starting one after a sign-in (a short-lived access token and a rotating
 * refresh token), rotating the refresh token with reuse detection, signing out, and the
 * live-session check behind every bearer request.
 */
import type { Transaction } from 'kysely';
import type { Database } from '../db/schema';
import type { Config } from '../config';
import { Errors } from '../infra/errors';
import { hashToken, newOpaqueToken } from '../infra/secrets';
import * as authRepo from './auth-repository';
import type { AuthContext } from './auth-context';
import { displayAddress, eraseEndedSessionDetails, LAST_USED_RESOLUTION_MS, touchSession, type ClientInfo } from './sessions';

export interface SessionTokens {
  accessToken: string;
  refreshToken: string;
  /** Cookie lifetime in seconds; undefined makes a browser-session cookie. */
  cookieMaxAge: number | undefined;
}

type SessionDeps = Pick<AuthContext, 'db' | 'config' | 'signAccessToken'>;

/** Remember Me keeps a session for days; without it, for hours. */
function sessionTtlSeconds(config: Config, remember: boolean): number {
  return remember ? config.REFRESH_TTL_DAYS * 86400 : config.SESSION_TTL_HOURS * 3600;
}

/** A new session; `client` (address, user agent) is what the owner's session list shows. */
export async function startSession(deps: SessionDeps, userId: string, remember: boolean, client?: ClientInfo): Promise<SessionTokens> {
  const { db } = deps;
  const ttlSeconds = sessionTtlSeconds(deps.config, remember);
  // What the account's ended sessions still held (address, user agent) goes now.
  await eraseEndedSessionDetails(db, userId);
  const sessionId = await authRepo.createSession(db, {
    userId,
    remember,
    expiresAt: new Date(Date.now() + ttlSeconds * 1000),
    ip: client ? displayAddress(client.ip) : null,
    userAgent: client?.userAgent ?? null,
  });
  const refreshToken = newOpaqueToken();
  await authRepo.addRefreshToken(db, sessionId, hashToken(refreshToken));
  return {
    accessToken: deps.signAccessToken({ sub: userId, sid: sessionId }),
    refreshToken,
    cookieMaxAge: remember ? ttlSeconds : undefined,
  };
}

/**
 * Uses the refresh token up and gives the session a new one, in the caller's transaction.
 * Null when the token is unknown or its session over; `reused` names the session a used
 * token revoked.
 */
async function rotate(deps: SessionDeps, trx: Transaction<Database>, tokenHash: string): Promise<{ tokens: SessionTokens | null; reused?: string }> {
  const row = await authRepo.findRefreshTokenForUpdate(trx, tokenHash);
  if (!row || row.revoked_at || row.closed_at || row.suspended_at || row.expires_at.getTime() <= Date.now()) return { tokens: null };
  if (row.used_at) {
    await authRepo.revokeSession(trx, row.session_id, 'refresh-token-reuse');
    return { tokens: null, reused: row.session_id };
  }
  await authRepo.markRefreshTokenUsed(trx, tokenHash);
  const next = newOpaqueToken();
  await authRepo.addRefreshToken(trx, row.session_id, hashToken(next));
  const ttlSeconds = sessionTtlSeconds(deps.config, row.remember);
  await authRepo.extendSession(trx, row.session_id, new Date(Date.now() + ttlSeconds * 1000));
  const tokens = {
    accessToken: deps.signAccessToken({ sub: row.user_id, sid: row.session_id }),
    refreshToken: next,
    cookieMaxAge: row.remember ? ttlSeconds : undefined,
  };
  return { tokens };
}

export function createSessionTokens(deps: SessionDeps & Pick<AuthContext, 'onSessionsEnded'>) {
  const { db } = deps;
  return {
    /** Rotates the refresh token. A token used twice revokes its whole family. */
    async refresh(refreshToken: string | undefined): Promise<SessionTokens> {
      if (!refreshToken || refreshToken.length > 200) throw Errors.unauthorized();
      const tokenHash = hashToken(refreshToken);
      const outcome = await db.transaction().execute((trx) => rotate(deps, trx, tokenHash));
      if (outcome.reused) deps.onSessionsEnded?.({ sessionId: outcome.reused });
      if (!outcome.tokens) throw Errors.unauthorized();
      return outcome.tokens;
    },

    async logout(refreshToken: string | undefined): Promise<void> {
      if (!refreshToken || refreshToken.length > 200) return;
      const sessionId = await authRepo.findSessionIdByRefreshToken(db, hashToken(refreshToken));
      if (!sessionId) return;
      await authRepo.revokeSession(db, sessionId, 'logout');
      deps.onSessionsEnded?.({ sessionId });
    },

    /**
     * The check behind every bearer request and websocket: one primary-key read. The
     * session's "last used" time is written at most once a minute, when found older.
     */
    async isSessionActive(sessionId: string, userId: string): Promise<boolean> {
      const session = await authRepo.findActiveSession(db, sessionId, userId);
      if (!session) return false;
      if (Date.now() - session.last_used_at.getTime() > LAST_USED_RESOLUTION_MS) await touchSession(db, sessionId);
      return true;
    },
  };
}
