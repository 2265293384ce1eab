/**
 * The data wells catalogue: public browsing by page and a text
 * search over names and descriptions. Everything returned is plain catalogue data.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import { Errors } from '../infra/errors';
import type { CatalogueCharts, DataWell, DataWellSort as Sort } from '../common/datawells';
import * as dataWellRepo from './datawells-repository';

export const PAGE_SIZES = [20, 50] as const;
export type PageSize = (typeof PAGE_SIZES)[number];


export const MAX_PAGE = 9999;
export const SEARCH_MIN_LENGTH = 4;
/** Enforced by the route schema (the body never reaches the service longer). */
export const SEARCH_MAX_LENGTH = 100;
export const SEARCH_RESULT_LIMIT = 50;
/** The catalogue chart of the largest wells shows this many. */
export const LARGEST_WELLS = 10;

function toDataWell(row: dataWellRepo.DataWellRow): DataWell {
  return {
    name: row.name,
    image: row.image,
    date: row.date,
    records: Number(row.records),
    description: row.description,
    data: row.data_types.join(', '),
    is_sensitive: row.is_sensitive,
  };
}

function parseSort(sort: Sort): dataWellRepo.DataWellOrder {
  const [by, direction] = sort.split('_') as [dataWellRepo.DataWellOrder['by'], dataWellRepo.DataWellOrder['direction']];
  return { by, direction };
}

export function createDataWellService(db: Kysely<Database>) {
  return {
    async list(options: { page: number; sort: Sort; count: PageSize }): Promise<{ data_wells: DataWell[]; total: number }> {
      const page = Math.min(Math.max(1, Math.trunc(options.page)), MAX_PAGE);
      const [rows, total] = await Promise.all([
        dataWellRepo.listDataWells(db, { order: parseSort(options.sort), limit: options.count, offset: (page - 1) * options.count }),
        dataWellRepo.countDataWells(db),
      ]);
      return { data_wells: rows.map(toDataWell), total };
    },

    async search(query: string): Promise<{ data_wells: DataWell[] }> {
      const text = query.trim();
      if (text.length < SEARCH_MIN_LENGTH) throw Errors.badRequest('Query must be atleast 4 characters');
      const rows = await dataWellRepo.searchDataWells(db, text, SEARCH_RESULT_LIMIT);
      return { data_wells: rows.map(toDataWell) };
    },

    /** The catalogue's charts in one answer (docs/charts.md). */
    async charts(): Promise<CatalogueCharts> {
      const { years, undated, largest, passwords } = await dataWellRepo.catalogueCharts(db, LARGEST_WELLS);
      const sum = (key: 'wells' | 'records') => years.reduce((n, y) => n + y[key], undated[key]);
      return {
        total: { wells: sum('wells'), records: sum('records') },
        years,
        undated: { wells: undated.wells, records: undated.records },
        largest,
        passwords,
      };
    },
  };
}

export type DataWellService = ReturnType<typeof createDataWellService>;
