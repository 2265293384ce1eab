import { ApiError } from '@/lib/api';

/**
 * The server's own words for a refusal it explains (a bad value, a reached maximum, an
 * unknown id: 4xx other than 401), shown where the user acted; null for a failure the
 * caller reports with the documented toast (5xx, network).
 */
export function refusalMessage(cause: unknown): string | null {
  return cause instanceof ApiError && cause.status >= 400 && cause.status < 500 && cause.status !== 401 ? cause.message : null;
}
