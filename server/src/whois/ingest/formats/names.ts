/**
 * Formats that only say a host name exists: crt.sh JSON (certificate transparency) and
 * subfinder JSONL. Both fill `subdomains`.
 */
import { BadRecord, epochSeconds, parseJsonObject, reversedHost, type ParseContext, type RecordParser } from './common';

/** A JSON value (one element of a top-level array) may span lines up to this size. */
const MAX_VALUE_CHARS = 1 << 20;
/** Names one certificate entry may carry. */
const MAX_NAMES = 1000;

/**
 * Splits a JSON text into its top-level values, whether one array of them (crt.sh's
 * output) or values one after another (NDJSON), whatever the line breaks; each value is
 * handed over with the line it starts on. Memory is bounded by MAX_VALUE_CHARS.
 */
export class JsonValueSplitter {
  private depth = 0;
  private inString = false;
  private escape = false;
  private array: boolean | null = null;
  private parts: string[] = [];
  private size = 0;
  private collecting = false;
  private tooBig = false;
  private startLine = 0;

  constructor(
    private readonly onValue: (text: string, lineNo: number) => void,
    private readonly onBad: (lineNo: number, reason: string, text: string) => void,
  ) {}

  line(text: string, lineNo: number): void {
    let segment = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (this.inString) {
        if (this.escape) this.escape = false;
        else if (c === 92) this.escape = true;
        else if (c === 34) {
          this.inString = false;
          if (this.depth === this.base()) this.finish(text, segment, i + 1);
        }
        continue;
      }
      if (!this.collecting) {
        if (c === 32 || c === 9 || c === 13) continue;
        if (this.array === null && c === 91 /* [ */) {
          this.array = true;
          this.depth = 1;
          continue;
        }
        if (this.array === true && c === 44 /* , */) continue;
        if (this.array === true && c === 93 /* ] */ && this.depth === 1) {
          this.depth = 0;
          this.array = false; // values after the array are read one after another
          continue;
        }
        if (this.array === null) this.array = false;
        this.collecting = true;
        this.startLine = lineNo;
        segment = i;
      }
      if (c === 34) this.inString = true;
      else if (c === 123 || c === 91) this.depth++;
      else if (c === 125 || c === 93) {
        this.depth--;
        if (this.depth === this.base()) this.finish(text, segment, i + 1);
      } else if (this.depth === this.base() && (c === 44 || c === 32 || c === 9)) {
        // the end of a bare scalar (a number, true…): not an object, reported as bad
        this.finish(text, segment, i);
        if (c === 44 && this.array) continue;
      }
    }
    if (this.collecting) this.keep(text.slice(segment) + '\n');
  }

  end(): void {
    if (this.collecting) this.emit(this.parts.join('') || '(end of input)', true);
  }

  private base(): number {
    return this.array ? 1 : 0;
  }

  private keep(part: string): void {
    if (this.tooBig) return;
    this.size += part.length;
    if (this.size > MAX_VALUE_CHARS) {
      this.tooBig = true;
      this.parts = [this.parts.join('').slice(0, 160)];
      return;
    }
    this.parts.push(part);
  }

  private finish(text: string, from: number, to: number): void {
    this.keep(text.slice(from, to));
    this.emit(this.parts.join(''), false);
  }

  private emit(value: string, truncated: boolean): void {
    const tooBig = this.tooBig;
    this.parts = [];
    this.size = 0;
    this.collecting = false;
    this.tooBig = false;
    if (tooBig) this.onBad(this.startLine, `value longer than ${MAX_VALUE_CHARS} characters`, value);
    else if (truncated) this.onBad(this.startLine, 'input ends inside a value', value);
    else this.onValue(value, this.startLine);
  }
}

/** crt.sh `?output=json`: entries with `name_value` (names separated by newlines, maybe `*.`) and `common_name`. */
export function crtshParser(ctx: ParseContext): RecordParser {
  const fallback = Math.floor(ctx.observedAt.getTime() / 1000);
  const splitter = new JsonValueSplitter(
    (text, lineNo) => {
      try {
        const entry = parseJsonObject(text);
        const seen = epochSeconds(entry.entry_timestamp, 'entry_timestamp') ?? epochSeconds(entry.not_before, 'not_before') ?? fallback;
        const names = [entry.name_value, entry.common_name]
          .filter((v): v is string => typeof v === 'string')
          .flatMap((v) => v.split(/\s+/))
          .slice(0, MAX_NAMES);
        let kept = 0;
        for (const name of new Set(names.map((n) => n.replace(/^\*\./, '')))) {
          const rev = name === '' ? null : reversedHost(name);
          if (rev === null) continue; // an e-mail address of an S/MIME certificate, an IP…
          ctx.stage.addName(rev, seen, seen);
          kept++;
        }
        if (kept === 0) throw new BadRecord('no host name in name_value or common_name');
        ctx.good();
      } catch (e) {
        if (!(e instanceof BadRecord)) throw e;
        ctx.bad(lineNo, e.message, text);
      }
    },
    (lineNo, reason, text) => ctx.bad(lineNo, reason, text),
  );
  return { line: (text, lineNo) => splitter.line(text, lineNo), end: () => splitter.end() };
}

/** subfinder `-oJ`: JSONL `{host, input, source}`; a plain host per line (its default output) too. */
export function subfinderParser(ctx: ParseContext): RecordParser {
  const seen = Math.floor(ctx.observedAt.getTime() / 1000);
  return {
    line(text) {
      const trimmed = text.trim();
      if (trimmed === '') return;
      const host = trimmed.startsWith('{') ? parseJsonObject(trimmed).host : trimmed;
      if (typeof host !== 'string') throw new BadRecord('host missing');
      const rev = reversedHost(host);
      if (rev === null) throw new BadRecord('host is not a host name');
      ctx.stage.addName(rev, seen, seen);
      ctx.good();
    },
    end() {},
  };
}
