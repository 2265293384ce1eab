/**
 * CSV cells as every export writes them (the search export and monitoring reports in the
 * browser, the domain overview on the server): one rule so no export can be read as a
 * spreadsheet formula.
 *
 * - a cell that begins with = + - @ after any leading white space (spaces, tabs, line
 *   breaks, no-break spaces), or with a tab or a carriage return, gets a leading single
 *   quote ("\n=HYPERLINK(…)" too: some spreadsheets skip leading white space);
 * - every cell is quoted (RFC 4180), inner double quotes doubled, so a comma or a line
 *   break stays inside its cell; every other character is kept.
 */

/** The value, neutralised when a spreadsheet could read it as a formula. */
export function cleanCell(value: string): string {
  return /^(?:\s*[=+\-@]|[\t\r])/.test(value) ? `'${value}` : value;
}

/** The cell quoted (RFC 4180). */
export function quoteCell(cell: string): string {
  return `"${cell.replace(/"/g, '""')}"`;
}

/** One CSV line of cleaned, quoted cells (no line break). */
export function csvLine(cells: readonly (string | number | boolean)[]): string {
  return cells.map((cell) => quoteCell(cleanCell(String(cell)))).join(',');
}
