/** How a search's input reaches the engine and how its entries are shown on the dashboard (search-service.ts). */
import { Errors } from '../infra/errors';
import { FIELD_NAMES, type Entry, type FieldName, type SearchMode } from '../../../engine/index';
import { MESSAGES, type SearchType } from '../common/search-rules';
import type { SearchAccess } from './admission-rules';

export function engineType(type: SearchType): FieldName | 'all' {
  return type === 'domain_scan' ? 'domain' : type;
}

export function searchMode(regex: boolean, wildcard: boolean): SearchMode {
  if (regex && wildcard) throw Errors.badRequest(MESSAGES.mixedModes);
  return regex ? 'regex' : wildcard ? 'wildcard' : 'exact';
}

/** The headline field of a record: the searched field when it has values, else the first present. */
export function primaryField(entry: Entry, type: FieldName | 'all'): string {
  if (type !== 'all' && entry[type]?.length) return type;
  return FIELD_NAMES.find((field) => entry[field]?.length) ?? 'database_name';
}

/**
 * Entries as the dashboard shows them to a viewer (dashboard search, monitoring reports):
 * none without search access (values are hidden; counts stay), `raw_record` only for law
 * enforcement, each with its headline field.
 */
export function dashboardEntries(entries: Entry[], access: Pick<SearchAccess, 'subscribed' | 'lawEnforcement'>, type: FieldName | 'all') {
  if (!access.subscribed) return [];
  return entries.map((entry) => {
    const { raw_record, ...fields } = entry;
    return { ...fields, primary_field: primaryField(entry, type), ...(access.lawEnforcement ? { raw_record } : {}) };
  });
}
