/** How WHOIS values read on screen. Every value is text from a registry or a feed: hostile. */

const numbers = new Intl.NumberFormat('en-US');

export const formatCount = (value: number) => numbers.format(value);

/** Epoch seconds (lookup rows) as a UTC date, '—' when absent or not a time. */
export function formatEpochDay(seconds: unknown): string {
  if (typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds <= 0) return '—';
  const date = new Date(seconds * 1000);
  if (Number.isNaN(date.getTime())) return '—';
  return date.toLocaleDateString('en-US', { year: 'numeric', month: 'short', day: 'numeric', timeZone: 'UTC' });
}

/** An ISO time as a UTC date and time, or the text itself when it does not parse. */
export function formatIsoTime(iso: string | undefined): string {
  if (!iso) return '—';
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return iso;
  return new Date(ms).toLocaleString('en-US', {
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    timeZone: 'UTC',
    timeZoneName: 'short',
  });
}

/**
 * A registry's date as the rest of the page shows dates ("Aug 14, 1995, 04:00 AM UTC"), so no raw
 * ISO string stands beside formatted ones; a date that does not parse is shown as given.
 */
export function formatWhoisDate(value: string | undefined): string | undefined {
  return value === undefined ? undefined : formatIsoTime(value);
}

/** A credit count with its unit: '1 credit', '25 credits'. */
export const credits = (count: number) => `${formatCount(count)} ${count === 1 ? 'credit' : 'credits'}`;

/** A string field of an answer, or undefined: a field of another type (broken or hostile) is left out. */
export const asText = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);
/** The strings of a list field. */
export const asTexts = (value: unknown): string[] => (Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : []);
