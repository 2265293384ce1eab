/** POST /notifications/get and /notifications/delete (shapes in docs/monitoring.md). */
import type { NotificationsPage } from '@common/monitoring-wire';
import { api } from '@/lib/api';

export type { InboxNotification, NotificationType, NotificationsPage } from '@common/monitoring-wire';

export function getNotifications(page: number, perPage: number) {
  return api.post<NotificationsPage>('/notifications/get', { page, per_page: perPage });
}

export function deleteNotifications(ids: string[]) {
  return api.post<{ success: boolean }>('/notifications/delete', { ids });
}
