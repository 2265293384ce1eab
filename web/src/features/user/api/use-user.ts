import useSWR, { mutate } from 'swr';
import { useSession } from '@/lib/session';

/** GET /user/info: the signed-in user, loaded once a token exists. */
export interface User {
  email: string;
  created_at: string;
  search_access: boolean;
  is_enterprise: boolean;
  whois_credits: number;
  search_credits: number;
  /** A masked display ("lw_…abcd") or null; the full key is only shown once, at creation. */
  api_private_key: string | null;
  has_notifications: boolean;
  search_is_recurring: boolean;
  /** Epoch seconds, or null. */
  search_subscribed_until: number | null;
  elevated: boolean;
  law_enforcement: boolean;
}

const USER_KEY = '/user/info';

export function useUser() {
  const { token } = useSession();
  return useSWR<User>(token ? USER_KEY : null);
}

/** Reloads the user wherever it is shown, after a change made elsewhere (e.g. a new API key). */
export function refreshUser(): Promise<unknown> {
  return mutate(USER_KEY);
}
