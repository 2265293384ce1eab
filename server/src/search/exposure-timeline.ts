/**
 * The search screen's exposure timeline (POST /search/timeline, docs/search-and-api.md
 * "Exposure timeline"): the wells holding records that match an email, username, phone or
 * domain search, each with its breach date, matching records and the kinds of data it
 * exposes. One search of the account through the admission (counted, never charged), counted
 * in the engine (`wellCounts`: no entry read). Without a search subscription only a query of
 * one exact term is counted, as the search's own counts (they reveal no value).
 */
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import { Errors } from '../infra/errors';
import { applyModeSuffix, isSearchType, validateSearch } from '../common/search-rules';
import { TIMELINE_TYPES } from '../common/well-charts-wire';
import { engineType, searchMode } from './search-shapes';
import { wellExposure, type WellExposure } from '../datawells/well-exposure-service';
import type { AdmittedSearches } from './admitted-search';
import type { WellCounts, WellCountsRequest } from '../../../engine/index';

export const TIMELINE_REFUSED = 'The exposure timeline is drawn for an email, username, phone or domain search only.';

export interface TimelineInput {
  query: string;
  type: string;
  regex: boolean;
  wildcard: boolean;
}

export function exposureTimeline(deps: { db: Kysely<Database>; admitted: AdmittedSearches['admitted']; wellCounts: (request: Omit<WellCountsRequest, 'timeBudgetMs'>) => Promise<WellCounts> }) {
  return async function timeline(userId: string, input: TimelineInput): Promise<WellExposure> {
    if (!isSearchType(input.type)) throw Errors.badRequest('Unknown search type');
    if (!TIMELINE_TYPES.includes(input.type)) throw Errors.badRequest(TIMELINE_REFUSED);
    const { query, regex, wildcard, error } = applyModeSuffix(input);
    if (error) throw Errors.badRequest(error);
    const problems = validateSearch(query, input.type, wildcard);
    if (problems.length) throw Errors.badRequest(problems.join('\n'));
    const mode = searchMode(regex, wildcard);
    const type = engineType(input.type);
    const request = { query, type, mode, page: 1, size: 1, dedup: false };
    const { result } = await deps.admitted(userId, request, {}, (access) => deps.wellCounts({ query, type, mode, oneTerm: !access.subscribed }));
    return wellExposure(deps.db, result);
  };
}
