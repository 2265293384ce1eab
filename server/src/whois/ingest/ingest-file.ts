/**
 * One file's import (whois-ingest-service.ts): one transaction, and one beside it for the
 * names seen, committed just before it (stage.ts). Its sha256 is claimed in
 * `whois_ingest_files` before anything is merged (a file already imported, or being imported
 * by another process, changes nothing; the hash is computed while the first batch is
 * parsed); its records are parsed line by line with bounded memory, staged with COPY and
 * merged batch by batch; bad records are counted, reported with their line numbers and
 * skipped.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Database } from '../../db/schema';
import { BadRecord, type ParseContext, type RecordParser } from './formats/common';
import { crtshParser, subfinderParser } from './formats/names';
import { pdnsParser } from './formats/pdns';
import { rdapParser, whoisxmlCsvParser } from './formats/snapshots';
import { zoneParser } from './formats/zone';
import { LineSplitter, MAX_LINE_BYTES, openInput, sha256OfFile, type OpenedInput } from './input';
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

/** A Kysely instance over one client, so typed statements (snapshots.ts) run in its transaction. */
function kyselyOn(client: pg.PoolClient): Kysely<Database> {
  const borrowed = {
    query: client.query.bind(client),
    release() {},
  } as unknown as pg.PoolClient;
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool: { connect: async () => borrowed, end: async () => {} } }) });
}

/** The bad lines of an import: counted, the first kept for the summary, all written to --report FILE. */
export class Report {
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

/** Bad lines and the claim of one file's sha256, which comes before anything is merged. */
class FileClaim {
  private claimed = false;
  /** Bad lines read before the claim are held: a file already imported reports none. */
  private readonly held: BadLine[] = [];

  constructor(
    private readonly file: { client: pg.PoolClient; hashing: Promise<string>; shown: string; format: WhoisFormat },
    private readonly result: WhoisFileResult,
    private readonly report: Report,
  ) {}

  get heldLines(): number {
    return this.held.length;
  }

  readonly bad = (line: number, reason: string, text: string): void => {
    if (!this.claimed) {
      this.held.push({ file: this.file.shown, line, reason, text: text.slice(0, 160) });
      return;
    }
    this.result.badLines++;
    this.report.add({ file: this.file.shown, line, reason, text });
  };

