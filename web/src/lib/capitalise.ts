/**
 * The first letter of every word upper-cased, the rest as written: 'hashed password' →
 * 'Hashed Password'; words are separated by white space, so 'search-credits' →
 * 'Search-credits' (names such as a product's come from where they are defined).
 */
export function capitalise(text: string): string {
  return text.replace(/(^|\s)(\S)/gu, (_match, space: string, first: string) => space + first.toUpperCase());
}
