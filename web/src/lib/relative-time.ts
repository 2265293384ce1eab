/**
 * A time relative to now, in words: 'Just Now' under a minute ago, then whole Minutes, Hours,
 * Days, Weeks, Months (30 days) and Years (360 days, 31 104 000 s), e.g. '1 Minute Ago',
 * '5 Hours Ago'; in the future 'Soon' under a minute, then '3 Weeks From Now' (a renewal, an
 * expiry); 'N/A' past 2000 years either way or for a missing or invalid date.
 *
 * The one place the dashboard words a relative time; pure, so it is unit-tested from
 * server/test/dashboard/relative-time.test.ts.
 */

const UNITS: [seconds: number, name: string][] = [
  [31_104_000, 'Year'],
  [2_592_000, 'Month'],
  [604_800, 'Week'],
  [86_400, 'Day'],
  [3_600, 'Hour'],
  [60, 'Minute'],
];

const MAX_YEARS = 2000;

export function relativeTime(when: Date | string | number | null | undefined, now: Date | number = Date.now()): string {
  if (when === null || when === undefined || when === '') return 'N/A';
  const time = when instanceof Date ? when.getTime() : new Date(when).getTime();
  const current = now instanceof Date ? now.getTime() : now;
  if (!Number.isFinite(time) || !Number.isFinite(current)) return 'N/A';
  const future = time > current;
  const seconds = Math.floor(Math.abs(current - time) / 1000);
  if (seconds < 60) return future ? 'Soon' : 'Just Now';
  if (seconds > MAX_YEARS * 31_104_000) return 'N/A';
  for (const [size, name] of UNITS) {
    if (seconds >= size) {
      const count = Math.floor(seconds / size);
      return `${count} ${name}${count === 1 ? '' : 's'} ${future ? 'From Now' : 'Ago'}`;
    }
  }
  return future ? 'Soon' : 'Just Now';
}
