/**
 * The well charts' answers (the search screen's exposure timeline, monitoring's domain
 * overview; docs/search-and-api.md "Well charts"), shared by the server and the dashboard.
 */
import type { SearchType } from './search-rules';

/** The search tabs a timeline is drawn for: searches of one person's or one domain's identifiers. */
export const TIMELINE_TYPES: readonly SearchType[] = ['email', 'username', 'phone', 'domain_scan'];

/** One data well of a chart; its name is attacker-influenced text. */
export interface ExposedWell {
  name: string;
  /** The breach date (YYYY-MM-DD); null in `undated`. */
  date: string | null;
  /** Records of the well matching the query. */
  records: number;
  /** The kinds of data the well exposes (the catalogue's, named: "Email", "Hashed password", ...). */
  data_types: string[];
}

export interface WellExposure {
  /** Matching records in every well. */
  total: number;
  /** Wells with a breach date, oldest first (then by name). */
  wells: ExposedWell[];
  /** Wells without a breach date, most records first (then by name). */
  undated: ExposedWell[];
}

export interface DataKind {
  kind: string;
  /** Wells holding the domain's addresses that expose this kind of data. */
  wells: number;
  /** The domain's matching records in those wells. */
  records: number;
}

/** POST /monitoring/domains/overview: a verified domain's wells, distinct addresses and kinds of data. */
export interface DomainOverview extends WellExposure {
  domain: string;
  /** Distinct addresses of the domain (lower-cased) that a counted record holds. */
  distinct_addresses: number;
  /** Each kind of data with the wells and records exposing it, most records first. */
  data_kinds: DataKind[];
}
