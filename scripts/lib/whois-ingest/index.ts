/**
 * The core of `npm run whois-ingest`: imports WHOIS and DNS data files into the local store
 * (migration 0006) in the format given. Each file is one transaction (and one beside it for
 * the names seen, committed just before it: stage.ts): its sha256 is claimed in
 * `whois_ingest_files` before anything is merged (a file already imported, or being
 * imported by another process, changes nothing; the hash is computed while the first batch
 * is parsed), its records are parsed line by line with bounded memory,
 * staged with COPY and merged batch by batch (stage.ts); bad records are counted, reported
 * with their line numbers and skipped.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Database } from '../../../server/src/db/schema';
import { BadRecord, type ParseContext, type RecordParser } from './formats/common';
import { crtshParser, subfinderParser } from './formats/names';
import { pdnsParser } from './formats/pdns';
import { rdapParser, whoisxmlCsvParser } from './formats/snapshots';
import { zoneParser } from './formats/zone';
import { LineSplitter, MAX_LINE_BYTES, openInput, sha256OfFile, spoolStdin, type OpenedInput } from './input';
import { Stage, type StagedCounts } from './stage';

export const WHOIS_FORMATS = ['pdns', 'rdap', 'zone', 'whoisxml-csv', 'crtsh', 'subfinder'] as const;
export type WhoisFormat = (typeof WHOIS_FORMATS)[number];

const PARSERS: Record<WhoisFormat, (ctx: ParseContext) => RecordParser> = {
  pdns: pdnsParser,
  rdap: rdapParser,
  zone: zoneParser,
  'whoisxml-csv': whoisxmlCsvParser,
  crtsh: crtshParser,
  subfinder: subfinderParser,
};

/** Bad lines written to the report at most; the count stays exact. */
const MAX_REPORT_ENTRIES = 100_000;
/** Bad lines kept in the result for the summary. */
const BAD_SAMPLES = 20;
const MAX_SOURCE_LENGTH = 64;
/** Bad lines held until the file is claimed (ingestOne): past this many, the claim is awaited. */
const MAX_HELD_BAD_LINES = 1000;
/** pg_advisory_xact_lock key held by an import while it merges (any fixed number; "whois" in ASCII). */
const INGEST_LOCK = 0x77686f6973;

export interface WhoisIngestOptions {
  format: WhoisFormat;
  /** Paths; `-` is standard input (spooled to a temporary file, so it is deduplicated too). */
  files: string[];
  /** Name kept with the rows (`pdns.source`, `subdomains.sources`, snapshots); default the format. */
  source?: string;
  /** Time of records that carry none (zone, subfinder; rdap/csv/crt.sh without theirs); default the file's mtime, stdin now. */
  observedAt?: Date;
  /** Every bad line (file:line: reason: text) is appended to this file. */
  reportPath?: string;
  /** Parse and merge, then roll back: nothing is kept. */
  dryRun?: boolean;
  onProgress?: (p: WhoisIngestProgress) => void;
  /** Standard input for `-` (tests). */
  stdin?: Readable;
}

export interface WhoisIngestProgress {
  file: string;
  bytesRead: number;
  bytesTotal: number;
  records: number;
  badLines: number;
  done: boolean;
}

export interface BadLine {
  file: string;
  line: number;
  reason: string;
  text: string;
}

export type FileStatus = 'imported' | 'already imported' | 'dry run' | 'failed';

export interface WhoisFileResult {
  path: string;
  format: WhoisFormat;
  status: FileStatus;
  gzip: boolean;
  sha256: string;
  /** Good input records (lines, entries, rows). */
  records: number;
  badLines: number;
  /** Rows staged for each table before merging duplicates. */
  staged: StagedCounts;
  elapsedMs: number;
  error?: string;
}

export interface WhoisIngestResult {
  files: WhoisFileResult[];
  records: number;
  badLines: number;
  /** The first bad lines, for the summary. */
  badSamples: BadLine[];
  reportPath: string | null;
  elapsedMs: number;
}

/** The source name: the option, else the format; at most 64 characters of letters, digits and `._:/-`. */
export function sourceName(format: WhoisFormat, source?: string): string {
  const name = (source ?? format).trim();
  if (name === '' || name.length > MAX_SOURCE_LENGTH || !/^[\w.:/-]+$/.test(name)) {
    throw new Error(`--source must be 1 to ${MAX_SOURCE_LENGTH} letters, digits or . _ : / -`);
  }
  return name;
}

/** A Kysely instance over one client, so typed statements (snapshots.ts) run in its transaction. */
function kyselyOn(client: pg.PoolClient): Kysely<Database> {
  const borrowed = {
    query: client.query.bind(client),
    release() {},
  } as unknown as pg.PoolClient;
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool: { connect: async () => borrowed, end: async () => {} } }) });
}

class Report {
  private fd: number | null = null;
  private written = 0;
  readonly samples: BadLine[] = [];
  count = 0;

