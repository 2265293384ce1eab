/**
 * The WHOIS ingest (`npm run whois-ingest`, scripts/whois-ingest.ts): imports WHOIS and DNS
 * data files into the local store (migration 0006) in the format given, one file at a time
 * (ingest-file.ts: each file one transaction, claimed by its sha256 before anything is
 * merged, so importing a file again changes nothing); the sample files of samples/whois.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { WHOIS_FORMATS, Report, ingestOne, type BadLine, type WhoisFileResult, type WhoisFormat, type WhoisIngestOptions } from './ingest-file';
import { spoolStdin } from './input';

export { WHOIS_FORMATS, type BadLine, type FileStatus, type WhoisFileResult, type WhoisFormat, type WhoisIngestOptions, type WhoisIngestProgress } from './ingest-file';

const MAX_SOURCE_LENGTH = 64;

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

export const SAMPLES_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../samples/whois');

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
