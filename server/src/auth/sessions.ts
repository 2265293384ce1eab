/**
 * Sessions a person can see: the Profile's list of the account's live sessions (device,
 * address, started, last used, the current one marked), ending one or all but the current
 * one, and the sign-in history (the newest 20 sign-ins and failed attempts).
 * See README.md in this folder for what is kept and for how long.
 */
import net from 'node:net';
import type { Kysely, Transaction } from 'kysely';
import type { Database, SignInMethod } from '../db/schema';
import { Errors } from '../infra/errors';
import { describeDevice } from './user-agent';
import * as repo from './sessions-repository';

type Db = Kysely<Database> | Transaction<Database>;

/** How many sign-ins and failed attempts an account keeps (and its history shows). */
export const SIGN_IN_HISTORY_SIZE = 20;
/** `last_used_at` is written at most this often per session (the check on every request only reads). */
export const LAST_USED_RESOLUTION_MS = 60_000;

/** Who is signing in, as the session list and the history show it. */
export interface ClientInfo {
  /** The client address (request.ip: X-Forwarded-For only from TRUSTED_PROXIES). */
  ip: string;
  userAgent: string | undefined;
}

/** An IPv4-mapped IPv6 address ("::ffff:192.0.2.1") as the IPv4 address people know. */
export function displayAddress(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped && net.isIPv4(mapped[1]!)) return mapped[1]!;
  return ip;
}

/**
 * Records one sign-in or failed attempt of an existing account and keeps only the newest
 * SIGN_IN_HISTORY_SIZE of that account. Attempts on emails without an account are not
 * recorded anywhere. Called by the password step here; the second-factor steps call it with
 * their own method ('code', 'recovery code', 'passkey').
 */
export async function recordSignIn(
  db: Db,
  entry: { userId: string; ip: string; userAgent?: string | null; method: SignInMethod; success: boolean },
): Promise<void> {
  await repo.insertSignIn(db, { ...entry, ip: displayAddress(entry.ip) }, SIGN_IN_HISTORY_SIZE);
}

export async function listSignIns(db: Db, userId: string) {
  const rows = await repo.selectSignIns(db, userId, SIGN_IN_HISTORY_SIZE);
  return rows.map((row) => ({
    at: row.at.toISOString(),
    ip: row.ip,
    device: describeDevice(row.user_agent),
    method: row.method,
    success: row.success,
  }));
}

/** The account's live sessions, newest use first. */
export async function listActiveSessions(db: Db, userId: string, currentSessionId: string) {
  const rows = await repo.selectLiveSessions(db, userId);
  return rows.map((row) => ({
    id: row.id,
    device: describeDevice(row.user_agent),
    ip: row.ip,
    created_at: row.created_at.toISOString(),
    last_used_at: row.last_used_at.toISOString(),
    remember: row.remember,
    current: row.id === currentSessionId,
  }));
}

/**
 * Records that a session was used, at most once per LAST_USED_RESOLUTION_MS: one primary-key
 * update, and only when the stored time is older than that.
 */
export async function touchSession(db: Db, sessionId: string): Promise<void> {
  await repo.touchSession(db, sessionId, LAST_USED_RESOLUTION_MS / 1000);
}

/** Erases the address and user agent of the account's ended sessions (expired or revoked). */
export async function eraseEndedSessionDetails(db: Db, userId: string): Promise<void> {
  await repo.eraseEndedSessionDetails(db, userId);
}

/** A closed account keeps no sign-in details: its history goes, its sessions' addresses and user agents too. */
export async function eraseSignInDetails(db: Db, userId: string): Promise<void> {
  await repo.eraseSignInDetails(db, userId);
}

/** Sessions that just ended: one session, or every session of a user but maybe one. */
export type SessionsEnded = { sessionId: string } | { userId: string; exceptSessionId?: string };

export function createSessionsService(deps: { db: Kysely<Database>; onSessionsEnded?: (ended: SessionsEnded) => void }) {
  const { db } = deps;
  return {
    list: (userId: string, currentSessionId: string) => listActiveSessions(db, userId, currentSessionId),

    history: (userId: string) => listSignIns(db, userId),

    /** Ends one live session of the account (the current one too: that is a sign-out). */
    async end(userId: string, sessionId: string): Promise<void> {
      const ended = await repo.endSession(db, userId, sessionId, 'signed-out-from-profile');
      // Another account's session, an ended one and an unknown id look alike.
      if (!ended) throw Errors.notFound('Session not found');
      deps.onSessionsEnded?.({ sessionId });
    },

    /** "Sign out everywhere": ends every live session of the account but the current one. */
    async endOthers(userId: string, currentSessionId: string): Promise<number> {
      const rows = await repo.endOtherSessions(db, userId, currentSessionId, 'signed-out-everywhere');
      deps.onSessionsEnded?.({ userId, exceptSessionId: currentSessionId });
      return rows.length;
    },
  };
}

export type SessionsService = ReturnType<typeof createSessionsService>;
