import useSWR from 'swr';
import { useSession } from '@/lib/session';
import { checkApiKey, fullApiKey } from './api-key-api';

/** GET /user/check-api-key, re-asked whenever the key known in this session changes. */
export function useApiKeyCheck() {
  const { token } = useSession();
  const key = fullApiKey.use();
  return useSWR(token ? ['/user/check-api-key', key] : null, () => checkApiKey(key));
}
