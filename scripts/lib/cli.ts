/** What the operator commands (breach ingest, WHOIS ingest) share: usage errors and progress display. */

export { UsageError } from '../../server/src/infra/operator-commands';

/** Bytes in the largest unit that keeps the number at or above 1 (`1.5 MB`). */
export function humanBytes(n: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let i = 0;
  while (n >= 1024 && i < units.length - 1) {
    n /= 1024;
    i++;
  }
  return `${n.toFixed(i ? 1 : 0)} ${units[i]}`;
}

/** Seconds as `mm:ss`; `--:--` when unknown. */
export function duration(s: number): string {
  if (!Number.isFinite(s) || s < 0) return '--:--';
  const m = Math.floor(s / 60);
  return `${String(m).padStart(2, '0')}:${String(Math.floor(s % 60)).padStart(2, '0')}`;
}

/**
 * Writes progress: on a terminal a bar redrawn in place, otherwise a plain line prefixed by
 * `label` every 5 seconds and at the end.
 */
export function progressWriter(out: NodeJS.WriteStream, label: string): (frac: number, text: string, done: boolean) => void {
  let lastPlain = 0;
  return (frac, text, done) => {
    if (out.isTTY) {
      const width = 24;
      const filled = Math.round(frac * width);
      out.write(`\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${(frac * 100).toFixed(0).padStart(3)}%  ${text}\x1b[K`);
      if (done) out.write('\n');
    } else if (done || Date.now() - lastPlain >= 5000) {
      lastPlain = Date.now();
      out.write(`${label}: ${(frac * 100).toFixed(0)}% ${text}\n`);
    }
  };
}
