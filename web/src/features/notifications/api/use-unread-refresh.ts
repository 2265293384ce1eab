import { useEffect } from 'react';
import { refreshUser } from '@/features/user';

/** How often the frame reads has_notifications again while a page stays open. */
export const UNREAD_REFRESH_MS = 30_000;

/**
 * Keeps the navigation dot (has_notifications of /user/info) current: a new report's notice
 * shows within UNREAD_REFRESH_MS, and at once when the tab comes back into view. The inbox
 * reads the user again itself after marking notices seen.
 */
export function useUnreadRefresh(signedIn: boolean): void {
  useEffect(() => {
    if (!signedIn) return;
    const timer = setInterval(() => void refreshUser(), UNREAD_REFRESH_MS);
    const onVisible = () => {
      if (document.visibilityState === 'visible') void refreshUser();
    };
    document.addEventListener('visibilitychange', onVisible);
    return () => {
      clearInterval(timer);
      document.removeEventListener('visibilitychange', onVisible);
    };
  }, [signedIn]);
}
