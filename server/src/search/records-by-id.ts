/** Records by id for the dashboard (search-service.ts): the favourites after a reload. */
import type { Engine, Entry } from '../../../engine/index';
import type { SearchRequest } from './admission';
import type { AdmittedSearches } from './admitted-search';
import { dashboardEntries } from './search-shapes';

export function recordsById(deps: { engine: Engine; admitted: AdmittedSearches['admitted'] }) {
  const { engine, admitted } = deps;
  /**
   * The browser keeps only the favourites' ids. Admitted and counted as one search, under the
   * same rules as a search: values only with a subscription, raw records only for law
   * enforcement; unknown and removed ids are left out.
   */
  return async function records(userId: string, ids: string[]) {
    // The query checked on the exact admission path: one plain term, valid for everyone.
    const admission: SearchRequest = { query: 'records', type: 'all', mode: 'exact', page: 1, size: 1, dedup: false };
    const { access, result } = await admitted(userId, admission, {}, () => engine.getMany(ids));
    const found = result.filter((entry): entry is Entry => entry !== null);
    return { results: dashboardEntries(found, access, 'all'), values_hidden: !access.subscribed };
  };
}
