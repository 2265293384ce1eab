/** Records by id for the dashboard (search-service.ts): the favourites after a reload. */
import type { Engine, Entry } from '../../../engine/index';
import { OWN_QUERY_ADMISSION } from './admission-rules';
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
    const { access, result } = await admitted(userId, OWN_QUERY_ADMISSION, {}, () => engine.getMany(ids));
    const found = result.filter((entry): entry is Entry => entry !== null);
    return { results: dashboardEntries(found, access, 'all'), values_hidden: !access.subscribed };
  };
}
