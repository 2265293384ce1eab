/** SQL of the inbox (docs/monitoring.md "Notification"): one row per notice and user. */
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from '../db/schema';
import type { NotificationType } from '../common/monitoring-wire';
import { newestFirstPage } from './user-pages-repository';

type Db = Kysely<Database> | Transaction<Database>;

export interface NewNotification {
  userId: string;
  type: NotificationType;
  data: string;
  link?: string | null;
  /** Makes the notice once-only: a second insert with the same key writes nothing. */
  dedupeKey?: string;
}

/** Writes one notice; its id, or null when one with the same dedupe key exists. */
export async function insertNotification(db: Db, notice: NewNotification): Promise<string | null> {
  const row = await db
    .insertInto('notifications')
    .values({ user_id: notice.userId, type: notice.type, data: notice.data, link: notice.link ?? null, dedupe_key: notice.dedupeKey ?? null })
    .onConflict((oc) => oc.column('dedupe_key').doNothing())
    .returning('id')
    .executeTakeFirst();
  return row ? String(row.id) : null;
}

/** A global notice: one row per open account, so seen and delete are each user's own. Returns how many. */
export async function insertGlobalNotification(db: Db, message: string): Promise<number> {
  const result = await db
    .insertInto('notifications')
    .columns(['user_id', 'global', 'type', 'data'])
    .expression((eb) =>
      eb
        .selectFrom('users')
        .select(['id', sql<boolean>`true`.as('global'), sql<string>`'global'`.as('type'), sql<string>`${message}::text`.as('data')])
        .where('closed_at', 'is', null),
    )
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0);
}

/** A page of the user's notices, newest first, with the whole count. */
export async function listNotifications(db: Db, userId: string, limit: number, offset: number) {
  const { rows, total } = await newestFirstPage(db, 'notifications', userId, (q) => q.select(['id', 'global', 'seen', 'type', 'data', 'created', 'link']), { limit, offset });
  return { rows: rows.map((r) => ({ ...r, id: String(r.id) })), total };
}

export async function markSeen(db: Db, userId: string, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await db.updateTable('notifications').set({ seen: true }).where('user_id', '=', userId).where('id', 'in', ids).where('seen', '=', false).execute();
}

/** Deletes the user's own notices among `ids` (others' ids are ignored). */
export async function deleteNotifications(db: Db, userId: string, ids: string[]): Promise<number> {
  if (ids.length === 0) return 0;
  const result = await db.deleteFrom('notifications').where('user_id', '=', userId).where('id', 'in', ids).executeTakeFirst();
  return Number(result.numDeletedRows);
}
