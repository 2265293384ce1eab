import { mutate } from 'swr';
import { authToken, endSession, refreshAuthToken } from './api';
import { createStore } from './store';

export type SessionStatus = 'pending' | 'signed-in' | 'signed-out';

/** False until the start-up refresh has answered: guards wait rather than guess. */
const started = createStore(false);

/** At start the refresh cookie decides whether the visitor is signed in. */
export async function startSession(): Promise<void> {
  await refreshAuthToken();
  started.set(true);
}

export function signIn(token: string): void {
  authToken.set(token);
}

/** Signs out (the logout page). */
export async function signOut(): Promise<void> {
  await endSession();
}

// Signing out, or the session ending, forgets every cached resource (user, profile…) without
// refetching. The search favourites stay on the device for their account: the browser keeps
// only their record ids, per email (features/search/lib/favourites.ts).
authToken.subscribe(() => {
  if (authToken.get() === null) void mutate(() => true, undefined, { revalidate: false });
});

export function useSession(): { status: SessionStatus; token: string | null } {
  const token = authToken.use();
  const ready = started.use();
  return { status: !ready ? 'pending' : token ? 'signed-in' : 'signed-out', token };
}
