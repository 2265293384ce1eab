/**
 * The dismissed marketing banner: its id and when, in localStorage, for
 * one year. A new banner has a new id, so it shows at once; after a year the same one
 * shows again.
 */

export const BANNER_DISMISSED_KEY = 'banner-dismissed';
export const BANNER_DISMISSAL_MS = 365 * 86_400_000;

interface Dismissal {
  id: string;
  /** Epoch milliseconds. */
  at: number;
}

function read(): Dismissal | null {
  try {
    const value = JSON.parse(localStorage.getItem(BANNER_DISMISSED_KEY) ?? 'null') as Partial<Dismissal> | null;
    return value && typeof value.id === 'string' && typeof value.at === 'number' ? { id: value.id, at: value.at } : null;
  } catch {
    // Storage blocked or the value unreadable: nothing dismissed.
    return null;
  }
}

export function isBannerDismissed(id: string, now = Date.now()): boolean {
  const dismissal = read();
  return dismissal !== null && dismissal.id === id && now - dismissal.at < BANNER_DISMISSAL_MS;
}

export function dismissBanner(id: string, now = Date.now()): void {
  try {
    localStorage.setItem(BANNER_DISMISSED_KEY, JSON.stringify({ id, at: now } satisfies Dismissal));
  } catch {
    // Storage blocked: dismissed for this page only (the component hides it anyway).
  }
}
