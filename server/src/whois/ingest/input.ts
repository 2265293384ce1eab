/**
 * Reading an input file of `whois-ingest`: its sha256 (what makes a second import of the
 * same file a no-op), gzip detected by its magic bytes, and a line splitter with a bound
 * on line length, so memory stays bounded whatever the input.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Transform, type Readable } from 'node:stream';
import zlib from 'node:zlib';

/** Lines longer than this are bad lines (skipped to their end, never held whole). */
export const MAX_LINE_BYTES = 1 << 20;
/** A gzip member may expand at most this many times (plus 64 MiB): a bomb stops the file. */
export const MAX_GZIP_RATIO = 200;

export async function sha256OfFile(file: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(fs.createReadStream(file), hash);
  return hash.digest('hex');
}

/**
 * Standard input is written to a temporary file first, so it is hashed and deduplicated
 * like a file and read once more at disk speed; the caller removes it.
 */
export async function spoolStdin(stdin: Readable = process.stdin): Promise<{ file: string; remove(): void }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'whois-ingest-'));
  const file = path.join(dir, 'stdin');
  await pipeline(stdin, fs.createWriteStream(file, { mode: 0o600 }));
  return { file, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

export function isGzip(file: string): boolean {
  const fd = fs.openSync(file, 'r');
  try {
    const magic = Buffer.alloc(2);
    return fs.readSync(fd, magic, 0, 2, 0) === 2 && magic[0] === 0x1f && magic[1] === 0x8b;
  } finally {
    fs.closeSync(fd);
  }
}

export interface OpenedInput {
  /** Decompressed bytes. */
  stream: AsyncIterable<Buffer>;
  gzip: boolean;
  bytesTotal: number;
  /** Bytes of the file read so far (compressed bytes for gzip): the progress. */
  bytesRead(): number;
}

export function openInput(file: string): OpenedInput {
  const gzip = isGzip(file);
  const bytesTotal = fs.statSync(file).size;
  const raw = fs.createReadStream(file, { highWaterMark: 1 << 20 });
  let read = 0;
  const counted = raw.pipe(
    new Transform({
      transform(chunk: Buffer, _enc, done) {
        read += chunk.length;
        done(null, chunk);
      },
    }),
  );
  raw.on('error', (e) => counted.destroy(e));
  if (!gzip) return { stream: counted, gzip, bytesTotal, bytesRead: () => read };
  let expanded = 0;
  const limit = MAX_GZIP_RATIO * bytesTotal + (64 << 20);
  const guard = new Transform({
    transform(chunk: Buffer, _enc, done) {
      expanded += chunk.length;
      if (expanded > limit) done(new Error(`gzip input expands more than ${MAX_GZIP_RATIO} times its size: refused`));
      else done(null, chunk);
    },
  });
  const gunzip = zlib.createGunzip();
  counted.on('error', (e) => gunzip.destroy(e));
  gunzip.on('error', (e) => guard.destroy(e));
  return { stream: counted.pipe(gunzip).pipe(guard), gzip, bytesTotal, bytesRead: () => read };
}

/**
 * Splits chunks into lines (LF or CRLF; a UTF-8 BOM at the start dropped), numbered from 1.
 * A line longer than `maxLineBytes` is given to `tooLong` with its first bytes instead.
 */
export class LineSplitter {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private overflow = false;
  private lineNo = 0;
  private first = true;

  constructor(
    private readonly onLine: (text: string, lineNo: number) => void,
    private readonly tooLong: (lineNo: number, head: string) => void,
    private readonly maxLineBytes = MAX_LINE_BYTES,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    if (this.first) {
      this.first = false;
      if (chunk.length >= 3 && chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf) start = 3;
    }
    for (;;) {
      const nl = chunk.indexOf(10, start);
      if (nl === -1) {
        this.keep(chunk.subarray(start));
        return;
      }
      if (this.pendingBytes === 0 && !this.overflow) {
        this.emit(chunk.subarray(start, nl));
      } else {
        this.keep(chunk.subarray(start, nl));
        this.flushPending();
      }
      start = nl + 1;
    }
  }

  /** End of input: a last line without a final newline. */
  end(): void {
    if (this.pendingBytes > 0 || this.overflow) this.flushPending();
  }

  private keep(part: Buffer): void {
    if (part.length === 0) return;
    if (this.overflow) return;
    if (this.pendingBytes + part.length > this.maxLineBytes) {
      this.overflow = true;
      this.pending.push(part.subarray(0, Math.max(0, 160 - this.pendingBytes)));
      return;
    }
    this.pending.push(Buffer.from(part));
    this.pendingBytes += part.length;
  }

  private flushPending(): void {
    const whole = Buffer.concat(this.pending);
    const overflow = this.overflow;
    this.pending = [];
    this.pendingBytes = 0;
    this.overflow = false;
    if (overflow) {
      this.tooLong(++this.lineNo, whole.subarray(0, 160).toString('utf8'));
      return;
    }
    this.emit(whole);
  }

  private emit(bytes: Buffer): void {
    const lineNo = ++this.lineNo;
    if (bytes.length > this.maxLineBytes) {
      this.tooLong(lineNo, bytes.subarray(0, 160).toString('utf8'));
      return;
    }
    const end = bytes.length > 0 && bytes[bytes.length - 1] === 13 ? bytes.length - 1 : bytes.length;
    this.onLine(bytes.toString('utf8', 0, end), lineNo);
  }
}
