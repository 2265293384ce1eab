// Operator CLI: import WHOIS and DNS data into the local WHOIS store (migration 0006), which
// answers WHOIS history, reverse WHOIS, reverse IP/MX/NS and subdomain scans.
//
//   npm run whois-ingest -- --format pdns|rdap|zone|whoisxml-csv|crtsh|subfinder
//        [--source NAME] [--observed-at ISO] [--report FILE] [--dry-run] FILE...
//   npm run whois-ingest -- --samples      (the fictitious sample files of samples/whois)
//
// Works whether or not the server runs (server/src/db/cli-database.ts).

import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import pg from 'pg';
import { withDatabase } from '../server/src/db/cli-database';
import { UsageError, humanBytes, progressWriter } from './lib/cli';
import { USAGE } from './lib/whois-ingest-usage';
import { embeddedConnectionString } from '../server/src/infra/embedded-postgres';
import {
  WHOIS_FORMATS,
  ingestSamples,
  ingestWhoisFiles,
  sourceName,
  type WhoisFormat,
  type WhoisIngestProgress,
  type WhoisIngestResult,
} from '../server/src/whois/ingest/whois-ingest-service';



export interface WhoisIngestCliOptions {
  samples: boolean;
  format: WhoisFormat;
  files: string[];
  source?: string;
  observedAt?: Date;
  report?: string;
  dryRun: boolean;
}

export function parseWhoisIngestArgs(argv: string[]): WhoisIngestCliOptions {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      format: { type: 'string' },
      source: { type: 'string' },
      'observed-at': { type: 'string' },
      report: { type: 'string' },
      'dry-run': { type: 'boolean', default: false },
      samples: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) throw new UsageError('');
  if (values.samples) {
    if (positionals.length > 0 || values.format) throw new UsageError('--samples takes no --format and no FILE');
    return { samples: true, format: 'pdns', files: [], dryRun: values['dry-run'] ?? false, report: values.report };
  }
  if (!values.format) throw new UsageError('--format is required');
  if (!(WHOIS_FORMATS as readonly string[]).includes(values.format)) throw new UsageError(`--format must be one of ${WHOIS_FORMATS.join(', ')}`);
  const format = values.format as WhoisFormat;
  if (positionals.length === 0) throw new UsageError('no input FILE given (- for standard input)');
  if (positionals.filter((f) => f === '-').length > 1) throw new UsageError('standard input (-) can be given once');
  let observedAt: Date | undefined;
  if (values['observed-at'] !== undefined) {
    const ms = Date.parse(values['observed-at']);
    if (!/^\d{4}-\d\d-\d\d/.test(values['observed-at']) || Number.isNaN(ms)) throw new UsageError('--observed-at must be an ISO 8601 date or time');
    observedAt = new Date(ms);
  }
  try {
    sourceName(format, values.source);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  return { samples: false, format, files: positionals, source: values.source, observedAt, report: values.report, dryRun: values['dry-run'] ?? false };
}

/** A progress bar on a terminal, a plain line every few seconds otherwise (stderr). */
export function progressReporter(out: NodeJS.WriteStream = process.stderr): (p: WhoisIngestProgress) => void {
  let start = Date.now();
  let file = '';
  const write = progressWriter(out, 'whois-ingest');
  return (p) => {
    if (p.file !== file) {
      file = p.file;
      start = Date.now();
    }
    const secs = (Date.now() - start) / 1000;
    const rate = secs > 0 ? p.records / secs : 0;
    const frac = p.bytesTotal > 0 ? Math.min(1, p.bytesRead / p.bytesTotal) : 0;
    write(frac, `${p.file}: ${p.records.toLocaleString('en-US')} records  ${Math.round(rate).toLocaleString('en-US')}/s  ${humanBytes(p.bytesRead)}/${humanBytes(p.bytesTotal)}  bad ${p.badLines}`, p.done);
  };
}

