/** The data wells wire contract, shared by the server and the dashboard. */

export const DATAWELL_SORTS = ['records_desc', 'records_asc', 'name_asc', 'name_desc', 'date_desc', 'date_asc', 'added_desc', 'added_asc'] as const;
export type DataWellSort = (typeof DATAWELL_SORTS)[number];
export const DEFAULT_DATAWELL_SORT: DataWellSort = 'records_desc';

/** A breach source as clients see it. Names and descriptions are untrusted text. */
export interface DataWell {
  name: string;
  image: string | null;
  /** YYYY-MM-DD, or null when unknown. */
  date: string | null;
  records: number;
  description: string;
  /** The exposed data types, comma-separated ("email, password"). */
  data: string;
  is_sensitive: boolean;
}

/** Wells and their records of one breach year (the year of `date`). */
export interface CatalogueYear {
  year: number;
  wells: number;
  records: number;
}

/**
 * GET /datawells/charts: the catalogue's charts, aggregated in PostgreSQL (docs/charts.md).
 * `years` runs from the earliest to the latest breach year, years without a well at 0;
 * `undated` counts the wells without a date. `passwords` splits every well by its data
 * types: `plain` has password and not hashed_password, `hashed` the reverse, `both`, `neither`.
 */
export interface CatalogueCharts {
  total: { wells: number; records: number };
  years: CatalogueYear[];
  undated: { wells: number; records: number };
  /** The 10 largest wells by records (ties by name). */
  largest: { name: string; records: number; date: string | null }[];
  passwords: { plain: number; hashed: number; both: number; neither: number };
}
