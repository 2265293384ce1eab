import { api, ApiError, authToken, refreshAuthToken } from '@/lib/api';
import { saveFile } from '@/lib/save-file';
import type { DomainOverview } from '@common/well-charts-wire';

export type { DomainOverview };

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
  saveFile(await response.blob(), name);
}
