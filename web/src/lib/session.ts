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

/** localStorage keys of per-user lists (search favourites: record ids only), removed at sign-out. */
export const FAVOURITES_STORAGE_PREFIX = 'search-favourites:';

function forgetStoredUserState(): void {
  try {
    for (let i = localStorage.length - 1; i >= 0; i--) {
      const key = localStorage.key(i);
      if (key?.startsWith(FAVOURITES_STORAGE_PREFIX)) localStorage.removeItem(key);
    }
  } catch {
    // Storage blocked: nothing was stored.
  }
}

/** Signs out (the logout page): forgets the stored lists at once, whatever the session state. */
export async function signOut(): Promise<void> {
  forgetStoredUserState();
  await endSession();
}

// Signing out, or the session ending, forgets every cached resource (user, profile…) without
// refetching, and what this browser kept for the user (issue 13, item 7).
let signedIn = authToken.get() !== null;
authToken.subscribe(() => {
  const token = authToken.get();
  if (token === null) {
    void mutate(() => true, undefined, { revalidate: false });
    if (signedIn) forgetStoredUserState();
  }
  signedIn = token !== null;
});

export function useSession(): { status: SessionStatus; token: string | null } {
  const token = authToken.use();
  const ready = started.use();
  return { status: !ready ? 'pending' : token ? 'signed-in' : 'signed-out', token };
}
