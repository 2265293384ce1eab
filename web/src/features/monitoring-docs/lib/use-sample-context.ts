import { fullApiKey } from '@/features/api-docs';
import { KEY_PLACEHOLDER, type SampleContext } from '@/lib/api-samples';
import { API_KEY_HEADER } from '@/lib/brand';

/** The samples' context: this origin, and the user's whole key once it is known in this session. */
export function useSampleContext(): { v2: SampleContext; v1: SampleContext; key: string } {
  const key = fullApiKey.use() ?? KEY_PLACEHOLDER;
  const baseUrl = window.location.origin;
  return {
    key,
    v2: { baseUrl, header: API_KEY_HEADER, key },
    v1: { baseUrl, header: 'Authorization', key: `Bearer ${key}` },
  };
}
