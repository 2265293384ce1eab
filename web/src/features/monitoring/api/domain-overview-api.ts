import { api, ApiError, authToken, refreshAuthToken } from '@/lib/api';
import type { WellExposure } from '@/features/search';

/** POST /monitoring/domains/overview: a verified domain's wells, distinct addresses and kinds of data. */
export interface DomainOverview extends WellExposure {
  domain: string;
  /** Distinct addresses of the domain (lower-cased) that a counted record holds. */
  distinct_addresses: number;
  data_kinds: { kind: string; wells: number; records: number }[];
}

export const overviewKey = (domain: string) => ['/monitoring/domains/overview', domain] as const;

export function getDomainOverview(domain: string) {
  return api.post<DomainOverview>('/monitoring/domains/overview', { domain });
}

function postCsv(domain: string, token: string | null) {
  return fetch('/monitoring/domains/overview/csv', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'text/csv', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ domain }),
    credentials: 'same-origin',
  });
}

/** The overview as the server's CSV file (one request; a 401 refreshes the session once), saved under its name. */
export async function downloadOverviewCsv(domain: string): Promise<void> {
  let response = await postCsv(domain, authToken.get());
  if (response.status === 401) response = await postCsv(domain, await refreshAuthToken());
  if (!response.ok) {
    const body = (await response.json().catch(() => null)) as { error?: string } | null;
    throw new ApiError(response.status, body?.error ?? `Request failed (${response.status})`);
  }
  const name = /filename="([^"]+)"/.exec(response.headers.get('content-disposition') ?? '')?.[1] ?? 'domain-overview.csv';
  const url = URL.createObjectURL(await response.blob());
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.rel = 'noopener';
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