  /** Claims the file's sha256 before the first merge; false when it was already imported. */
  async claim(): Promise<boolean> {
    if (this.claimed) return true;
    const { client, shown } = this.file;
    this.result.sha256 = await this.file.hashing;
    const inserted = await client.query(
      `insert into whois_ingest_files (sha256, format, name, rows) values ($1, $2, $3, 0) on conflict (sha256) do nothing returning sha256`,
      [this.result.sha256, this.file.format, path.basename(shown).slice(0, 200)],
    );
    if (inserted.rowCount === 0) return false;
    // One import at a time merges into the store: with two connections an import could
    // wait on another one's rows while that one waits on its own (a wait PostgreSQL cannot
    // see as a deadlock). The claim comes first, so a file imported twice at once still
    // waits on the claim, then finds it already imported.
    await client.query('select pg_advisory_xact_lock($1)', [INGEST_LOCK]);
    this.claimed = true;
    for (const b of this.held.splice(0)) this.bad(b.line, b.reason, b.text);
    return true;
  }
}

/** The file's connection, and the names merge's (stage.ts), once opened. */
interface Connections {
  client: pg.PoolClient;
  names: pg.Client | null;
}

/** Begins both transactions. The names merge runs on a connection of its own, outside the pool, so a pool of one connection still works. */
async function begin(pool: pg.Pool, conn: Connections): Promise<pg.Client> {
  // Staging tables live in local buffers: larger ones keep a batch off the disk. Settable
  // only before the session touches a temporary table (a reused connection keeps its own).
  await conn.client.query(`set temp_buffers = '256MB'`).catch(() => {});
  await conn.client.query('begin');
  const names = (conn.names = new pg.Client(pool.options));
  names.on('error', () => {}); // a broken connection fails its next query
  await names.connect();
  await names.query(`set temp_buffers = '256MB'`);
  await names.query('begin');
  return names;
}

/** Reads the file through its parser into the stage, merging full batches once claimed; false when it was imported already. */
async function readFile(input: OpenedInput, parser: RecordParser, stage: Stage, claim: FileClaim, progress: (done: boolean) => void): Promise<boolean> {
  const lines = new LineSplitter(
    (text, lineNo) => {
      try {
        parser.line(text, lineNo);
      } catch (e) {
        if (!(e instanceof BadRecord)) throw e;
        claim.bad(lineNo, e.message, text);
      }
    },
    (lineNo, head) => claim.bad(lineNo, `line longer than ${MAX_LINE_BYTES} bytes`, head),
  );
  for await (const chunk of input.stream) {
    lines.push(chunk);
    progress(false);
    if (stage.full || claim.heldLines >= MAX_HELD_BAD_LINES) {
      if (!(await claim.claim())) return false;
      if (stage.full) await stage.flush();
    }
  }
  lines.end();
  parser.end();
  return claim.claim();
}

/** What one file's import works with. */
interface FileJob {
  file: string;
  shown: string;
  options: WhoisIngestOptions;
  source: string;
  report: Report;
  started: number;
  input: OpenedInput;
  hashing: Promise<string>;
  result: WhoisFileResult;
  progress: (done: boolean) => void;
}

/** Commits both transactions (names first), or rolls both back for a dry run. */
async function settle(conn: Connections, names: pg.Client, job: FileJob): Promise<void> {
  if (job.options.dryRun) {
    await names.query('rollback');
    await conn.client.query('rollback');
    job.result.status = 'dry run';
    return;
  }
  // Names first: if the file's own commit then fails, the file is not marked imported
  // and importing it again merges the same names to the same values.
  await names.query('commit');
  await conn.client.query('commit');
}

/** The file's import in its transactions; the result of a file imported already, else null (job.result holds it). */
async function importFile(pool: pg.Pool, conn: Connections, job: FileJob): Promise<WhoisFileResult | null> {
  const { file, shown, options: o, result, input } = job;
  const names = await begin(pool, conn);
  const db = kyselyOn(conn.client);
  const stage = await Stage.open(conn.client, db, job.source, names);
  const claim = new FileClaim({ client: conn.client, hashing: job.hashing, shown, format: o.format }, result, job.report);
  const ctx: ParseContext = {
    stage,
    source: job.source,
    observedAt: o.observedAt ?? (shown === '-' ? new Date() : fs.statSync(file).mtime),
    good: () => {
      result.records++;
    },
    bad: claim.bad,
  };
  if (!(await readFile(input, PARSERS[o.format](ctx), stage, claim, job.progress))) {
    await names.query('rollback');
    await conn.client.query('rollback');
    (input.stream as Readable).destroy?.();
    await db.destroy();
    return { ...emptyResult(shown, o.format), gzip: input.gzip, sha256: result.sha256, status: 'already imported', elapsedMs: Date.now() - job.started };
  }
  await stage.finish();
  result.staged = stage.counts;
  await conn.client.query('update whois_ingest_files set rows = $2 where sha256 = $1', [result.sha256, result.records]);
  await settle(conn, names, job);
  await db.destroy();
  return null;
}

/** Imports one file (`shown` is how it is named: `-` for standard input); a failure is rolled back and reported in the result. */
export async function ingestOne(pool: pg.Pool, file: string, shown: string, o: WhoisIngestOptions, source: string, report: Report): Promise<WhoisFileResult> {
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
  hashing.catch(() => {}); // awaited by the claim; a failure surfaces there
  const result: WhoisFileResult = { ...emptyResult(shown, o.format), gzip: input.gzip };
  const progress = (done: boolean) =>
    o.onProgress?.({ file: shown, bytesRead: input.bytesRead(), bytesTotal: input.bytesTotal, records: result.records, badLines: result.badLines, done });
  const conn: Connections = { client: await pool.connect(), names: null };
  try {
    const already = await importFile(pool, conn, { file, shown, options: o, source, report, started, input, hashing, result, progress });
    if (already) return already;
  } catch (e) {
    await conn.names?.query('rollback').catch(() => {});
    await conn.client.query('rollback').catch(() => {});
    (input.stream as Readable).destroy?.();
    result.status = 'failed';
    result.error = e instanceof Error ? e.message : String(e);
  } finally {
    // After a failure the connection may be mid-COPY or broken: it is closed, not reused.
    conn.client.release(result.status === 'failed');
    await conn.names?.end().catch(() => {});
  }
  result.elapsedMs = Date.now() - started;
  progress(true);
  return result;
}
