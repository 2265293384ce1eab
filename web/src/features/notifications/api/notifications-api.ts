/** POST /notifications/get and /notifications/delete (spec 3 §7; shapes in server/src/monitoring/README.md). */
import { api } from '@/lib/api';

export type NotificationType =
  | 'report'
  | 'delivery-failed'
  | 'search-expiration'
  | 'monitoring-expiration'
  | 'enterprise-expiration'
  | 'low-search-credits'
  | 'low-whois-credits'
  | 'global';

export interface InboxNotification {
  id: string;
  global: boolean;
  /** As it was before this read: the server marks the page seen after answering. */
  seen: boolean;
  type: NotificationType | string;
  /** The message: plain text, rendered as text. */
  data: string;
  created: string;
  /** A dashboard path (a report notice links to /monitoring/reports/{id}), or null. */
  link: string | null;
}

export interface NotificationsPage {
  notifications: InboxNotification[];
  total: number;
}

export function getNotifications(page: number, perPage: number) {
  return api.post<NotificationsPage>('/notifications/get', { page, per_page: perPage });
}

export function deleteNotifications(ids: string[]) {
  return api.post<{ success: boolean }>('/notifications/delete', { ids });
}
