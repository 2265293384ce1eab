import { api } from '@/lib/api';

import type { CatalogueCharts, DataWell, DataWellSort } from '@common/datawells';

export type { CatalogueCharts, DataWell, DataWellSort };

export const SORT_OPTIONS: { value: DataWellSort; label: string }[] = [
  { value: 'records_desc', label: 'Most records' },
  { value: 'records_asc', label: 'Fewest records' },
  { value: 'name_asc', label: 'Name (A–Z)' },
  { value: 'name_desc', label: 'Name (Z–A)' },
  { value: 'date_desc', label: 'Newest breach' },
  { value: 'date_asc', label: 'Oldest breach' },
  { value: 'added_desc', label: 'Recently added' },
  { value: 'added_asc', label: 'First added' },
];

export const PAGE_SIZES = [20, 50] as const;
export type PageSize = (typeof PAGE_SIZES)[number];

/** The search text needs at least this many characters. */
export const SEARCH_MIN_LENGTH = 4;
export const SEARCH_MAX_LENGTH = 100;
export const SEARCH_TOO_SHORT = 'Query must be atleast 4 characters';

export interface BrowseParams {
  page: number;
  sort: DataWellSort;
  count: PageSize;
}

/** The catalogue needs no authorization, so no token is sent. */
export function listDataWells({ page, sort, count }: BrowseParams) {
  const query = new URLSearchParams({ page: String(page), sort, count: String(count) });
  return api.get<{ data_wells: DataWell[]; total: number }>(`/datawells?${query}`, 'none');
}

export function searchDataWells(query: string) {
  return api.post<{ data_wells: DataWell[] }>('/datawells/search', { query }, 'none');
}

/** The numbers of the page's charts, in one request (docs/charts.md). */
export function getCatalogueCharts() {
  return api.get<CatalogueCharts>('/datawells/charts', 'none');
}
