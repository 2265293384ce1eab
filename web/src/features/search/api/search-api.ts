import { packSearch } from '@common/obfuscation';
import type { SearchType } from '@common/search-rules';
import { api } from '@/lib/api';

/**
 * One leaked record (POST /search). Every string in it is attacker-controlled text.
 * Empty fields are omitted; raw_record comes only for law-enforcement users.
 */
export interface SearchRecord {
  id: string;
  primary_field?: string;
  database_name?: string;
  raw_record?: string;
  [field: string]: string | string[] | undefined;
}

export interface SearchResponse {
  results: SearchRecord[];
  total_results: number;
  assets_searched: number;
  /** Milliseconds, may be fractional. */
  elapsed_time: number;
  data_wells: number;
  /** True for users without search_access: results are empty, only the counts come. */
  values_hidden?: boolean;
}

export interface SearchParams {
  query: string;
  type: SearchType;
  page: number;
  regex: boolean;
  wildcard: boolean;
  deduplicate: boolean;
}

/** Records by id (favourites after a reload), at most 50; counted as one search. */
export function fetchRecords(ids: string[]) {
  return api.post<{ results: SearchRecord[]; values_hidden: boolean }>('/search/records', { ids });
}

/** The body is obfuscated with the shared codec. */
export function runSearch(params: SearchParams) {
  return api.post<SearchResponse>('/search', packSearch(params));
}

/** Mails a confirmation link (/entry-removal?ref=&v=) to the chosen email of the entry. */
export function requestEntryRemoval(id: string, email: string, breachId = '') {
  return api.post<{ success: boolean }>('/request-entry-removal', { id, email, breach_id: breachId });
}

/** The confirmation page's call: hides the entry for good. */
export function removeEntry(id: string, v: string) {
  return api.post<{ success: boolean }>('/remove-entry', { id, v });
}
