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
