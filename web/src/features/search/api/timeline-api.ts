import { packSearch } from '@common/obfuscation';
import type { SearchType } from '@common/search-rules';
import { api } from '@/lib/api';
import type { SearchParams } from './search-api';

/** One data well of a chart (POST /search/timeline, the domain overview): its name is attacker-influenced text. */
export interface ExposedWell {
  name: string;
  /** YYYY-MM-DD; null in `undated`. */
  date: string | null;
  /** Records of the well matching the search. */
  records: number;
  /** The kinds of data the well exposes, named ("Email", "Hashed password", ...). */
  data_types: string[];
}

export interface WellExposure {
  total: number;
  /** Dated wells, oldest first. */
  wells: ExposedWell[];
  /** Wells without a breach date, most records first. */
  undated: ExposedWell[];
}

/** The tabs the exposure timeline is drawn for (the server refuses the others). */
export const TIMELINE_TYPES: readonly SearchType[] = ['email', 'username', 'phone', 'domain_scan'];

/** The exposure timeline of a search (the search's own obfuscated body); counted as one search. */
export function fetchTimeline(params: SearchParams) {
  return api.post<WellExposure>('/search/timeline', packSearch({ ...params, page: 1 }));
}

/** The query limited to one data well: the search language's `&database_name="…"` source filter. */
export function withWell(query: string, well: string): string {
  return `${query}&database_name="${well.replace(/["\\]/g, (c) => `\\${c}`)}"`;
}
