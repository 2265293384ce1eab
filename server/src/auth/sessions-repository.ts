/** The SQL of the sessions a person sees and of the sign-in history (sessions.ts holds what is shown and kept). */
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database, SignInMethod } from '../db/schema';

type Db = Kysely<Database> | Transaction<Database>;

/** Appends one sign-in or failed attempt and keeps only the account's newest `keep`. */
export async function insertSignIn(
  db: Db,
  entry: { userId: string; ip: string; userAgent?: string | null; method: SignInMethod; success: boolean },
  keep: number,
): Promise<void> {
  await db
    .insertInto('sign_in_history')
    .values({
      user_id: entry.userId,
      ip: entry.ip,
      user_agent: entry.userAgent ?? null,
      method: entry.method,
      success: entry.success,
    })
    .execute();
  await db
    .deleteFrom('sign_in_history')
    .where('user_id', '=', entry.userId)
    .where('id', 'not in', db.selectFrom('sign_in_history').select('id').where('user_id', '=', entry.userId).orderBy('id', 'desc').limit(keep))
    .execute();
}

/** The account's newest `limit` sign-ins and failed attempts, newest first. */
export async function selectSignIns(db: Db, userId: string, limit: number) {
  return db
    .selectFrom('sign_in_history')
    .select(['at', 'ip', 'user_agent', 'method', 'success'])
    .where('user_id', '=', userId)
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

/** The account's live sessions, newest use first. */
export async function selectLiveSessions(db: Db, userId: string) {
  return db
    .selectFrom('sessions')
    .select(['id', 'ip', 'user_agent', 'created_at', 'last_used_at', 'remember'])
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', sql<Date>`now()`)
    .orderBy('last_used_at', 'desc')
    .orderBy('created_at', 'desc')
    .execute();
}

/** Sets the session's last use to now when the stored one is older than `resolutionSeconds`. */
export async function touchSession(db: Db, sessionId: string, resolutionSeconds: number): Promise<void> {
  await db
    .updateTable('sessions')
    .set({ last_used_at: sql`now()` })
    .where('id', '=', sessionId)
    .where('last_used_at', '<', sql<Date>`now() - make_interval(secs => ${resolutionSeconds})`)
    .execute();
}

/** Erases the address and user agent of the account's ended sessions (expired or revoked). */
export async function eraseEndedSessionDetails(db: Db, userId: string): Promise<void> {
  await db
    .updateTable('sessions')
    .set({ ip: null, user_agent: null })
    .where('user_id', '=', userId)
    .where((eb) => eb.or([eb('revoked_at', 'is not', null), eb('expires_at', '<=', sql<Date>`now()`)]))
    .where((eb) => eb.or([eb('ip', 'is not', null), eb('user_agent', 'is not', null)]))
    .execute();
}

/** Deletes the account's sign-in history and its sessions' addresses and user agents. */
export async function eraseSignInDetails(db: Db, userId: string): Promise<void> {
  await db.deleteFrom('sign_in_history').where('user_id', '=', userId).execute();
  await db.updateTable('sessions').set({ ip: null, user_agent: null }).where('user_id', '=', userId).execute();
}

/** Revokes one live session of the account (its details erased); undefined when there is none such. */
export async function endSession(db: Db, userId: string, sessionId: string, reason: string) {
  return db
    .updateTable('sessions')
    .set({ revoked_at: sql`now()`, revoked_reason: reason, ip: null, user_agent: null })
    .where('id', '=', sessionId)
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', sql<Date>`now()`)
    .returning('id')
    .executeTakeFirst();
}

/** Revokes every live session of the account but `currentSessionId`; the ids revoked. */
export async function endOtherSessions(db: Db, userId: string, currentSessionId: string, reason: string) {
  return db
    .updateTable('sessions')
    .set({ revoked_at: sql`now()`, revoked_reason: reason, ip: null, user_agent: null })
    .where('user_id', '=', userId)
    .where('id', '<>', currentSessionId)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', sql<Date>`now()`)
    .returning('id')
    .execute();
}
