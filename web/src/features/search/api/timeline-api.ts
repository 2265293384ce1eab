import { packSearch } from '@common/obfuscation';
import type { WellExposure } from '@common/well-charts-wire';
import { api } from '@/lib/api';
import type { SearchParams } from './search-api';

export { TIMELINE_TYPES } from '@common/well-charts-wire';
export type { ExposedWell, WellExposure } from '@common/well-charts-wire';

/** The exposure timeline of a search (the search's own obfuscated body); counted as one search. */
export function fetchTimeline(params: SearchParams) {
  return api.post<WellExposure>('/search/timeline', packSearch({ ...params, page: 1 }));
}

/** The query limited to one data well: the search language's `&database_name="…"` source filter. */
export function withWell(query: string, well: string): string {
  return `${query}&database_name="${well.replace(/["\\]/g, (c) => `\\${c}`)}"`;
}
