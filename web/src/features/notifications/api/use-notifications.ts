import useSWR from 'swr';
import { refreshUser } from '@/features/user';
import { ApiError } from '@/lib/api';
import { useSession } from '@/lib/session';
import { toast } from '@/lib/toast-store';
import { deleteNotifications, getNotifications, type NotificationsPage } from './notifications-api';

const NOTIFICATIONS_KEY = '/notifications/get';

/**
 * One page of the inbox. Reading a page marks it seen on the server, so the user is read
 * again afterwards: the navigation dot (has_notifications) goes out once all are seen.
 */
export function useNotifications(page: number, perPage: number) {
  const { token } = useSession();
  const result = useSWR<NotificationsPage>(token ? [NOTIFICATIONS_KEY, page, perPage] : null, () => getNotifications(page, perPage), {
    keepPreviousData: true,
    onSuccess: () => void refreshUser(),
    onError: (cause) => {
      if (!(cause instanceof ApiError && cause.status === 401)) toast.error('Could not pull info');
    },
  });

  /** True when the server removed them; the toast is shown here on failure. */
  const remove = async (ids: string[]): Promise<boolean> => {
    try {
      const { success } = await deleteNotifications(ids);
      if (!success) throw new Error('not removed');
      return true;
    } catch {
      toast.error('issue removing notifications');
      return false;
    } finally {
      void result.mutate();
      void refreshUser();
    }
  };

  return { ...result, remove };
}
