/**
 * The Pwned Passwords range answer (docs/api-compatibility.md, "Breach API v3 and Pwned
 * Passwords"): the engine's known hashes with a 5-hex prefix, kept to one kind by the
 * length of their suffix, written as the service writes them, padded on request, and
 * named by an entity tag computed from the lines themselves.
 */
import { createHash, randomBytes, randomInt } from 'node:crypto';

export type RangeMode = 'sha1' | 'ntlm';

/**
 * Hex digits after the 5-digit prefix: SHA-1 is 40, NTLM (MD4 of the UTF-16LE password)
 * 32. The engine answers every kind it holds at once (SHA-256 too, 59); the length tells
 * them apart. A stored 32-hex hash may be an MD5 rather than an NTLM: it is listed in ntlm
 * mode all the same, where only a client holding that very value can match it.
 */
export const SUFFIX_LENGTH: Readonly<Record<RangeMode, number>> = { sha1: 35, ntlm: 27 };

/** A padded answer has at least this many lines, plus a random 0 to PADDING_SPREAD more. */
export const PADDING_MIN_LINES = 800;
export const PADDING_SPREAD = 200;

export interface RangeLine {
  /** Upper-case hex, the hash without its prefix. */
  suffix: string;
  count: number;
}

/** `?mode=`: sha1 (the default) or ntlm, any case; undefined for anything else. */
export function rangeMode(raw: string | undefined): RangeMode | undefined {
  const mode = (raw ?? 'sha1').toLowerCase();
  return mode === 'sha1' || mode === 'ntlm' ? mode : undefined;
}

/** `Add-Padding: true`, any case. */
export function wantsPadding(raw: string | string[] | undefined): boolean {
  const value = Array.isArray(raw) ? raw[0] : raw;
  return value?.trim().toLowerCase() === 'true';
}

const bySuffix = (a: RangeLine, b: RangeLine) => (a.suffix < b.suffix ? -1 : a.suffix > b.suffix ? 1 : 0);

/** The engine's suffixes of the mode's kind, upper case, sorted by suffix. */
export function rangeLines(suffixes: readonly { suffix: string; count: number }[], mode: RangeMode): RangeLine[] {
  const length = SUFFIX_LENGTH[mode];
  return suffixes
    .filter((s) => s.suffix.length === length)
    .map((s) => ({ suffix: s.suffix.toUpperCase(), count: s.count }))
    .sort(bySuffix);
}

/**
 * The lines with random suffixes of count 0 added until there are PADDING_MIN_LINES plus
 * a random 0 to PADDING_SPREAD of them (none when the real lines reach that already),
 * sorted: every answer is about the same size, so its length says nothing of the prefix.
 * A padding suffix never repeats a real one, so a real line's count stays the only one.
 */
export function padLines(lines: readonly RangeLine[], mode: RangeMode): RangeLine[] {
  const length = SUFFIX_LENGTH[mode];
  const target = PADDING_MIN_LINES + randomInt(PADDING_SPREAD + 1);
  const taken = new Set(lines.map((l) => l.suffix));
  const out = [...lines];
  while (out.length < target) {
    const suffix = randomBytes(Math.ceil(length / 2)).toString('hex').slice(0, length).toUpperCase();
    if (taken.has(suffix)) continue;
    taken.add(suffix);
    out.push({ suffix, count: 0 });
  }
  return out.sort(bySuffix);
}

/** `SUFFIX:COUNT` lines joined by CRLF, none after the last; empty when there are none. */
export function rangeBody(lines: readonly RangeLine[]): string {
  return lines.map((l) => `${l.suffix}:${l.count}`).join('\r\n');
}

/**
 * The answer's entity tag, a digest of the unpadded body (and the mode): it changes
 * exactly when the prefix's lines do, whatever changed them (a well published or taken
 * down, a record removed, an address opted out). An unpadded answer's tag is strong (the
 * same tag, the same bytes); a padded one's is weak and another tag (its padding differs
 * on every answer, its meaning does not), so a cache never takes one variant for the other.
 */
export function rangeEtag(mode: RangeMode, body: string, padded: boolean): string {
  const digest = createHash('sha256').update(`${mode}\n${body}`).digest('base64url').slice(0, 27);
  return padded ? `W/"${digest}.padded"` : `"${digest}"`;
}

/** If-None-Match holds the tag (weak comparison, as a GET's conditional uses) or `*`. */
export function etagMatches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  return ifNoneMatch.split(',').some((tag) => tag.trim() === '*' || opaque(tag) === opaque(etag));
}
