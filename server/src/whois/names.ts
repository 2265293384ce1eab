/**
 * Host names in the local store (migration 0006): lower case, no final dot, stored reversed
 * by label so that every name under a domain is one key range.
 */

/** `www.Example.test.` → `www.example.test`. */
export function normaliseHost(name: string): string {
  return name.trim().replace(/\.+$/, '').toLowerCase();
}

/** `www.example.test` → `test.example.www` (and back: the operation is its own inverse). */
export function reverseName(name: string): string {
  return name.split('.').reverse().join('.');
}

/**
 * The key range of every name strictly under `domain` (reversed): `[low, high)`.
 * `example.test` → `['test.example.', 'test.example/')` ('/' follows '.' in byte order).
 */
export function subtreeRange(domain: string): { low: string; high: string } {
  const rev = reverseName(normaliseHost(domain));
  return { low: `${rev}.`, high: `${rev}/` };
}
