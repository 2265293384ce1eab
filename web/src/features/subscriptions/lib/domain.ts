/**
 * A monitored domain is a bare host name: letters, digits and
 * hyphens in dot-separated labels of at most 63 characters, no scheme, path or port,
 * a top-level label of letters.
 */
const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/i;

export function isValidDomain(value: string): boolean {
  if (value.length === 0 || value.length > 253) return false;
  const labels = value.split('.');
  if (labels.length < 2) return false;
  const tld = labels[labels.length - 1]!;
  return labels.every((label) => LABEL.test(label)) && /^(?:[a-z]{2,63}|xn--[a-z0-9-]{1,59})$/i.test(tld);
}
