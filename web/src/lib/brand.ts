/**
 * Operator settings the server writes into index.html (HTML-escaped) when it serves the
 * dashboard. Under `vite dev` the placeholders stay as they are, hence the fallbacks.
 */
function readMeta(name: string, fallback: string): string {
  const value = document.querySelector(`meta[name="${name}"]`)?.getAttribute('content')?.trim();
  return !value || /^%[A-Z_]+%$/.test(value) ? fallback : value;
}

export const BRAND = readMeta('app-brand', 'LeakWell');
export const SUPPORT_URL = readMeta('app-support-url', 'https://support.example.com');
/** The public API's key header: the brand without spaces, then "-Api-Key" (as the server). */
export const API_KEY_HEADER = `${BRAND.replace(/\s+/g, '')}-Api-Key`;

/** Sets the tab title: "Profile · Brand", or the brand alone. */
export function setPageTitle(page?: string): void {
  document.title = page ? `${page} · ${BRAND}` : BRAND;
}
