// What the notifications feature offers the rest of the dashboard.
export { NotificationsPage } from './components/notifications-page';
export { UNREAD_REFRESH_MS, useUnreadRefresh } from './api/use-unread-refresh';
