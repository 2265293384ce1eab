/**
 * CSV export of search records (style rule 12).
 *
 * - primary_field and raw_record are left out (as is the local removed flag);
 * - an array field expands into numbered columns: email_1, email_2, … (monitoring reports
 *   number from 0: email_0, email_1, …);
 * - every character of a value is kept, commas and line breaks included: an export is a copy
 *   of the data, not a rendering of it. Every cell is quoted (RFC 4180), inner double quotes
 *   doubled, so a comma or a line break stays inside its cell;
 * - a cell that could be read as a formula is neutralised by the rule every export shares
 *   (server/src/common/csv-cells.ts: a leading single quote).
 */
import { cleanCell, quoteCell as quote } from '@common/csv-cells';
import type { SearchRecord } from '../api/search-api';
import { saveFile } from '../../../lib/save-file';

export { cleanCell };

const EXCLUDED = new Set(['primary_field', 'raw_record', 'removed']);

export interface CsvOptions {
  /** The number of an array field's first column: 1 for search (email_1), 0 for reports (email_0). */
  firstIndex?: number;
}

/** Columns in first-seen order; array fields as wide as their longest array. */
function columnsOf(records: SearchRecord[]): { field: string; index: number | null }[] {
  const widths = new Map<string, number | null>();
  for (const record of records) {
    for (const [field, value] of Object.entries(record)) {
      if (EXCLUDED.has(field) || value === undefined) continue;
      if (Array.isArray(value)) {
        const known = widths.get(field);
        widths.set(field, Math.max(typeof known === 'number' ? known : 0, value.length));
      } else if (!widths.has(field)) {
        widths.set(field, null);
      }
    }
  }
  const columns: { field: string; index: number | null }[] = [];
  for (const [field, width] of widths) {
    if (width === null) columns.push({ field, index: null });
    else for (let i = 0; i < width; i++) columns.push({ field, index: i });
  }
  return columns;
}

export function toCsv(records: SearchRecord[], { firstIndex = 1 }: CsvOptions = {}): string {
  const columns = columnsOf(records);
  const header = columns.map(({ field, index }) => quote(cleanCell(index === null ? field : `${field}_${index + firstIndex}`)));
  const rows = records.map((record) =>
    columns.map(({ field, index }) => {
      const value = record[field];
      const cell = index === null ? (Array.isArray(value) ? value.join(' ') : (value ?? '')) : Array.isArray(value) ? (value[index] ?? '') : '';
      return quote(cleanCell(String(cell)));
    }),
  );
  return [header, ...rows].map((row) => row.join(',')).join('\r\n') + '\r\n';
}

/** "search-results-2025-04-23T14-05-09.csv": local time, safe in every file system. */
export function defaultCsvName(now = new Date()): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  const stamp = `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}T${pad(now.getHours())}-${pad(now.getMinutes())}-${pad(now.getSeconds())}`;
  return `search-results-${stamp}.csv`;
}

export const CSV_NAME_ERROR = 'The file name must end in .csv';

/** The spec asks for ".csv" in the name; we ask for it at the end, so no "x.csv.exe". */
export function isCsvName(name: string): boolean {
  const trimmed = name.trim();
  return trimmed.length > 4 && trimmed.toLowerCase().endsWith('.csv') && !/[\\/]/.test(trimmed);
}

export function downloadCsv(records: SearchRecord[], fileName: string, options?: CsvOptions): void {
  saveFile(new Blob([toCsv(records, options)], { type: 'text/csv;charset=utf-8' }), fileName.trim());
}
