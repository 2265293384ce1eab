// Operator CLI: ingest breach files into the search index as one new segment (a data well
// ingest), then record it in the catalogue (PostgreSQL).
//
//   npm run ingest -- --well NAME [--format auto|jsonl|json-array|csv|combo|sql] [--date YYYY-MM-DD]
//        [--description TEXT] [--sensitive] [--map col=field[,col=field…]] [--table NAME]…
//        [--dry-run] [--report FILE] [--index-dir DIR] [--no-catalogue] FILE...
//   npm run ingest -- --samples [--index-dir DIR] [--no-catalogue]
//        (the fictitious sample wells of samples/breaches, scripts/lib/ingest-samples.ts)
//
// The formats are detected from the content (docs/ingest.md). `--dry-run` prints what
// would be ingested (formats, column mappings, ten records per file or table) and
// publishes nothing.
//
// Works whether or not the server runs: the segment is published by an atomic manifest
// swap, and a running server picks it up within a second.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { UsageError, duration, humanBytes, progressWriter } from './lib/cli';
import { describeSample, ingestSamples, type SampleIngestSteps } from './lib/ingest-samples';
import {
  FIELD_NAMES,
  type FieldName,
  type IngestColumn,
  type IngestFileSummary,
  type IngestFormat,
  type IngestProgress,
  type IngestResult,
  ingestFiles,
  mergeIndex,
  readWellEdits,
} from '../engine/index';

const USAGE = `usage: npm run ingest -- --well NAME [--format auto|jsonl|json-array|csv|combo|sql] [--date YYYY-MM-DD]
       [--description TEXT] [--sensitive] [--map col=field[,col=field...]] [--table NAME]...
       [--dry-run] [--report FILE] [--index-dir DIR] [--part-records N] [--max-segments N] [--merge]
       [--no-catalogue] FILE|DIR...
       npm run ingest -- --merge [--index-dir DIR]    (merge every segment into one)
       npm run ingest -- --samples [--index-dir DIR] [--no-catalogue]
           (the fictitious sample wells of samples/breaches, one ingest per well; a well already there is skipped)
FILE: plain, gzip, xz, bzip2 or zstd, or a zip or tar archive (recognised by content; docs/ingest-archives.md)
DIR: every file below it, in name order, dot files left out
--dry-run: print each file's (and SQL table's) format, column mapping and ten records; publish nothing
--table NAME: SQL dumps: ingest only this table (repeatable; default: every table with a mapped column)
--max-segments N: merge after the ingest when the index has more than N segments (default 8, 0: never)
--merge: after the ingest (or alone), merge every segment into one
fields: ${FIELD_NAMES.join(', ')}`;

export interface IngestCliOptions {
  well: string;
  files: string[];
  format: IngestFormat;
  date: string | null;
  description: string;
  sensitive: boolean;
  map: Record<string, FieldName>;
  report?: string;
  indexDir?: string;
  partRecords?: number;
  maxSegments?: number;
  /** Merge every segment after the ingest; with no well and no file, only merge. */
  merge: boolean;
  catalogue: boolean;
  /** Parse and print what would be ingested; publish nothing. */
  dryRun?: boolean;
  /** SQL dumps: only these tables. */
  tables?: string[];
  /** Ingest the sample wells of samples/breaches (no well, no file). */
  samples?: boolean;
}

/** What `--samples` may come with: where to ingest, and whether to record the catalogue. */
const SAMPLES_OPTIONS = new Set(['samples', 'index-dir', 'no-catalogue', 'help']);

