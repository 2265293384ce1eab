/** The outbox: every mail is stored here first, then delivered by a `mail` job. */
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';

type Db = Kysely<Database>;

export interface StoredMail {
  id: string;
  to_address: string;
  subject: string;
  text_body: string;
  html_body: string | null;
  created_at: Date;
  sent_at: Date | null;
  headers: Record<string, string> | null;
}

export async function insertOutboxMail(
  db: Db,
  mail: { to: string; subject: string; text: string; html?: string; headers?: Record<string, string> },
): Promise<string> {
  const row = await db
    .insertInto('outbox')
    .values({
      to_address: mail.to,
      subject: mail.subject,
      text_body: mail.text,
      html_body: mail.html ?? null,
      headers: mail.headers ? JSON.stringify(mail.headers) : null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return String(row.id);
}

/**
 * The stored mails, oldest first: the one with `id`, those to `to` (exact address), the
 * newest `limit`. The one read of the outbox (delivery, `npm run admin -- outbox`, tests).
 */
export async function readOutbox(db: Db, filter: { id?: string; to?: string; limit?: number } = {}): Promise<StoredMail[]> {
  let query = db
    .selectFrom('outbox')
    .select(['id', 'to_address', 'subject', 'text_body', 'html_body', 'created_at', 'sent_at', 'headers'])
    .orderBy('id', 'desc');
  if (filter.id !== undefined) query = query.where('id', '=', filter.id);
  if (filter.to !== undefined) query = query.where('to_address', '=', filter.to);
  if (filter.limit !== undefined) query = query.limit(filter.limit);
  return (await query.execute()).reverse();
}

export async function noteDeliveryAttempt(db: Db, id: string): Promise<void> {
  await db.updateTable('outbox').set((eb) => ({ attempts: eb('attempts', '+', 1) })).where('id', '=', id).execute();
}

export async function noteDeliveryError(db: Db, id: string, message: string): Promise<void> {
  await db.updateTable('outbox').set({ last_error: message.slice(0, 500) }).where('id', '=', id).execute();
}

export async function markSent(db: Db, id: string): Promise<void> {
  await db.updateTable('outbox').set({ sent_at: new Date(), last_error: null }).where('id', '=', id).execute();
}

/** Deletes the mails stored before `before` (their one-time links have expired); returns how many. */
export async function purgeOutboxBefore(db: Db, before: Date): Promise<number> {
  const result = await db.deleteFrom('outbox').where('created_at', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}
