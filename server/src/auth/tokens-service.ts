/**
 * What other features may do with auth's tokens and sessions: the removal flow's one-time
 * links, the operator's suspension ending an account's sessions, and the realtime sockets'
 * check of which sessions are still live. A narrow port, so
 * they do not reach into auth's repository; the SQL stays in auth-repository.ts.
 */
import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../db/schema';
import * as repo from './auth-repository';
import type { TokenPurpose } from './auth-repository';

type Db = Kysely<Database> | Transaction<Database>;

/** Stores a one-time token by its hash (the caller mails the token itself). */
export function createOneTimeToken(
  db: Db,
  token: { purpose: TokenPurpose; userId: string | null; tokenHash: string; expiresAt: Date; payload?: unknown },
): Promise<void> {
  return repo.createOneTimeToken(db, token);
}

/** Uses up a live token of `purpose`: its user and payload, or undefined when used, expired or unknown. */
export function consumeOneTimeToken(db: Db, purpose: TokenPurpose, tokenHash: string) {
  return repo.consumeOneTimeToken(db, purpose, tokenHash);
}

/** Revokes every live session of the account (but `exceptSessionId`), with the reason recorded. */
export function revokeUserSessions(db: Db, userId: string, reason: string, exceptSessionId?: string): Promise<void> {
  return repo.revokeUserSessions(db, userId, reason, exceptSessionId);
}

/** Of the given session ids, those still live (not revoked or expired, account open and not suspended). */
export function liveSessionIds(db: Db, sessionIds: string[]): Promise<Set<string>> {
  return repo.liveSessionIds(db, sessionIds);
}
