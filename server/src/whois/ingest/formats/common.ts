/**
 * What every input format shares: the parser interface, bad records, host names and times.
 */
import { normaliseHost, reverseName } from '../../names';
import type { Stage } from '../stage';

/** A record that cannot be imported: reported with its line number, the others go on. */
export class BadRecord extends Error {}

export interface ParseContext {
  stage: Stage;
  /** The time of records that carry none (--observed-at, else the file's mtime; stdin: now). */
  observedAt: Date;
  /** The import's source name (--source, default the format). */
  source: string;
  /** A good input record was read. */
  good(): void;
  /** A bad record starting at `lineNo` (for parsers whose records span lines). */
  bad(lineNo: number, reason: string, text: string): void;
}

export interface RecordParser {
  /** One physical line; a single-line format throws BadRecord for a bad one. */
  line(text: string, lineNo: number): void;
  /** End of input: a record left open is reported. */
  end(): void;
}

const HOST_LABELS = /^(?:[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?\.)*[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * A DNS host name as stored: lower case, no final dot, labels of letters, digits, hyphens
 * (and underscores but in the last one, as in `_dmarc.example.test`), at most 253
 * characters. Wildcards and anything else: null.
 */
export function hostOrNull(name: string): string | null {
  const host = normaliseHost(name);
  return host.length > 0 && host.length <= 253 && HOST_LABELS.test(host) ? host : null;
}

export function reversedHost(name: string): string | null {
  const host = hostOrNull(name);
  return host === null ? null : reverseName(host);
}

/** 1970 to 2100: anything outside is a bad time. */
const MAX_EPOCH = 4_102_444_800;

/**
 * Epoch seconds from a number (seconds), a numeric string, or an ISO 8601 text (a text
 * without a zone is UTC, as crt.sh writes them); null when absent; BadRecord when wrong.
 */
export function epochSeconds(value: unknown, field: string): number | null {
  if (value === undefined || value === null || value === '') return null;
  let seconds: number;
  if (typeof value === 'number') seconds = value;
  else if (typeof value === 'string' && /^\d{1,12}(?:\.\d+)?$/.test(value)) seconds = Number(value);
  else if (typeof value === 'string' && value.length <= 40 && /^\d{4}-\d\d-\d\d/.test(value)) {
    const text = value.replace(/ UTC$/, 'Z').replace(' ', 'T');
    const zoned = /(?:Z|[+-]\d\d:?\d\d)$/i.test(text) || text.length === 10 ? text : `${text}Z`;
    seconds = Date.parse(zoned) / 1000;
  } else throw new BadRecord(`${field} is not a time`);
  if (!Number.isFinite(seconds) || seconds <= 0 || seconds >= MAX_EPOCH) throw new BadRecord(`${field} is out of range`);
  return Math.floor(seconds);
}

export function parseJsonObject(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new BadRecord('not valid JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new BadRecord('not a JSON object');
  return value as Record<string, unknown>;
}
