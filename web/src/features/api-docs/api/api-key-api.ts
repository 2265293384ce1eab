import { stepUpProof } from '@/lib/step-up';
import { api, authToken } from '@/lib/api';
import { API_KEY_HEADER } from '@/lib/brand';
import { createStore } from '@/lib/store';

/**
 * The full API key, known only right after POST /user/update-key: kept in memory for this
 * session (never in storage) so the samples can carry it; forgotten on sign-out.
 */
export const fullApiKey = createStore<string | null>(null);

authToken.subscribe(() => {
  if (authToken.get() === null) fullApiKey.set(null);
});

/**
 * Replaces the user's key; the answer is the only time the whole key is shown. `code`: a
 * current authentication code or a recovery code, when two-factor sign-in is on.
 */
export async function regenerateApiKey(code?: string): Promise<string> {
  // No body at all without a code: the route's answer without two-factor stays as it was.
  const { api_key } = await api.post<{ api_key: string }>('/user/update-key', code ? stepUpProof(code) : undefined);
  fullApiKey.set(api_key);
  return api_key;
}

/** With the full key: is it the current one? Without: does the user have a key at all? */
export function checkApiKey(key: string | null) {
  return api.get<{ valid: boolean }>('/user/check-api-key', undefined, key ? { [API_KEY_HEADER]: key } : undefined);
}
