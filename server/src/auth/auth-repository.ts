import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from '../db/schema';

type Db = Kysely<Database> | Transaction<Database>;

/** WebAuthn challenges are one_time_tokens rows too, written by two-factor-repository.ts (purposes `webauthn-*`). */
export type TokenPurpose = 'verify-email' | 'reset-password' | 'close-account' | 'remove-entry' | 'opt-out' | 'second-factor';

export async function createOneTimeToken(
  db: Db,
  token: { purpose: TokenPurpose; userId: string | null; tokenHash: string; expiresAt: Date; payload?: unknown },
): Promise<void> {
  await db
    .insertInto('one_time_tokens')
    .values({
      token_hash: token.tokenHash,
      purpose: token.purpose,
      user_id: token.userId,
      expires_at: token.expiresAt,
      payload: token.payload === undefined ? null : JSON.stringify(token.payload),
    })
    .execute();
}

/** Marks a live token used and returns it; a used, expired or unknown token gives undefined. */
export async function consumeOneTimeToken(db: Db, purpose: TokenPurpose, tokenHash: string) {
  return db
    .updateTable('one_time_tokens')
    .set({ used_at: sql`now()` })
    .where('token_hash', '=', tokenHash)
    .where('purpose', '=', purpose)
    .where('used_at', 'is', null)
    .where('expires_at', '>', sql<Date>`now()`)
    .returning(['user_id', 'payload'])
    .executeTakeFirst();
}

/** A live token's user (and payload), without using it up (undefined when used, expired or unknown). */
export async function findLiveOneTimeToken(db: Db, purpose: TokenPurpose, tokenHash: string) {
  return db
    .selectFrom('one_time_tokens')
    .select(['user_id', 'payload'])
    .where('token_hash', '=', tokenHash)
    .where('purpose', '=', purpose)
    .where('used_at', 'is', null)
    .where('expires_at', '>', sql<Date>`now()`)
    .executeTakeFirst();
}

/** Voids the outstanding tokens of one purpose (a new reset link replaces older ones). */
export async function voidOneTimeTokens(db: Db, userId: string, purpose: TokenPurpose): Promise<void> {
  await db
    .updateTable('one_time_tokens')
    .set({ used_at: sql`now()` })
    .where('user_id', '=', userId)
    .where('purpose', '=', purpose)
    .where('used_at', 'is', null)
    .execute();
}

export async function createSession(
  db: Db,
  session: { userId: string; remember: boolean; expiresAt: Date; ip?: string | null; userAgent?: string | null },
): Promise<string> {
  const row = await db
    .insertInto('sessions')
    .values({
      user_id: session.userId,
      remember: session.remember,
      expires_at: session.expiresAt,
      ip: session.ip ?? null,
      user_agent: session.userAgent ?? null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export async function addRefreshToken(db: Db, sessionId: string, tokenHash: string): Promise<void> {
  await db.insertInto('refresh_tokens').values({ session_id: sessionId, token_hash: tokenHash }).execute();
}

/** Locks the refresh token row and returns it with its session. */
export async function findRefreshTokenForUpdate(trx: Transaction<Database>, tokenHash: string) {
  return trx
    .selectFrom('refresh_tokens as rt')
    .innerJoin('sessions as s', 's.id', 'rt.session_id')
    .innerJoin('users as u', 'u.id', 's.user_id')
    .select(['rt.session_id', 'rt.used_at', 's.user_id', 's.remember', 's.revoked_at', 's.expires_at', 'u.closed_at', 'u.suspended_at'])
    .where('rt.token_hash', '=', tokenHash)
    .forUpdate('rt')
    .executeTakeFirst();
}

/** The session a refresh token belongs to, used or not. */
export async function findSessionIdByRefreshToken(db: Db, tokenHash: string): Promise<string | undefined> {
  const row = await db.selectFrom('refresh_tokens').select('session_id').where('token_hash', '=', tokenHash).executeTakeFirst();
  return row?.session_id;
}

export async function markRefreshTokenUsed(db: Db, tokenHash: string): Promise<void> {
  await db.updateTable('refresh_tokens').set({ used_at: sql`now()` }).where('token_hash', '=', tokenHash).execute();
}

export async function extendSession(db: Db, sessionId: string, expiresAt: Date): Promise<void> {
  await db.updateTable('sessions').set({ last_used_at: sql`now()`, expires_at: expiresAt }).where('id', '=', sessionId).execute();
}

export async function revokeSession(db: Db, sessionId: string, reason: string): Promise<void> {
  await db
    .updateTable('sessions')
    .set({ revoked_at: sql`now()`, revoked_reason: reason })
    .where('id', '=', sessionId)
    .where('revoked_at', 'is', null)
    .execute();
}

export async function revokeUserSessions(db: Db, userId: string, reason: string, exceptSessionId?: string): Promise<void> {
  let query = db
    .updateTable('sessions')
    .set({ revoked_at: sql`now()`, revoked_reason: reason })
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null);
  if (exceptSessionId) query = query.where('id', '<>', exceptSessionId);
  await query.execute();
}

/**
 * The check behind every bearer request: session live, account open and not suspended. One primary-key
 * lookup; gives when the session was last used (undefined when it is not live).
 */
export async function findActiveSession(db: Db, sessionId: string, userId: string): Promise<{ last_used_at: Date } | undefined> {
  return db
    .selectFrom('sessions as s')
    .innerJoin('users as u', 'u.id', 's.user_id')
    .select('s.last_used_at')
    .where('s.id', '=', sessionId)
    .where('s.user_id', '=', userId)
    .where('s.revoked_at', 'is', null)
    .where('s.expires_at', '>', sql<Date>`now()`)
    .where('u.closed_at', 'is', null)
    .where('u.suspended_at', 'is', null)
    .executeTakeFirst();
}

export async function rememberKnownIp(db: Db, userId: string, ipHash: string): Promise<void> {
  await db
    .insertInto('login_known_ips')
    .values({ user_id: userId, ip_hash: ipHash })
    .onConflict((oc) => oc.columns(['user_id', 'ip_hash']).doUpdateSet({ last_seen_at: sql`now()` }))
    .execute();
}

export async function isKnownIp(db: Db, userId: string, ipHash: string): Promise<boolean> {
  const row = await db
    .selectFrom('login_known_ips')
    .select('user_id')
    .where('user_id', '=', userId)
    .where('ip_hash', '=', ipHash)
    .where('last_seen_at', '>', sql<Date>`now() - interval '90 days'`)
    .executeTakeFirst();
  return row !== undefined;
}

/** Of the given session ids, those still live. */
export async function liveSessionIds(db: Db, sessionIds: string[]): Promise<Set<string>> {
  if (sessionIds.length === 0) return new Set();
  const rows = await db
    .selectFrom('sessions as s')
    .innerJoin('users as u', 'u.id', 's.user_id')
    .select('s.id')
    .where('s.id', 'in', sessionIds)
    .where('s.revoked_at', 'is', null)
    .where('s.expires_at', '>', sql<Date>`now()`)
    .where('u.closed_at', 'is', null)
    .where('u.suspended_at', 'is', null)
    .execute();
  return new Set(rows.map((row) => row.id));
}
