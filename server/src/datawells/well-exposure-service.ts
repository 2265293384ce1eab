/**
 * The data wells of a chart (the search screen's exposure timeline, monitoring's domain
 * overview): the engine's matching records per well (`wellCounts`) joined with the
 * catalogue's breach date and the kinds of data each well exposes, named for people.
 * Wells without a breach date are answered apart (never dropped).
 */
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import type { WellCounts } from '../../../engine/index';
import { wellDatesAndTypes } from './datawells-repository';
import type { ExposedWell, WellExposure } from '../common/well-charts-wire';

export type { ExposedWell, WellExposure };

/** A catalogue data type (a record field) as people name it. */
const KIND_NAMES: Readonly<Record<string, string>> = {
  email: 'Email',
  username: 'Username',
  password: 'Password',
  hashed_password: 'Hashed password',
  ip_address: 'IP address',
  name: 'Name',
  dob: 'Date of birth',
  license_plate: 'Licence plate',
  vin: 'VIN',
  address: 'Address',
  phone: 'Phone',
  company: 'Company',
  url: 'URL',
  social: 'Social profile',
  cryptocurrency_address: 'Cryptocurrency address',
  domain: 'Domain',
};

/** The name of a kind of data; an unknown field in words ("credit_card" -> "Credit card"). */
export function kindName(field: string): string {
  const known = KIND_NAMES[field];
  if (known) return known;
  const words = field.replace(/_/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** The kinds of data of a well, named and in the fields' order (email, username, password, ...). */
export function kindNames(dataTypes: readonly string[]): string[] {
  const order = Object.keys(KIND_NAMES);
  const rank = (t: string) => (order.includes(t) ? order.indexOf(t) : order.length);
  return [...new Set(dataTypes)].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b)).map(kindName);
}

/** The engine's counts with each well's catalogue date and data types (one query). */
export async function wellExposure(db: Kysely<Database>, counts: WellCounts): Promise<WellExposure> {
  const rows = await wellDatesAndTypes(db, counts.wells.map((w) => w.well));
  const byName = new Map(rows.map((r) => [r.name, r]));
  const all = counts.wells.map((w): ExposedWell => {
    const row = byName.get(w.well);
    return { name: w.well, date: row?.date ?? null, records: w.records, data_types: kindNames(row?.data_types ?? []) };
  });
  const byNameOrder = (a: ExposedWell, b: ExposedWell) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  return {
    total: counts.total,
    wells: all.filter((w) => w.date !== null).sort((a, b) => a.date!.localeCompare(b.date!) || byNameOrder(a, b)),
    undated: all.filter((w) => w.date === null).sort((a, b) => b.records - a.records || byNameOrder(a, b)),
  };
}
