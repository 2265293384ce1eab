/**
 * The sockets' periodic session check. A session can end where no server hears of it: the
 * operator CLI (`user:suspend`) is a separate process that cannot call a server's
 * `endSessions`. Every SESSION_SWEEP_MS each instance asks, in one query, which of its
 * sockets' sessions are still live (not revoked or expired, account open and not
 * suspended) and closes the others with 4401, so such a socket lives at most that long.
 */
import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema';

export const SESSION_SWEEP_MS = 5000;

/** Of the given session ids, those still live. */
export async function liveSessionIds(db: Kysely<Database>, sessionIds: string[]): Promise<Set<string>> {
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
