import useSWR from 'swr';
import { toast } from '@/lib/toast-store';
import { getCatalogueCharts, listDataWells, searchDataWells, type BrowseParams, type CatalogueCharts, type DataWell } from './datawells-api';

/** Browse mode lists one page; search mode lists the matches of a query. */
export type DataWellsView = ({ mode: 'browse' } & BrowseParams) | { mode: 'search'; query: string };

export interface DataWellsResult {
  wells: DataWell[];
  /** Browse mode: wells in the whole catalogue; search mode: the matches shown. */
  total: number;
}

async function load(view: DataWellsView): Promise<DataWellsResult> {
  if (view.mode === 'search') {
    const { data_wells } = await searchDataWells(view.query);
    return { wells: data_wells, total: data_wells.length };
  }
  const { data_wells, total } = await listDataWells(view);
  return { wells: data_wells, total };
}

const keyOf = (view: DataWellsView) =>
  view.mode === 'search' ? ['datawells', 'search', view.query] : ['datawells', 'browse', view.page, view.sort, view.count];

/** GET /datawells or POST /datawells/search, whichever the view asks for. */
export function useDataWells(view: DataWellsView) {
  return useSWR<DataWellsResult>(keyOf(view), () => load(view), {
    // The previous page stays on screen while the next one loads.
    keepPreviousData: true,
    onError: () => toast.error('Could not pull data wells'),
  });
}

/** GET /datawells/charts: the catalogue's charts; a failure hides them quietly (the list stays). */
export function useCatalogueCharts() {
  return useSWR<CatalogueCharts>(['datawells', 'charts'], getCatalogueCharts, { revalidateOnFocus: false });
}
