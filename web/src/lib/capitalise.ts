/** The first character upper-cased, the rest as written ('search-credits' → 'Search-credits'; spec 3 §2 breadcrumbs). */
export function capitalise(text: string): string {
  const [first = ''] = Array.from(text);
  return first.toUpperCase() + text.slice(first.length);
}
