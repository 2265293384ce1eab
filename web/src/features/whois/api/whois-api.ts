import { packWhois } from '@common/obfuscation';
import type { WhoisResponse, WhoisTool } from '@common/whois-rules';
import { api } from '@/lib/api';

/**
 * POST /whois with the user's bearer token. The query text (a domain, an IP, a
 * host, or `mode:include,…:exclude,…`) travels obfuscated like the search query. Errors come
 * as ApiError: 400 with a WHOIS_MESSAGES text, 403 'Additional WHOIS Credits Required',
 * 503 unavailable (no credits taken).
 */
export function runWhois<T extends WhoisTool>(tool: T, query: string): Promise<WhoisResponse<T>> {
  return api.post<WhoisResponse<T>>('/whois', packWhois({ searchType: tool, query }));
}

export const WHOIS_CREDITS_PATH = '/user/whois-credits';

/** GET /user/whois-credits: the balance shown on the screen. */
export function getWhoisCredits(): Promise<{ whois_credits: number }> {
  return api.get<{ whois_credits: number }>(WHOIS_CREDITS_PATH);
}
