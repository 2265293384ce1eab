/**
 * The opt-out links' storage: one_time_tokens rows of purpose `opt-out` whose payload holds
 * the email until the link is used (then emptied) or expires (then deleted at the next request).
 */
import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema';

const PURPOSE = 'opt-out';

export async function insertOptOutToken(db: Kysely<Database>, input: { tokenHash: string; email: string; expiresAt: Date }): Promise<void> {
  await db
    .insertInto('one_time_tokens')
    .values({ token_hash: input.tokenHash, purpose: PURPOSE, user_id: null, expires_at: input.expiresAt, payload: JSON.stringify({ email: input.email }) })
    .execute();
}

/** The email of a live link, without using it up. */
export async function peekOptOutToken(db: Kysely<Database>, tokenHash: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('one_time_tokens')
    .select('payload')
    .where('token_hash', '=', tokenHash)
    .where('purpose', '=', PURPOSE)
    .where('used_at', 'is', null)
    .where('expires_at', '>', sql<Date>`now()`)
    .executeTakeFirst();
  return (row?.payload as { email?: string } | null | undefined)?.email;
}

/** Uses the link up (once: a second call gets undefined) and forgets its email; answers the email. */
export async function consumeOptOutToken(db: Kysely<Database>, tokenHash: string): Promise<string | undefined> {
  const row = await db
    .with('live', (q) =>
      q
        .selectFrom('one_time_tokens')
        .select(['token_hash', 'payload'])
        .where('token_hash', '=', tokenHash)
        .where('purpose', '=', PURPOSE)
        .where('used_at', 'is', null)
        .where('expires_at', '>', sql<Date>`now()`)
        .forUpdate(),
    )
    .updateTable('one_time_tokens')
    .from('live')
    .set({ used_at: sql`now()`, payload: null })
    .whereRef('one_time_tokens.token_hash', '=', 'live.token_hash')
    .returning(sql<unknown>`live.payload`.as('payload'))
    .executeTakeFirst();
  return (row?.payload as { email?: string } | null | undefined)?.email;
}

/** Expired links and their emails go. */
export async function deleteExpiredOptOutTokens(db: Kysely<Database>): Promise<void> {
  await db.deleteFrom('one_time_tokens').where('purpose', '=', PURPOSE).where('expires_at', '<=', sql<Date>`now()`).execute();
}
