/**
 * Display rules for a search record. Values are hostile text: these helpers only
 * pick and reshape strings; components render them as text nodes.
 */
import type { SearchRecord } from '../api/search-api';
import { fieldLabel } from '../../../lib/field-labels';

/** The masked-record marker in the email field. */
export const HIDDEN_EMAIL = 'hidden';

/** Display order of the known fields; anything else follows alphabetically. */
const FIELD_ORDER = [
  'email',
  'username',
  'password',
  'hashed_password',
  'name',
  'phone',
  'address',
  'ip_address',
  'dob',
  'vin',
  'license_plate',
  'company',
  'url',
  'domain',
  'social',
  'cryptocurrency_address',
];

export { fieldLabel };

/** Fields named id or primary_field, any name containing "nested", and the ones shown apart. */
export function isDisplayedField(field: string): boolean {
  if (field === 'id' || field === 'primary_field' || field.includes('nested')) return false;
  return field !== 'database_name' && field !== 'raw_record';
}

export function valuesOf(record: SearchRecord, field: string): string[] {
  const value = record[field];
  if (Array.isArray(value)) return value.filter((item): item is string => typeof item === 'string' && item !== '');
  return typeof value === 'string' && value !== '' ? [value] : [];
}

/** The record's displayed fields with at least one value, in display order. */
export function displayedFields(record: SearchRecord): { field: string; values: string[] }[] {
  const names = Object.keys(record).filter(isDisplayedField);
  names.sort((a, b) => {
    const ia = FIELD_ORDER.indexOf(a);
    const ib = FIELD_ORDER.indexOf(b);
    if (ia >= 0 || ib >= 0) return (ia < 0 ? Infinity : ia) - (ib < 0 ? Infinity : ib);
    return a.localeCompare(b);
  });
  return names.map((field) => ({ field, values: valuesOf(record, field) })).filter((entry) => entry.values.length > 0);
}

/** The headline of a row: the first value of primary_field, else of the first displayed field. */
export function headline(record: SearchRecord): { field: string; value: string } | null {
  const primary = record.primary_field;
  if (primary && isDisplayedField(primary)) {
    const [value] = valuesOf(record, primary);
    if (value !== undefined) return { field: primary, value };
  }
  const first = displayedFields(record)[0];
  return first ? { field: first.field, value: first.values[0]! } : null;
}

/** hash:salt||extra, where a salt of "None" means no salt. */
export function parseHashedPassword(value: string): { hash: string; salt: string; extra: string } {
  const split = value.indexOf('||');
  const main = split >= 0 ? value.slice(0, split) : value;
  const extra = split >= 0 ? value.slice(split + 2) : '';
  const colon = main.indexOf(':');
  const hash = colon >= 0 ? main.slice(0, colon) : main;
  const rawSalt = colon >= 0 ? main.slice(colon + 1) : '';
  return { hash, salt: rawSalt === 'None' ? '' : rawSalt, extra };
}

/** One line of text for a value, as copied and printed. */
export function valueText(field: string, value: string): string {
  if (field !== 'hashed_password') return value;
  const { hash, salt, extra } = parseHashedPassword(value);
  return [hash, salt && `salt: ${salt}`, extra && `extra: ${extra}`].filter(Boolean).join(' · ');
}

export function isMaskedEmail(value: string): boolean {
  return value.trim().toLowerCase() === HIDDEN_EMAIL;
}

/** Emails a removal may be requested for: present, not empty, not the "hidden" marker. */
export function removableEmails(record: SearchRecord): string[] {
  return valuesOf(record, 'email').filter((email) => email.trim() !== '' && !isMaskedEmail(email));
}

/** raw_record as readable text: pretty JSON when it parses, else the raw line. */
export function rawRecordText(raw: string): string {
  try {
    return JSON.stringify(JSON.parse(raw), null, 2);
  } catch {
    return raw;
  }
}

/** A record as plain text, one "Label: value" line per value (copy and print). */
export function recordLines(record: SearchRecord): [label: string, value: string][] {
  const lines: [string, string][] = [];
  if (record.database_name) lines.push([fieldLabel('database_name'), record.database_name]);
  for (const { field, values } of displayedFields(record)) {
    for (const value of values) lines.push([fieldLabel(field), isMaskedEmail(value) && field === 'email' ? 'Hidden' : valueText(field, value)]);
  }
  return lines;
}

export function recordText(record: SearchRecord): string {
  return recordLines(record)
    .map(([label, value]) => `${label}: ${value}`)
    .join('\n');
}

export function recordsText(records: SearchRecord[]): string {
  return records.map(recordText).join('\n\n');
}