export function summary(result: WhoisIngestResult): string {
  const lines: string[] = [];
  for (const f of result.files) {
    const rate = f.records / Math.max(f.elapsedMs / 1000, 0.001);
    const staged = [
      f.staged.pdns ? `${f.staged.pdns.toLocaleString('en-US')} passive DNS rows` : '',
      f.staged.names ? `${f.staged.names.toLocaleString('en-US')} names` : '',
      f.staged.snapshots ? `${f.staged.snapshots.toLocaleString('en-US')} WHOIS records` : '',
    ].filter(Boolean);
    const what =
      f.status === 'already imported'
        ? 'already imported (same sha256): nothing changed'
        : f.status === 'failed'
          ? `failed, nothing kept from it: ${f.error}`
          : `${f.status}: ${f.records.toLocaleString('en-US')} records (${staged.join(', ') || 'nothing to keep'}), ${f.badLines} bad, ` +
            `${(f.elapsedMs / 1000).toFixed(1)} s, ${Math.round(rate).toLocaleString('en-US')} records/s`;
    const shown = path.isAbsolute(f.path) && !path.relative(process.cwd(), f.path).startsWith('..') ? path.relative(process.cwd(), f.path) : f.path;
    lines.push(`${shown} [${f.format}${f.gzip ? ', gzip' : ''}]: ${what}`);
  }
  lines.push(`total: ${result.records.toLocaleString('en-US')} records, ${result.badLines} bad lines, ${(result.elapsedMs / 1000).toFixed(1)} s`);
  if (result.badLines > 0) {
    lines.push('bad lines:');
    for (const b of result.badSamples) lines.push(`  ${b.file}:${b.line}: ${b.reason}: ${JSON.stringify(b.text)}`);
    if (result.badLines > result.badSamples.length) lines.push(`  … ${result.badLines - result.badSamples.length} more${result.reportPath ? '' : ' (--report FILE lists them all)'}`);
    if (result.reportPath) lines.push(`report: ${result.reportPath}`);
  }
  return lines.join('\n');
}

/** One result for several imports (--samples imports each sample file with its format). */
export function combined(results: WhoisIngestResult[]): WhoisIngestResult {
  return {
    files: results.flatMap((r) => r.files),
    records: results.reduce((n, r) => n + r.records, 0),
    badLines: results.reduce((n, r) => n + r.badLines, 0),
    badSamples: results.flatMap((r) => r.badSamples).slice(0, 20),
    reportPath: results.find((r) => r.reportPath)?.reportPath ?? null,
    elapsedMs: results.reduce((n, r) => n + r.elapsedMs, 0),
  };
}

/** A pool on the database the CLI opened: DATABASE_URL, or the embedded server on the port it really runs on. */
async function poolOn(db: Parameters<Parameters<typeof withDatabase>[0]>[0], databaseUrl: string | undefined, dataDir: string): Promise<pg.Pool> {
  if (databaseUrl) return new pg.Pool({ connectionString: databaseUrl, max: 2 });
  const { rows } = await sql<{ port: number }>`select inet_server_port() as port`.execute(db);
  return new pg.Pool({ connectionString: embeddedConnectionString(dataDir, Number(rows[0]!.port)), max: 2 });
}

async function main(): Promise<void> {
  let opts: WhoisIngestCliOptions;
  try {
    opts = parseWhoisIngestArgs(process.argv.slice(2));
  } catch (e) {
    if (e instanceof UsageError && e.message === '') {
      console.log(USAGE); // --help
      process.exit(0);
    }
    if (e instanceof UsageError || (e as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      console.error(`whois-ingest: ${(e as Error).message}`);
      console.error(USAGE);
      process.exit(2);
    }
    throw e;
  }
  const results = await withDatabase(async (db, config) => {
    const pool = await poolOn(db, config.DATABASE_URL, config.dataDir);
    try {
      const onProgress = progressReporter();
      if (opts.samples) return await ingestSamples(pool, { onProgress, reportPath: opts.report, dryRun: opts.dryRun });
      return [
        await ingestWhoisFiles(pool, {
          format: opts.format,
          files: opts.files,
          source: opts.source,
          observedAt: opts.observedAt,
          reportPath: opts.report,
          dryRun: opts.dryRun,
          onProgress,
        }),
      ];
    } finally {
      await pool.end();
    }
  });
  console.log(summary(combined(results)));
  if (results.some((r) => r.files.some((f) => f.status === 'failed'))) process.exit(1);
}

/** Runs the command on process.argv (the compiled command's entry, scripts/lib/whois-ingest-launch.ts, calls it). */
export function runCli(): void {
  main().catch((e: unknown) => {
    console.error(`whois-ingest: ${e instanceof Error ? e.message : String(e)}`);
    process.exit(1);
  });
}

const isMain = process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;
if (isMain) runCli();
