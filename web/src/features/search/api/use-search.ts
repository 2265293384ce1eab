import { useCallback, useRef, useState } from 'react';
import { ApiError } from '@/lib/api';
import { toast } from '@/lib/toast-store';
import { dashboardPageCount } from '@common/search-rules';
import { runSearch, type SearchParams, type SearchRecord, type SearchResponse } from './search-api';

export const SEARCH_FAILED = 'An error occurred while processing your seach. Please try again.';

/** 400 (validation, query syntax), 403 (suspended) and 429 (locked) carry user-fit text. */
function errorMessage(error: unknown): string {
  if (error instanceof ApiError && [400, 403, 429].includes(error.status) && error.message) return error.message;
  return SEARCH_FAILED;
}

export interface SearchState {
  /** The last search that ran: paging re-runs it with another page. */
  params: SearchParams;
  response: SearchResponse;
  /** Pages of this search already loaded, by number ("All" in copy, print and export). */
  loaded: Map<number, SearchRecord[]>;
}

/** Page numbers of the last search not loaded yet, up to the deepest the dashboard serves. */
function pagesNotLoaded(state: SearchState): number[] {
  const pages = dashboardPageCount(state.response.total_results);
  return Array.from({ length: pages }, (_, index) => index + 1).filter((page) => !state.loaded.has(page));
}

/**
 * POST /search as an action, not a cached resource: a search runs when asked (Enter,
 * Find, a page, ?q=), one at a time, and every run is fresh so a removed
 * entry is gone on the next search.
 */
export function useSearch() {
  const [state, setState] = useState<SearchState | null>(null);
  const [searching, setSearching] = useState(false);
  const running = useRef(false);
  /** Entries removed from this screen (local flag). */
  const [removed, setRemoved] = useState<ReadonlySet<string>>(new Set());

  /** Runs the search; its response, or null when it did not run or failed (the toast said why). */
  const search = useCallback(async (params: SearchParams): Promise<SearchResponse | null> => {
    if (running.current) return null;
    running.current = true;
    setSearching(true);
    try {
      const response = await runSearch(params);
      setState((previous) => {
        const same =
          previous &&
          previous.params.query === params.query &&
          previous.params.type === params.type &&
          previous.params.regex === params.regex &&
          previous.params.wildcard === params.wildcard &&
          previous.params.deduplicate === params.deduplicate &&
          previous.response.total_results === response.total_results;
        const loaded = new Map(same ? previous.loaded : []);
        loaded.set(params.page, response.results);
        return { params, response, loaded };
      });
      return response;
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 401)) toast.error(errorMessage(error));
      return null;
    } finally {
      running.current = false;
      setSearching(false);
    }
  }, []);

  const markRemoved = useCallback((id: string) => setRemoved((current) => new Set(current).add(id)), []);

  /**
   * "All" in copy, print and export: every page of the last search up to the deepest the
   * dashboard serves, in page order. Pages not loaded yet are fetched one at a time, each a
   * search like any page (counted toward the daily limit; the caller says so first);
   * `onProgress` hears after each how many of those pages are in, out of the count the caller
   * announced (`pagesToLoad`). Stops, keeping what it loaded, when `signal` aborts or a page
   * fails (then it throws).
   */
  const loadAll = useCallback(
    async (onProgress: (done: number, total: number) => void, signal: AbortSignal): Promise<SearchRecord[]> => {
      if (!state) return [];
      const pages = dashboardPageCount(state.response.total_results);
      const missing = pagesNotLoaded(state);
      const loaded = new Map(state.loaded);
      let done = 0;
      onProgress(done, missing.length);
      for (const page of missing) {
        if (signal.aborted) throw new DOMException('Stopped', 'AbortError');
        const response = await runSearch({ ...state.params, page });
        loaded.set(page, response.results);
        onProgress(++done, missing.length);
      }
      setState((previous) => (previous && previous.params === state.params ? { ...previous, loaded: new Map(loaded) } : previous));
      return [...loaded.entries()]
        .filter(([page]) => page <= pages)
        .sort(([a], [b]) => a - b)
        .flatMap(([, records]) => records);
    },
    [state],
  );

  /** How many pages of the last search are not loaded yet. */
  const pagesToLoad = state ? pagesNotLoaded(state).length : 0;

  return { state, searching, search, removed, markRemoved, loadAll, pagesToLoad };
}