  constructor(readonly path: string | null) {}

  add(bad: BadLine): void {
    this.count++;
    const text = bad.text.slice(0, 160);
    if (this.samples.length < BAD_SAMPLES) this.samples.push({ ...bad, text });
    if (this.path === null || this.written >= MAX_REPORT_ENTRIES) return;
    this.fd ??= fs.openSync(this.path, 'a');
    fs.writeSync(this.fd, `${bad.file}:${bad.line}: ${bad.reason}: ${JSON.stringify(text)}\n`);
    if (++this.written === MAX_REPORT_ENTRIES) fs.writeSync(this.fd, `(report truncated after ${MAX_REPORT_ENTRIES} entries; the count is still exact)\n`);
  }

  close(): void {
    if (this.fd !== null) fs.closeSync(this.fd);
    this.fd = null;
  }
}

function emptyResult(shown: string, format: WhoisFormat): WhoisFileResult {
  return { path: shown, format, status: 'imported', gzip: false, sha256: '', records: 0, badLines: 0, staged: { pdns: 0, names: 0, snapshots: 0 }, elapsedMs: 0 };
}

async function ingestOne(pool: pg.Pool, file: string, shown: string, o: WhoisIngestOptions, source: string, report: Report): Promise<WhoisFileResult> {
  const started = Date.now();
  let input: OpenedInput;
  try {
    input = openInput(file);
  } catch (e) {
    const why = (e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : e instanceof Error ? e.message : String(e);
    return { ...emptyResult(shown, o.format), status: 'failed', error: why, elapsedMs: Date.now() - started };
  }
  // The file is hashed (a second read, from the page cache) while its first batch is
  // parsed; the claim waits for the hash, and nothing is merged before the claim.
  const hashing = sha256OfFile(file);
  hashing.catch(() => {}); // awaited by claim(); a failure surfaces there
  const result: WhoisFileResult = { ...emptyResult(shown, o.format), gzip: input.gzip };
  const progress = (done: boolean) =>
    o.onProgress?.({ file: shown, bytesRead: input.bytesRead(), bytesTotal: input.bytesTotal, records: result.records, badLines: result.badLines, done });
  const client = await pool.connect();
  // The names merge runs on a connection of its own (stage.ts), outside the pool, so a
  // pool of one connection still works.
  let namesClient: pg.Client | null = null;
  try {
    // Staging tables live in local buffers: larger ones keep a batch off the disk. Settable
    // only before the session touches a temporary table (a reused connection keeps its own).
    await client.query(`set temp_buffers = '256MB'`).catch(() => {});
    await client.query('begin');
    namesClient = new pg.Client(pool.options);
    namesClient.on('error', () => {}); // a broken connection fails its next query
    await namesClient.connect();
    await namesClient.query(`set temp_buffers = '256MB'`);
    await namesClient.query('begin');
    const db = kyselyOn(client);
    const stage = await Stage.open(client, db, source, namesClient);
    /** Claims the file's sha256 before the first merge; false when it was already imported. */
    let claimed = false;
    const claim = async (): Promise<boolean> => {
      if (claimed) return true;
      result.sha256 = await hashing;
      const inserted = await client.query(
        `insert into whois_ingest_files (sha256, format, name, rows) values ($1, $2, $3, 0) on conflict (sha256) do nothing returning sha256`,
        [result.sha256, o.format, path.basename(shown).slice(0, 200)],
      );
      if (inserted.rowCount === 0) return false;
      // One import at a time merges into the store: with two connections an import could
      // wait on another one's rows while that one waits on its own (a wait PostgreSQL cannot
      // see as a deadlock). The claim comes first, so a file imported twice at once still
      // waits on the claim, then finds it already imported.
      await client.query('select pg_advisory_xact_lock($1)', [INGEST_LOCK]);
      claimed = true;
      for (const b of heldBad.splice(0)) bad(b.line, b.reason, b.text);
      return true;
    };
    // Bad lines read before the claim are held: a file already imported reports none.
    const heldBad: BadLine[] = [];
    const bad = (line: number, reason: string, text: string) => {
      if (!claimed) {
        heldBad.push({ file: shown, line, reason, text: text.slice(0, 160) });
        return;
      }
      result.badLines++;
      report.add({ file: shown, line, reason, text });
    };
    const ctx: ParseContext = {
      stage,
      source,
      observedAt: o.observedAt ?? (shown === '-' ? new Date() : fs.statSync(file).mtime),
      good: () => {
        result.records++;
      },
      bad,
    };
    const parser = PARSERS[o.format](ctx);
    const lines = new LineSplitter(
      (text, lineNo) => {
        try {
          parser.line(text, lineNo);
        } catch (e) {
          if (!(e instanceof BadRecord)) throw e;
          bad(lineNo, e.message, text);
        }
      },
      (lineNo, head) => bad(lineNo, `line longer than ${MAX_LINE_BYTES} bytes`, head),
    );
    let alreadyImported = false;
    for await (const chunk of input.stream) {
      lines.push(chunk);
      progress(false);
      if (stage.full || heldBad.length >= MAX_HELD_BAD_LINES) {
        if (!(await claim())) {
          alreadyImported = true;
          break;
        }
        if (stage.full) await stage.flush();
      }
    }
    if (!alreadyImported) {
      lines.end();
      parser.end();
      alreadyImported = !(await claim());
    }
    if (alreadyImported) {
      await namesClient.query('rollback');
      await client.query('rollback');
      (input.stream as Readable).destroy?.();
      await db.destroy();
      return { ...emptyResult(shown, o.format), gzip: input.gzip, sha256: result.sha256, status: 'already imported', elapsedMs: Date.now() - started };
    }
    await stage.finish();
    result.staged = stage.counts;
    await client.query('update whois_ingest_files set rows = $2 where sha256 = $1', [result.sha256, result.records]);
    if (o.dryRun) {
      await namesClient.query('rollback');
      await client.query('rollback');
      result.status = 'dry run';
    } else {
      // Names first: if the file's own commit then fails, the file is not marked imported
      // and importing it again merges the same names to the same values.
      await namesClient.query('commit');
      await client.query('commit');
    }
    await db.destroy();
  } catch (e) {
    await namesClient?.query('rollback').catch(() => {});
    await client.query('rollback').catch(() => {});
    (input.stream as Readable).destroy?.();
    result.status = 'failed';
    result.error = e instanceof Error ? e.message : String(e);
  } finally {
    // After a failure the connection may be mid-COPY or broken: it is closed, not reused.
    client.release(result.status === 'failed');
    await namesClient?.end().catch(() => {});
  }
  result.elapsedMs = Date.now() - started;
  progress(true);
  return result;
}

/**
 * Imports `files` in `format` into the store behind `database` (a pool, or a connection
 * string: a pool of its own is opened and closed). A failed file (unreadable, a broken
 * gzip stream) is rolled back and reported; the others go on.
 */
export async function ingestWhoisFiles(database: pg.Pool | string, o: WhoisIngestOptions): Promise<WhoisIngestResult> {
  if (!(WHOIS_FORMATS as readonly string[]).includes(o.format)) throw new Error(`unknown format ${String(o.format)}`);
  const source = sourceName(o.format, o.source);
  const pool = typeof database === 'string' ? new pg.Pool({ connectionString: database, max: 2 }) : database;
  const report = new Report(o.reportPath ?? null);
  const started = Date.now();
  const files: WhoisFileResult[] = [];
  try {
    for (const file of o.files) {
      if (file === '-') {
        const spooled = await spoolStdin(o.stdin);
        try {
          files.push(await ingestOne(pool, spooled.file, '-', o, source, report));
        } finally {
          spooled.remove();
        }
      } else {
        files.push(await ingestOne(pool, file, file, o, source, report));
      }
    }
  } finally {
    report.close();
    if (typeof database === 'string') await pool.end();
  }
  return {
    files,
    records: files.reduce((n, f) => n + f.records, 0),
    badLines: report.count,
    badSamples: report.samples,
    reportPath: report.count > 0 ? report.path : null,
    elapsedMs: Date.now() - started,
  };
}

// ---------------------------------------------------------------------------
// The sample files (samples/whois): fictitious `.test` and `example.*` names.

export const SAMPLES_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../samples/whois');

export interface SampleFile {
  file: string;
  format: WhoisFormat;
  /** For files whose records carry no time (zone versions, subfinder). */
  observedAt?: string;
}

export const SAMPLE_FILES: readonly SampleFile[] = [
  { file: 'pdns.ndjson', format: 'pdns' },
  { file: 'rdap.ndjson', format: 'rdap' },
  { file: 'example.test.2025-05-01.zone', format: 'zone', observedAt: '2025-05-01T00:00:00Z' },
  { file: 'example.test.2026-05-01.zone', format: 'zone', observedAt: '2026-05-01T00:00:00Z' },
  { file: 'whoisxml.csv', format: 'whoisxml-csv' },
  { file: 'crtsh.json', format: 'crtsh' },
  { file: 'subfinder.jsonl', format: 'subfinder', observedAt: '2026-10-01T00:00:00Z' },
];

/** Imports every sample file with its format (what `npm run whois-ingest -- --samples` does). */
export async function ingestSamples(database: pg.Pool | string, options: Pick<WhoisIngestOptions, 'onProgress' | 'reportPath' | 'dryRun'> = {}): Promise<WhoisIngestResult[]> {
  const results: WhoisIngestResult[] = [];
  for (const sample of SAMPLE_FILES) {
    results.push(
      await ingestWhoisFiles(database, {
        ...options,
        format: sample.format,
        files: [path.join(SAMPLES_DIR, sample.file)],
        source: `sample:${sample.format}`,
        observedAt: sample.observedAt ? new Date(sample.observedAt) : undefined,
      }),
    );
  }
  return results;
}
