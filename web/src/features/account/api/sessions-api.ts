import useSWR from 'swr';
import { api, ApiError } from '@/lib/api';
import { useSession } from '@/lib/session';
import { toast } from '@/lib/toast-store';

/** GET /user/sessions: one live session of the account. */
export interface ActiveSession {
  id: string;
  /** From the user agent, e.g. "Chrome on Linux" (the client's own claim). */
  device: string;
  ip: string | null;
  created_at: string;
  last_used_at: string;
  remember: boolean;
  current: boolean;
}

/** GET /user/sign-in-history: one sign-in or failed attempt. */
export interface SignInEntry {
  at: string;
  ip: string;
  device: string;
  method: 'password' | 'code' | 'recovery code' | 'passkey';
  success: boolean;
}

export function signOutSession(sessionId: string) {
  return api.post<{ success: boolean }>('/user/sessions/sign-out', { session_id: sessionId });
}

export function signOutEverywhere() {
  return api.post<{ success: boolean; ended: number }>('/user/sessions/sign-out-everywhere');
}

const quiet401 = (what: string) => (error: unknown) => {
  // A 401 means this session has ended: the guard shows the sign-in screen instead.
  if (!(error instanceof ApiError && error.status === 401)) toast.error(`Issue loading ${what}`);
};

export function useActiveSessions() {
  const { token } = useSession();
  return useSWR<{ sessions: ActiveSession[] }>(token ? '/user/sessions' : null, { onError: quiet401('sessions') });
}

export function useSignInHistory() {
  const { token } = useSession();
  return useSWR<{ entries: SignInEntry[] }>(token ? '/user/sign-in-history' : null, { onError: quiet401('sign-in history') });
}