export function parseIngestArgs(argv: string[]): IngestCliOptions {
  const { values, positionals, tokens } = parseArgs({
    args: argv,
    allowPositionals: true,
    tokens: true,
    options: {
      well: { type: 'string' },
      format: { type: 'string', default: 'auto' },
      date: { type: 'string' },
      description: { type: 'string', default: '' },
      sensitive: { type: 'boolean', default: false },
      map: { type: 'string', multiple: true },
      report: { type: 'string' },
      'index-dir': { type: 'string' },
      'part-records': { type: 'string' },
      'max-segments': { type: 'string' },
      merge: { type: 'boolean', default: false },
      'no-catalogue': { type: 'boolean', default: false },
      'dry-run': { type: 'boolean', default: false },
      table: { type: 'string', multiple: true },
      samples: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) throw new UsageError('');
  if (values.samples) {
    const other = tokens.find((t) => t.kind === 'option' && !SAMPLES_OPTIONS.has(t.name));
    if (positionals.length > 0 || other) {
      const what = other?.kind === 'option' ? `--${other.name}` : 'FILE';
      throw new UsageError(`--samples takes no ${what}: each sample well's name, date, description and mapping come from samples/breaches/wells.json`);
    }
    return { well: '', files: [], format: 'auto', date: null, description: '', sensitive: false, map: {}, indexDir: values['index-dir'], merge: false, catalogue: !values['no-catalogue'], dryRun: false, tables: [], samples: true };
  }
  const maxSegments = values['max-segments'] !== undefined ? Number(values['max-segments']) : undefined;
  if (maxSegments !== undefined && !(Number.isInteger(maxSegments) && maxSegments >= 0)) throw new UsageError('--max-segments must be a whole number');
  if (values.merge && !values.well && positionals.length === 0) {
    return { well: '', files: [], format: 'auto', date: null, description: '', sensitive: false, map: {}, indexDir: values['index-dir'], merge: true, catalogue: !values['no-catalogue'], dryRun: false, tables: [] };
  }
  if (!values.well?.trim()) throw new UsageError('--well NAME is required');
  if (positionals.length === 0) throw new UsageError('no input FILE given');
  const format = values.format as IngestFormat;
  if (!['auto', 'jsonl', 'json-array', 'csv', 'combo', 'sql'].includes(format)) throw new UsageError(`--format must be auto, jsonl, json-array, csv, combo or sql`);
  if (values.date !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(values.date)) throw new UsageError('--date must be YYYY-MM-DD');
  const map: Record<string, FieldName> = {};
  for (const item of (values.map ?? []).flatMap((m) => m.split(','))) {
    const [col, field] = item.split('=').map((s) => s.trim());
    if (!col || !field || !(FIELD_NAMES as readonly string[]).includes(field)) throw new UsageError(`--map ${item}: expected column=field with a known field`);
    map[col] = field as FieldName;
  }
  const partRecords = values['part-records'] ? Number(values['part-records']) : undefined;
  return {
    well: values.well.trim(),
    files: positionals,
    format,
    date: values.date ?? null,
    description: values.description ?? '',
    sensitive: values.sensitive ?? false,
    map,
    report: values.report,
    indexDir: values['index-dir'],
    partRecords,
    maxSegments,
    merge: values.merge ?? false,
    catalogue: !values['no-catalogue'],
    dryRun: values['dry-run'] ?? false,
    tables: (values.table ?? []).flatMap((t) => t.split(',')).map((t) => t.trim()).filter((t) => t !== ''),
  };
}

/** A progress bar on a terminal, a plain line every few seconds otherwise. */
export function progressReporter(out: NodeJS.WriteStream = process.stderr): (p: IngestProgress) => void {
  const start = Date.now();
  const write = progressWriter(out, 'ingest');
  return (p) => {
    const secs = (Date.now() - start) / 1000;
    const rate = secs > 0 ? p.records / secs : 0;
    const frac = p.bytesTotal > 0 ? Math.min(1, p.bytesRead / p.bytesTotal) : 0;
    const eta = frac > 0 ? secs / frac - secs : NaN;
    write(frac, `${p.records.toLocaleString('en-US')} records  ${Math.round(rate).toLocaleString('en-US')} rec/s  ${humanBytes(p.bytesRead)}/${humanBytes(p.bytesTotal)}  bad ${p.badLines}  ETA ${duration(eta)}`, p.done);
  };
}

export async function resolveIndexDir(explicit?: string): Promise<string> {
  if (explicit) return explicit;
  const { loadConfig } = await import('../server/src/config');
  return loadConfig().indexDir;
}

interface SegmentMeta {
  id: string;
  well: string;
  records: number;
  fields: string[];
  catalogue?: { date?: string | null; description?: string; sensitive?: boolean };
  /** A merged segment: the ingests it holds (each with the metadata above). */
  sources?: SegmentMeta[];
}

/** Every published segment's metadata, in manifest order. */
export function publishedSegments(indexDir: string): SegmentMeta[] {
  let manifest: { segments: { id: string }[] };
  try {
    manifest = JSON.parse(readFileSync(join(indexDir, 'MANIFEST'), 'utf8')) as typeof manifest;
  } catch {
    return [];
  }
  // A merged segment lists the ingests it holds: the catalogue knows those (one per well).
  // The operators' edits apply: a taken-down ingest is not replayed (its well stays
  // deleted), a renamed one is replayed under its new name (wells.log, engine/FORMAT.md).
  const edits = readWellEdits(indexDir);
  return manifest.segments.flatMap((s) => {
    const meta = JSON.parse(readFileSync(join(indexDir, `seg-${s.id}`, 'segment.json'), 'utf8')) as SegmentMeta;
    return (meta.sources ?? [meta]).filter((m) => !edits.deleted.has(m.id)).map((m) => ({ ...m, well: edits.renamed.get(m.id) ?? m.well }));
  });
}

/**
 * Record segments in the catalogue and for monitoring. Upserts are idempotent per segment
 * id, so replaying every published segment also repairs a catalogue update lost to a crash.
 * `stealerLog`: the segment this ingest published, when its reply showed a stealer log
 * (isStealerLogIngest); only the ingest's reply tells it, so a segment recorded later by a
 * replay marks nothing.
 */
export async function syncCatalogue(indexDir: string, stealerLog?: string): Promise<number> {
  const segments = publishedSegments(indexDir);
  if (segments.length === 0) return 0;
  const { withDatabase } = await import('../server/src/db/cli-database');
  const { recordIngest } = await import('../server/src/datawells/ingests-service');
  await withDatabase(async (db) => {
    for (const s of segments) {
      await db.transaction().execute((trx) =>
        recordIngest(trx, {
          name: s.well,
          date: s.catalogue?.date ?? null,
          description: s.catalogue?.description ?? '',
          recordCount: s.records,
          dataTypes: s.fields,
          isSensitive: s.catalogue?.sensitive ?? false,
          isStealerLog: s.id === stealerLog,
          segmentId: s.id,
        }),
      );
    }
  });
  return segments.length;
}

export async function runIngest(o: IngestCliOptions, onProgress?: (p: IngestProgress) => void): Promise<IngestResult> {
  const indexDir = await resolveIndexDir(o.indexDir);
  const result = await ingestFiles(
    indexDir,
    {
      well: o.well,
      files: o.files,
      format: o.format,
      map: o.map,
      reportPath: o.report,
      partRecords: o.partRecords,
      maxSegments: o.maxSegments,
      catalogue: { date: o.date, description: o.description, sensitive: o.sensitive },
      dryRun: o.dryRun,
      tables: o.tables,
    },
    onProgress,
  );
  if (o.dryRun) return result;
  if (o.merge) result.merge = await mergeIndex(indexDir, { all: true });
  if (o.catalogue) {
    try {
      const { isStealerLogIngest } = await import('../server/src/datawells/ingests-service');
      await syncCatalogue(indexDir, result.segmentId && isStealerLogIngest(result.files) ? result.segmentId : undefined);
    } catch (e) {
      const why = e instanceof Error && e.message ? e.message : String(e);
      throw new Error(
        `segment ${result.segmentId ?? '(none)'} is published and searchable, but recording it in the catalogue failed: ${why} ` +
          '(the next ingest that reaches the database records it: every published segment is replayed)',
        { cause: e },
      );
    }
  }
  return result;
}

function mapping(columns: (IngestColumn | string)[]): string {
  return columns.map((c) => (typeof c === 'string' ? c : `${c.column} -> ${c.field ?? '-'}`)).join(', ');
}

/** The dry run's report: per file (and SQL table) the format, the mapping and the samples. */
export function formatDryRun(r: IngestResult): string {
  const out: string[] = [`dry run: nothing published; ${r.records.toLocaleString('en-US')} records would be ingested, ${r.badLines} bad lines`];
  const samples = (list: IngestFileSummary['samples'], indent: string) => {
    for (const s of list ?? []) out.push(`${indent}${JSON.stringify(s)}`);
  };
  for (const f of r.files) {
    out.push('', `${f.path}: ${f.format}${f.gzip ? ' (gzip)' : ''}${f.delimiter ? `, delimiter ${JSON.stringify(f.delimiter)}` : ''}: ${f.records} records, ${f.badLines} bad${f.error ? `; stopped: ${f.error}` : ''}`);
    if (f.columns) out.push(`  columns: ${mapping(f.columns)}`);
    if (f.unmapped?.length) out.push(`  unmapped columns: ${f.unmapped.join(', ')}`);
    samples(f.samples, '  ');
    for (const t of f.tables ?? []) {
      if (t.skipped) {
        out.push(`  table ${t.name}: skipped, ${t.skipped} (${t.rows} rows; columns: ${mapping(t.columns)})`);
        continue;
      }
      out.push(`  table ${t.name}: ${t.records} records of ${t.rows} rows, ${t.badLines} bad`, `    columns: ${mapping(t.columns)}`);
      if (t.unmapped?.length) out.push(`    unmapped columns: ${t.unmapped.join(', ')}`);
      samples(t.samples, '    ');
    }
    for (const b of f.badLineNumbers ?? []) out.push(`  bad line ${b.line}: ${b.reason}`);
  }
  return out.join('\n');
}

/** What `ingestSamples` takes from this command (scripts/lib/ingest-samples.ts). */
export const SAMPLE_STEPS: SampleIngestSteps = {
  resolveIndexDir,
  publishedWells: (indexDir) => publishedSegments(indexDir).map((s) => s.well),
  ingest: (argv, onProgress) => runIngest(parseIngestArgs(argv), onProgress),
};

/** `--samples`: every sample well not there yet, one line per well, then the totals. */
async function ingestSampleWells(opts: IngestCliOptions): Promise<void> {
  const { ingested, skipped } = await ingestSamples({
    steps: SAMPLE_STEPS,
    indexDir: opts.indexDir,
    catalogue: opts.catalogue,
    onWell: (well, result) => console.log(describeSample(well, result, opts.catalogue)),
    onProgress: () => progressReporter(),
  });
  const records = ingested.reduce((n, i) => n + i.result.records, 0);
  console.log(`samples: ${ingested.length} wells ingested (${records.toLocaleString('en-US')} records), ${skipped.length} already there`);
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  if (argv.length === 1 && (argv[0] === '--help' || argv[0] === '-h')) {
    console.log(USAGE);
    return;
  }
  let opts: IngestCliOptions;
  try {
    opts = parseIngestArgs(argv);
  } catch (e) {
    if (e instanceof UsageError || (e as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      if (e instanceof Error && e.message) console.error(`ingest: ${e.message}`);
      console.error(USAGE);
      process.exit(2);
    }
    throw e;
  }
  if (opts.samples) {
    await ingestSampleWells(opts);
    return;
  }
  if (opts.merge && opts.files.length === 0) {
    const m = await mergeIndex(await resolveIndexDir(opts.indexDir), { all: true });
    console.log(m.segmentId ? `merged ${m.merged.length} segments into ${m.segmentId}: ${m.records.toLocaleString('en-US')} records, ${m.parts} parts, in ${(m.elapsedMs / 1000).toFixed(1)} s` : `nothing to merge (${m.segments} segment${m.segments === 1 ? '' : 's'})`);
    return;
  }
  const r = await runIngest(opts, progressReporter());
  if (opts.dryRun) {
    console.log(formatDryRun(r));
    return;
  }
  const lines = [
    `well:        ${r.well}`,
    `segment:     ${r.segmentId ?? '(none: no record ingested)'}`,
    `records:     ${r.records.toLocaleString('en-US')} in ${(r.elapsedMs / 1000).toFixed(1)} s (${Math.round(r.records / Math.max(r.elapsedMs / 1000, 0.001)).toLocaleString('en-US')} rec/s)`,
    `data types:  ${r.fields.join(', ') || '-'}`,
    `bad lines:   ${r.badLines}${r.reportPath ? ` (report: ${r.reportPath})` : ''}`,
    ...(r.merge ? [r.merge.error !== undefined ? `merge:       failed: ${r.merge.error}` : `merge:       ${r.merge.merged.length} segments into ${r.merge.segmentId} (${(r.merge.elapsedMs / 1000).toFixed(1)} s)`] : []),
    ...r.files.flatMap((f) => [
      `  ${f.path}: ${f.format}${f.compression ? ` (${f.compression})` : ''}${f.reason ? ` (${f.reason})` : ''}, ${f.records} records, ${f.badLines} bad${f.error ? `; stopped: ${f.error}` : ''}`,
      ...(f.tables ?? []).filter((t) => !t.skipped).map((t) => `    table ${t.name}: ${t.records} records, ${t.badLines} bad`),
      ...(f.skippedTables?.length ? [`    skipped tables: ${f.skippedTables.map((t) => `${t.name} (${t.reason})`).join(', ')}`] : []),
      ...(f.unmapped?.length ? [`    unmapped columns: ${f.unmapped.join(', ')}`] : []),
      ...(f.badLineNumbers?.length ? [`    bad lines: ${f.badLineNumbers.map((b) => `${b.line} (${b.reason})`).join('; ')}${f.badLines > f.badLineNumbers.length ? '; …' : ''}`] : []),
    ]),
  ];
  console.log(lines.join('\n'));
  if (r.records === 0) process.exit(1);
}

/** Runs the command on process.argv (the built command's entry, scripts/lib/ingest-launch.ts, calls it). */
export function runCli(): void {
  main().catch((e: unknown) => {
    console.error(`ingest: ${e instanceof Error ? e.message : String(e)}`);
    process.exit(1);
  });
}

const isMain = process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;
if (isMain) runCli();
