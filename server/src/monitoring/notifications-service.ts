/**
 * The inbox (docs/monitoring.md "Notification"): a page of the user's notices,
 * newest first. The page's unseen notices are marked seen once read; the answer still
 * shows them unseen, so the screen highlights them this once.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import type { NotificationsPage } from '../common/monitoring-wire';
import * as repo from './notifications-repository';

export function createNotificationsService(db: Kysely<Database>) {
  return {
    async page(userId: string, page: number, perPage: number): Promise<NotificationsPage> {
      const { rows, total } = await repo.listNotifications(db, userId, perPage, (page - 1) * perPage);
      await repo.markSeen(
        db,
        userId,
        rows.filter((r) => !r.seen).map((r) => r.id),
      );
      return {
        notifications: rows.map((r) => ({ id: r.id, global: r.global, seen: r.seen, type: r.type, data: r.data, created: r.created.toISOString(), link: r.link })),
        total,
      };
    },
    async delete(userId: string, ids: string[]): Promise<void> {
      await repo.deleteNotifications(db, userId, ids);
    },
  };
}

export type NotificationsService = ReturnType<typeof createNotificationsService>;
