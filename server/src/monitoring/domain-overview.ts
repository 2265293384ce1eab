/**
 * The domain overview of the monitoring screen (docs/monitoring.md "Domain overview"): for a
 * domain the caller verified, the wells holding its addresses (`email:*@domain`, counted in
 * the engine) with their breach dates and kinds of data, how many distinct addresses of the
 * domain are exposed (the engine's distinct count of the term's values: exact, no record
 * read), and how many wells and records expose each kind of data; the same numbers as CSV.
 * One search of the account through the admission (counted, never charged).
 * Only counts and well names leave here: no address or other value.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import { Errors } from '../infra/errors';
import { normalizeDomain } from '../common/monitoring-rules';
import { csvLine } from '../common/csv-cells';
import { domainAddresses } from '../common/search-rules';
import { wellExposure } from '../datawells/well-exposure-service';
import type { DataKind, DomainOverview, WellExposure } from '../common/well-charts-wire';
import { OWN_QUERY_ADMISSION, type SearchService } from '../search/search-service';
import { domainGate } from './domain-verification-service';

export const OVERVIEW_NOT_VERIFIED = 'Verify this domain first: its overview is shown to the accounts that proved control of it.';

function dataKinds(exposure: WellExposure): DataKind[] {
  const kinds = new Map<string, DataKind>();
  for (const well of [...exposure.wells, ...exposure.undated]) {
    for (const kind of well.data_types) {
      const entry = kinds.get(kind) ?? { kind, wells: 0, records: 0 };
      entry.wells += 1;
      entry.records += well.records;
      kinds.set(kind, entry);
    }
  }
  return [...kinds.values()].sort((a, b) => b.records - a.records || b.wells - a.wells || (a.kind < b.kind ? -1 : 1));
}

export function createDomainOverview(deps: { db: Kysely<Database>; search: () => SearchService }) {
  return async function overview(userId: string, rawDomain: string): Promise<DomainOverview> {
    const domain = normalizeDomain(rawDomain);
    if (!domain) throw Errors.badRequest('invalid domain value');
    if (!(await domainGate(deps.db, userId))(domain)) throw Errors.forbidden(OVERVIEW_NOT_VERIFIED);
    const search = deps.search();
    const query = domainAddresses(domain);
    const { result: counts } = await search.admitted(userId, OWN_QUERY_ADMISSION, {}, () =>
      search.wellCounts({ query, type: 'all', mode: 'wildcard', oneTerm: false, distinct: true }),
    );
    const exposure = await wellExposure(deps.db, counts);
    return { domain, ...exposure, distinct_addresses: counts.distinct ?? 0, data_kinds: dataKinds(exposure) };
  };
}

/**
 * The overview as CSV: a block of totals, one of wells (undated ones with an empty date) and
 * one of kinds of data, separated by an empty line; every cell cleaned (common/csv-cells.ts).
 */
export function overviewCsv(overview: DomainOverview): string {
  const lines = [
    csvLine(['domain', 'distinct_addresses', 'records', 'wells']),
    csvLine([overview.domain, overview.distinct_addresses, overview.total, overview.wells.length + overview.undated.length]),
    '',
    csvLine(['well', 'breach_date', 'records', 'data_types']),
    ...[...overview.wells, ...overview.undated].map((w) => csvLine([w.name, w.date ?? '', w.records, w.data_types.join('; ')])),
    '',
    csvLine(['data_type', 'wells', 'records']),
    ...overview.data_kinds.map((k) => csvLine([k.kind, k.wells, k.records])),
  ];
  return lines.join('\r\n') + '\r\n';
}

/** A file name for the overview's CSV: the domain kept to safe characters. */
export function overviewCsvName(domain: string): string {
  return `domain-overview-${domain.replace(/[^a-z0-9.-]/g, '') || 'domain'}.csv`;
}
