/**
 * What to tell a searcher whose search found nothing, from the query they ran: the forms
 * that commonly find nothing because they are written differently from how records are
 * stored or how the query language reads them. Every hint suggests what works where it is
 * shown: a leading * works on a field's tab, and a hashed password is found as a result
 * shows it, with or without its salt, so neither needs a hint.
 * Pure, unit-tested in server/test/dashboard/empty-hints.test.ts.
 */
export interface RunQuery {
  query: string;
  /** The tab: 'all' or a field. */
  type: string;
  wildcard: boolean;
  regex: boolean;
}

const FIELD_PREFIX = /^([a-z_]+):/i;
const PHONE_DECORATION = /^\+?[\d\s().-]{6,}$/;

export function emptyHints({ query, type, wildcard, regex }: RunQuery): string[] {
  const hints: string[] = [];
  const text = query.trim();
  const prefix = FIELD_PREFIX.exec(text)?.[1]?.toLowerCase();
  const value = prefix ? text.slice(prefix.length + 1).trim() : text;
  const field = prefix ?? type;
  const quoted = /^".*"$/.test(value);
  const logical = /\s(AND|OR)\s|[&()]/.test(value);

  if ((field === 'phone' || (field === 'all' && /\d/.test(value))) && PHONE_DECORATION.test(value) && /[\s().+-]/.test(value)) {
    hints.push(`Phone numbers are matched by their digits: search ${value.replace(/\D/g, '')}.`);
  } else if (!quoted && !logical && /\s/.test(value)) {
    hints.push('Words apart are searched as separate terms. Put a name or an address in quotes: "John Smith".');
  }
  if (!wildcard && !regex && value.includes('*')) {
    hints.push('A * is a wildcard only with Wildcard on (or &wildcard at the end of the query).');
  } else if (hints.length === 0 && !wildcard && !regex && field !== 'all' && !prefix && !/\s/.test(value)) {
    hints.push(`This tab matches whole ${field.replace(/_/g, ' ')} values. To find a part of one, turn Wildcard on and use *, as in *${value}*.`);
  }
  return hints;
}
