/**
 * The first letter of every word upper-cased, the rest as written: 'hashed password' →
 * 'Hashed Password'; words are separated by white space, so 'search-credits' (a breadcrumb's
 * path segment) → 'Search-credits'.
 */
export function capitalise(text: string): string {
  return text.replace(/(^|\s)(\S)/gu, (_match, space: string, first: string) => space + first.toUpperCase());
}
