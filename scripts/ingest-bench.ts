// Ingest end to end: FILES breach files ingested as an operator does, one `npm run ingest`
// process per file (one data well each), against PostgreSQL loading the same rows with COPY
// and building the indexes a DBA would add for the same searches (those of `npm run bench`).
// Prints both times and their ratio, and the start-up of one `npm run ingest` call.
//
//   npm run bench:ingest -- [--records 1000000] [--files 12] [--seed 1] [--dir ./data/ingest-bench]
//        [--pg-url postgres://postgres@127.0.0.1:5432/postgres]
//
// The ingests run with --no-catalogue (the index only: no application database is touched);
// each runs the automatic merge when the index passes 8 segments, as an operator's would.
// The PostgreSQL table (ingest_bench_records) is dropped at the end.

import { spawnSync } from 'node:child_process';
import { createReadStream, createWriteStream, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { once } from 'node:events';
import { pipeline } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import pg from 'pg';
import pgCopy from 'pg-copy-streams';
import { FLAT_COLUMNS, generateCorpus, type CorpusInfo } from './corpus';

const { values: args } = parseArgs({
  options: {
    records: { type: 'string', default: '1000000' },
    files: { type: 'string', default: '12' },
    seed: { type: 'string', default: '1' },
    dir: { type: 'string', default: './data/ingest-bench' },
    'pg-url': { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/postgres' },
  },
});
const N = Number(args.records);
const FILES = Number(args.files);
if (!Number.isInteger(N) || N < FILES || !Number.isInteger(FILES) || FILES < 1 || FILES > 1000) {
  console.error('usage: npm run bench:ingest -- [--records N] [--files 1..1000] [--seed S] [--dir DIR] [--pg-url URL]');
  process.exit(2);
}
const dir = resolve(args.dir, `${N}-${args.seed}-${FILES}`);
const log = (s: string) => console.error(s);
const secs = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

/** The corpus's flat rows split into FILES JSONL files (and FILES TSV files for COPY), made once. */
async function prepareFiles(): Promise<{ jsonl: string[]; tsv: string[] }> {
  const jsonl = Array.from({ length: FILES }, (_, i) => join(dir, `part-${String(i + 1).padStart(3, '0')}.jsonl`));
  const tsv = jsonl.map((file) => file.replace(/\.jsonl$/, '.tsv'));
  const done = join(dir, 'files.done');
  if (existsSync(done)) return { jsonl, tsv };
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const corpusDir = join(dir, 'corpus');
  const started = Date.now();
  const info: CorpusInfo = await generateCorpus(N, Number(args.seed), corpusDir, log, true);
  log(`bench:ingest: corpus of ${info.records.toLocaleString('en-US')} records generated in ${secs(Date.now() - started)}`);
  const perFile = Math.ceil(info.records / FILES);
  const lines = createInterface({ input: createReadStream(join(corpusDir, 'flat.tsv')), crlfDelay: Infinity });
  let index = -1;
  let written = 0;
  let outJson: ReturnType<typeof createWriteStream> | undefined;
  let outTsv: ReturnType<typeof createWriteStream> | undefined;
  const write = async (out: ReturnType<typeof createWriteStream>, text: string) => {
    if (!out.write(text)) await once(out, 'drain');
  };
  const close = async () => {
    for (const out of [outJson, outTsv]) if (out) await new Promise((r) => out.end(r));
  };
  for await (const line of lines) {
    if (written % perFile === 0) {
      await close();
      index++;
      outJson = createWriteStream(jsonl[index]!);
      outTsv = createWriteStream(tsv[index]!);
    }
    written++;
    const cells = line.split('\t');
    const record: Record<string, string> = {};
    FLAT_COLUMNS.forEach((column, i) => {
      if (column !== 'source' && cells[i]) record[column] = cells[i]!;
    });
    await write(outJson!, `${JSON.stringify(record)}\n`);
    await write(outTsv!, `${line}\n`);
  }
  await close();
  rmSync(corpusDir, { recursive: true, force: true });
  writeFileSync(done, `${written}\n`);
  return { jsonl, tsv };
}

function npmIngest(args: string[]): { ms: number; status: number | null; out: string } {
  const started = Date.now();
  const r = spawnSync('npm', ['run', '--silent', 'ingest', '--', ...args], { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
  return { ms: Date.now() - started, status: r.status, out: `${r.stdout}${r.stderr}` };
}

async function main(): Promise<void> {
  const { jsonl, tsv } = await prepareFiles();
  const records = Number(readFileSync(join(dir, 'files.done'), 'utf8'));
  log(`bench:ingest: ${FILES} files, ${records.toLocaleString('en-US')} records, in ${dir}`);

  // One start-up: the time of `npm run ingest -- --help` (no work), median of 5.
  const starts = Array.from({ length: 5 }, () => npmIngest(['--help']).ms).sort((a, b) => a - b);
  const startMs = starts[2]!;

  const indexDir = join(dir, 'index');
  rmSync(indexDir, { recursive: true, force: true });
  const engineStarted = Date.now();
  for (const [i, file] of jsonl.entries()) {
    const r = npmIngest(['--well', `Ingest bench ${i + 1}`, '--no-catalogue', '--index-dir', indexDir, file]);
    if (r.status !== 0) throw new Error(`npm run ingest of ${file} exited ${r.status}:\n${r.out.slice(-2000)}`);
  }
  const engineMs = Date.now() - engineStarted;
  log(`bench:ingest: ${FILES} × npm run ingest ${secs(engineMs)}`);

  const client = new pg.Client({ connectionString: args['pg-url'] });
  await client.connect();
  let pgMs: number;
  try {
    await client.query('create extension if not exists pg_trgm');
    await client.query('drop table if exists ingest_bench_records');
    await client.query('create table ingest_bench_records (source int, email text, username text, password text, hashed_password text, ip_address text, name text, phone text)');
    const pgStarted = Date.now();
    for (const file of tsv) await pipeline(createReadStream(file), client.query(pgCopy.from(`copy ingest_bench_records from stdin with (format text, null '')`)));
    await client.query(`
      create index on ingest_bench_records using gin (email gin_trgm_ops);
      create index on ingest_bench_records using gin (username gin_trgm_ops);
      create index on ingest_bench_records using gin (password gin_trgm_ops);
      create index on ingest_bench_records (email text_pattern_ops);
      create index on ingest_bench_records (username text_pattern_ops);
      create index on ingest_bench_records (password text_pattern_ops);
      create index on ingest_bench_records (hashed_password);
      create index on ingest_bench_records (reverse(email) text_pattern_ops);`);
    await client.query('vacuum analyze ingest_bench_records');
    pgMs = Date.now() - pgStarted;
    await client.query('drop table ingest_bench_records');
  } finally {
    await client.end();
  }
  rmSync(indexDir, { recursive: true, force: true });

  const ratio = engineMs / pgMs;
  console.log(
    [
      `| ingest end to end (${FILES} files, ${records.toLocaleString('en-US')} records) | time | records/s |`,
      '|---|---|---|',
      `| ${FILES} × \`npm run ingest\` (one well each, automatic merges included) | ${secs(engineMs)} | ${Math.round(records / (engineMs / 1000)).toLocaleString('en-US')} |`,
      `| PostgreSQL: COPY + 8 indexes + vacuum analyze | ${secs(pgMs)} | ${Math.round(records / (pgMs / 1000)).toLocaleString('en-US')} |`,
      '',
      `one \`npm run ingest\` start-up (--help, median of 5): ${secs(startMs)}; ${FILES} of them: ${secs(startMs * FILES)}`,
      `engine / PostgreSQL: ${ratio.toFixed(2)}× (target ≤ 1: ${ratio <= 1 ? 'met' : 'missed'})`,
    ].join('\n'),
  );
}

main().catch((e: unknown) => {
  console.error(`bench:ingest: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
});
