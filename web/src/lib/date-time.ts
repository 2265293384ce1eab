/**
 * How the dashboard writes a moment: "Dec 6, 2026, 05:53 AM" (in the browser's time zone),
 * the same on every screen. A value that is no date is shown as it came.
 */
const DATE_TIME = new Intl.DateTimeFormat('en-US', { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });

export function formatDateTime(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : DATE_TIME.format(date);
}
