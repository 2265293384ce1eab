/** The dashboard's search (POST /search, search-service.ts): the input checked, one search admitted and run. */
import type { Engine } from '../../../engine/index';
import { Errors } from '../infra/errors';
import { DASHBOARD_MAX_PAGE, DASHBOARD_PAGE_SIZE, applyModeSuffix, isSearchType, validateSearch, type SearchType } from '../common/search-rules';
import { dashboardEntries, engineType, searchMode } from './search-shapes';
import type { AdmittedSearches } from './admitted-search';

export interface DashboardSearchInput {
  query: string;
  type: string;
  page: number;
  regex: boolean;
  wildcard: boolean;
  deduplicate: boolean;
}

export function dashboardSearch(deps: { engine: Engine; admitAndRun: AdmittedSearches['admitAndRun'] }) {
  const { engine, admitAndRun } = deps;
  return async function dashboard(userId: string, input: DashboardSearchInput) {
    if (!isSearchType(input.type)) throw Errors.badRequest('Unknown search type');
    const type: SearchType = input.type;
    const { query, regex, wildcard, error } = applyModeSuffix(input);
    if (error) throw Errors.badRequest(error);
    const problems = validateSearch(query, type, wildcard);
    if (problems.length) throw Errors.badRequest(problems.join('\n'));
    const mode = searchMode(regex, wildcard);
    const page = Math.min(Math.max(1, Math.trunc(input.page)), DASHBOARD_MAX_PAGE);
    const { access, result } = await admitAndRun(userId, { query, type: engineType(type), mode, page, size: DASHBOARD_PAGE_SIZE, dedup: input.deduplicate });
    const stats = await engine.stats();
    const results = dashboardEntries(result.entries, access, engineType(type));
    return {
      results,
      total_results: result.total,
      assets_searched: stats.records,
      elapsed_time: Math.round(result.tookMicros) / 1000,
      data_wells: Object.keys(stats.wells).length,
      values_hidden: !access.subscribed,
    };
  };
}
