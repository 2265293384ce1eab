// Search benchmark (method: docs/benchmark-method.md; figures: engine/BENCHMARKS.md): builds a corpus, ingests it into the
// engine and into the peers (PostgreSQL + pg_trgm, SQLite FTS5 trigram, DuckDB over the
// same rows, ripgrep over the raw files), runs every query class and prints each figure
// beside its peers', with ratios and the machine's calibration figures.
//
//   npm run bench -- [--records 1000000] [--seed 1] [--dir ./data/bench] [--peers pg,sqlite,duckdb,rg]
//        [--pg-url postgres://postgres@127.0.0.1:5432/postgres] [--fresh] [--reuse] [--http] [--ingest-e2e]
//        [--paced [--pace-ms 120] [--paced-rounds 30]]
//
// `--reuse` keeps the engine index and the PostgreSQL table of an earlier run of the same
// corpus (no ingest, no load: their rows say "not measured") and runs the queries again; the
// table's comment names its corpus (records-seed), and a table of another is loaded anew.
//
// Large-page rows: pages of 10,000 entries (the /v2/search `size: 10000` path, `searchApiText`)
// beside PostgreSQL returning the same rows, then a "Targets" table of the page, ingest,
// index size, dedup and HTTP floor targets (docs/benchmark-method.md "Targets").
// `--http` also runs the HTTP floor (`npm run loadtest -- --scenario floor --rounds 3 --profile`, with
// REDIS_URL, default redis://127.0.0.1:6379) after the queries, whose last lines are the
// single sequential client's (one keep-alive connection: a bare route and a one-hit
// /v2/search in turn, back to back and paced at 10 a second), so that one run prints every
// target with its figure; without it the HTTP rows point at the loadtest.
//
// Side-by-side rows: every class returning the same rows (pages of up to 10,000:
// the engine's whole /v2/search reply body as a Buffer, `searchApiReply`; PostgreSQL and
// DuckDB `select * … limit 10000`, rows materialised in this process), the cost of an
// entry, the operator commands' start-up (with and without npm), and met or missed for each
// target. `--ingest-e2e` adds the ingest end to end (`npm run bench:ingest`: 1,000,000
// records in 12 files, one `npm run ingest` each, against PostgreSQL's COPY and index
// build), so that `--http --ingest-e2e` prints every target in one run (engine/BENCHMARKS.md
// "Every target in one run").
//
// `--paced` adds the paced side-by-side of small answers (issue 44, scripts/lib/paced-bench.ts)
// after the in-process figures: the product started in this process over this index (a
// scratch database on `--pg-url`'s server), a client in a child process with one keep-alive
// connection, one pg.Client and DuckDB; per class (the side-by-side's, first query) rounds of
// GET /livez, POST /v2/search, PostgreSQL's and DuckDB's `select * … limit 20`, each followed
// by a pause of `--pace-ms` (120), `--paced-rounds` (30) rounds; ratio = peer p50 / (search
// p50 − livez p50). Prints the "Paced small answers" table and its two target rows.
//
// `--monitoring` runs the monitoring benchmark instead (see `monitoringBench`): the corpus
// ingested as one segment, then matchWatches of that segment with 0, 10,000 and 100,000
// watches, and the ratio (ingest + match) / ingest.
//
// `--monitoring-e2e [--tasks 100000] [--users 1000] [--rounds 2]` runs it end to end through
// the server (scripts/lib/monitoring-bench.ts): the runtime's match job writing reports in
// PostgreSQL (DATABASE_URL's server in a scratch database, else embedded) while the corpus
// is ingested with `runIngest`. Not run in CI.

import { spawnSync } from 'node:child_process';
import { createReadStream, existsSync, readFileSync, rmSync, statSync, readdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { pipeline } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import http from 'node:http';
import pg from 'pg';
import pgCopy from 'pg-copy-streams';
import { type Engine, ingestFiles, openEngine, type SearchMode, type WatchInput } from '../engine/index';
import { type CorpusInfo, FREE_MAIL, generateCorpus, generateFormatFiles } from './corpus';
import { rng } from './lib/random';
import { byCount, nearest, scanFlat } from './lib/corpus-stats';
import { monitoringE2E } from './lib/monitoring-bench';
import { compressedIngestRows } from './lib/archive-bench';
import { duckLoadSql, duckSql } from './lib/duck-peer';
import { pacedSideBySide, pacedTargetRows } from './lib/paced-bench';

const { values: args } = parseArgs({
  options: {
    records: { type: 'string', default: '1000000' },
    seed: { type: 'string', default: '1' },
    dir: { type: 'string', default: './data/bench' },
    peers: { type: 'string', default: 'pg,sqlite,duckdb,rg' },
    'pg-url': { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/postgres' },
    fresh: { type: 'boolean', default: false },
    reuse: { type: 'boolean', default: false },
    http: { type: 'boolean', default: false },
    monitoring: { type: 'boolean', default: false },
    'monitoring-e2e': { type: 'boolean', default: false },
    tasks: { type: 'string', default: '100000' },
    users: { type: 'string', default: '1000' },
    rounds: { type: 'string', default: '2' },
    'ingest-formats': { type: 'boolean', default: false },
    'ingest-e2e': { type: 'boolean', default: false },
    paced: { type: 'boolean', default: false },
    'pace-ms': { type: 'string', default: '120' },
    'paced-rounds': { type: 'string', default: '30' },
  },
});
const N = Number(args.records);
const dir = resolve(args.dir as string, `${N}-${args.seed}`);
const peers = new Set((args.peers as string).split(',').filter(Boolean));

/** A whole-number option from `min` to `max` (exit 2 otherwise). */
function wholeArg(name: 'pace-ms' | 'paced-rounds', min: number, max: number): number {
  const n = Number(args[name]);
  if (!Number.isInteger(n) || n < min || n > max) {
    console.error(`--${name} must be a whole number from ${min} to ${max}`);
    process.exit(2);
  }
  return n;
}

// Checked before anything runs: the paced run comes last.
const pacing = { paceMs: wholeArg('pace-ms', 1, 60_000), rounds: wholeArg('paced-rounds', 1, 10_000) };

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s[Math.floor((s.length - 1) / 2)] as number) : NaN;
};
const fmt = (ms: number) => (Number.isNaN(ms) ? '-' : ms < 1 ? `${(ms * 1000).toFixed(0)} µs` : ms < 1000 ? `${ms.toFixed(ms < 10 ? 2 : 1)} ms` : `${(ms / 1000).toFixed(2)} s`);
const log = (s: string) => console.error(s);

async function time<T>(f: () => Promise<T> | T): Promise<[number, T]> {
  const t = process.hrtime.bigint();
  const v = await f();
  return [Number(process.hrtime.bigint() - t) / 1e6, v];
}

async function calibrate(): Promise<Record<string, string>> {
  const buf = Buffer.alloc(256 * 1024 * 1024, 0x61);
  const scans: number[] = [];
  for (let i = 0; i < 3; i++) scans.push((await time(() => buf.indexOf('needle')))[0]);
  const scanGBs = 0.256 / 1.073741824 / (median(scans) / 1000) * 1.073741824;
  const { default: Fastify } = await import('fastify');
  const app = Fastify();
  const rows = Array.from({ length: 20 }, (_, i) => ({ id: String(i), database_name: 'Example 2019', email: [`user${i}@example.com`], password: ['hunter2'] }));
  app.get('/hello', async () => ({ hello: 'world' }));
  app.get('/rows', async () => ({ entries: rows, total: 20, took: '1ms' }));
  await app.listen({ port: 0, host: '127.0.0.1' });
  const port = (app.server.address() as { port: number }).port;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 32 });
  const rps = async (path: string) => {
    let n = 0;
    const until = Date.now() + 2000;
    const loop = async () => {
      while (Date.now() < until) {
        await new Promise<void>((res, rej) => http.get({ host: '127.0.0.1', port, path, agent }, (r) => { r.resume(); r.on('end', () => res()); }).on('error', rej));
        n++;
      }
    };
    await Promise.all(Array.from({ length: 32 }, loop));
    return n / 2;
  };
  const hello = await rps('/hello');
  const twenty = await rps('/rows');
  agent.destroy();
  await app.close();
  return {
    cpu: `${cpus().length} × ${cpus()[0]?.model ?? '?'}`,
    'memory scan': `${scanGBs.toFixed(1)} GB/s`,
    'fastify hello (client in-process)': `${Math.round(hello).toLocaleString('en-US')} req/s`,
    'fastify 20-row JSON (client in-process)': `${Math.round(twenty).toLocaleString('en-US')} req/s`,
  };
}

function du(path: string): number {
  let n = 0;
  for (const e of readdirSync(path, { withFileTypes: true })) {
    const p = join(path, e.name);
    n += e.isDirectory() ? du(p) : statSync(p).size;
  }
  return n;
}

/** Bytes of the files under `path` whose name matches `name`. */
function duMatching(path: string, name: RegExp): number {
  let n = 0;
  for (const e of readdirSync(path, { withFileTypes: true })) {
    const p = join(path, e.name);
    n += e.isDirectory() ? duMatching(p, name) : name.test(e.name) ? statSync(p).size : 0;
  }
  return n;
}

interface QueryCase {
  cls: string;
  engine: { query: string; mode: SearchMode; dedup?: boolean; page?: number; size?: number; budget?: number };
  pg?: { sql: string; params: unknown[] };
  sqlite?: { sql: string; params: unknown[] };
  rg?: string[]; // ripgrep arguments before the path
}

/**
 * Ingest speed per input format, since parsing differs by format: the same records (at most 1,000,000) written
 * as JSON lines, a JSON array, CSV, a combolist, a stealer log, a mysqldump and a pg_dump,
 * each ingested alone into a fresh index (no merge); records/s of the best of 2 runs.
 */
async function ingestByFormat(): Promise<string[]> {
  const n = Math.min(N, 1_000_000);
  const fdir = join(dir, 'formats');
  const files = await generateFormatFiles(n, Number(args.seed), fdir);
  const rows: string[] = ['### Ingest per format', '', `${n.toLocaleString('en-US')} records (a WordPress-like users table: id, login, email, password or phpass hash, name, IP), the same in every file; best of 2 runs, one file into an empty index, no merge.`, '', '| format | file | records/s | MB/s |', '|---|---|---|---|'];
  for (const f of files) {
    let best = Infinity;
    for (let k = 0; k < 2; k++) {
      const index = join(fdir, 'index');
      rmSync(index, { recursive: true, force: true });
      const [ms, r] = await time(() => ingestFiles(index, { well: `Format ${f.format}`, files: [f.file], maxSegments: 0 }));
      if (r.records !== n) throw new Error(`${f.format}: ingested ${r.records} of ${n} records (${r.badLines} bad)`);
      best = Math.min(best, ms);
    }
    rmSync(join(fdir, 'index'), { recursive: true, force: true });
    log(`bench: ingest ${f.format}: ${Math.round(n / (best / 1000)).toLocaleString('en-US')} rec/s`);
    rows.push(`| ${f.format} | ${(f.bytes / 1e6).toFixed(0)} MB | ${Math.round(n / (best / 1000)).toLocaleString('en-US')} | ${(f.bytes / 1e6 / (best / 1000)).toFixed(0)} |`);
  }
  rows.push('');
  return rows;
}

/** The DuckDB peer: a statement's rows read into this process. */
interface Duck {
  count(sql: string, params: unknown[]): Promise<unknown[]>;
  rows(sql: string, params: unknown[]): Promise<unknown[]>;
  close(): void;
}

async function main(): Promise<void> {
  if (args['ingest-formats']) {
    console.log((await ingestByFormat()).join('\n'));
    return;
  }
  log(`bench: ${N.toLocaleString('en-US')} records, seed ${args.seed}, dir ${dir}`);
  const calibration = await calibrate();
  if (args.fresh) rmSync(dir, { recursive: true, force: true });
  let info: CorpusInfo;
  let genSecs = 0;
  if (existsSync(join(dir, 'corpus.json')) && existsSync(join(dir, 'flat.tsv'))) {
    info = JSON.parse(readFileSync(join(dir, 'corpus.json'), 'utf8')) as CorpusInfo;
  } else {
    [genSecs, info] = await time(() => generateCorpus(N, Number(args.seed), dir, log, true));
    genSecs /= 1000;
  }
  log(`bench: corpus ${(info.bytes / 1e6).toFixed(0)} MB in ${info.sources.length} sources${genSecs ? ` (generated in ${genSecs.toFixed(0)} s)` : ''}`);

  // Engine ingest: one data well per source, as an operator would.
  const indexDir = join(dir, 'index');
  const reuse = (args.reuse as boolean) && existsSync(join(indexDir, 'MANIFEST'));
  if (!reuse) rmSync(indexDir, { recursive: true, force: true });
  // Automatic merges (past 8 segments) run inside the ingests and are counted in their time.
  let mergeMs = 0;
  let merges = 0;
  const [ingestMs] = reuse ? [NaN] : await time(async () => {
    for (const s of info.sources) {
      const r = await ingestFiles(indexDir, { well: s.well, files: [s.file] });
      if (r.merge && r.merge.error === undefined) {
        mergeMs += r.merge.elapsedMs;
        merges++;
      }
    }
  });
  const indexBytes = du(indexDir);
  const storeBytes = duMatching(indexDir, /^store\./);
  const engine: Engine = await openEngine(indexDir);
  const est = await engine.stats();
  const layout = `${est.segments} segments, ${est.parts} parts after ${info.sources.length} ingests; ${merges} automatic merges took ${fmt(mergeMs)} of the ingest time`;
  log(`bench: engine ingest ${fmt(ingestMs)} (${Math.round(N / (ingestMs / 1000)).toLocaleString('en-US')} rec/s), index ${(indexBytes / 1e6).toFixed(0)} MB; ${layout}`);
  // Before the queries, so that their figures are not disturbed.
  const archiveRows = reuse ? [] : await compressedIngestRows(info.sources, dir, log);

  const build: Record<string, { ms: number; bytes?: number }> = { engine: { ms: ingestMs, bytes: indexBytes } };
  let pgc: pg.Client | undefined;
  if (peers.has('pg')) {
    pgc = new pg.Client({ connectionString: args['pg-url'] as string });
    await pgc.connect();
    // The table names the corpus it holds (its comment): a run of another size or seed loads
    // its own rows rather than timing PostgreSQL on another corpus's.
    const corpusName = `${N}-${args.seed}`;
    const kept = reuse && (await pgc.query(`select obj_description(to_regclass('bench_records'), 'pg_class') as c`)).rows[0].c === corpusName;
    if (!kept) {
      await pgc.query('create extension if not exists pg_trgm');
      await pgc.query('drop table if exists bench_records');
      await pgc.query('create table bench_records (source int, email text, username text, password text, hashed_password text, ip_address text, name text, phone text)');
      const [ms] = await time(async () => {
        // COPY over the client's own connection: no psql needed (the embedded PostgreSQL has none).
        await pipeline(createReadStream(join(dir, 'flat.tsv')), pgc!.query(pgCopy.from(`copy bench_records from stdin with (format text, null '')`)));
        return pgc!.query(`
          create index on bench_records using gin (email gin_trgm_ops);
          create index on bench_records using gin (username gin_trgm_ops);
          create index on bench_records using gin (password gin_trgm_ops);
          create index on bench_records (email text_pattern_ops);
          create index on bench_records (username text_pattern_ops);
          create index on bench_records (password text_pattern_ops);
          create index on bench_records (hashed_password);
          create index on bench_records (reverse(email) text_pattern_ops);`).then(() => pgc!.query('vacuum analyze bench_records'));
      });
      await pgc.query(`comment on table bench_records is '${corpusName}'`);
      const size = await pgc.query(`select pg_total_relation_size('bench_records') as b`);
      build.pg = { ms, bytes: Number(size.rows[0].b) };
      log(`bench: PostgreSQL load+index ${fmt(ms)}`);
    }
  }
  type Sqlite = { prepare(sql: string): { get(...p: unknown[]): unknown; all(...p: unknown[]): unknown[]; run(...p: unknown[]): unknown }; exec(sql: string): void; transaction<T extends (...a: never[]) => unknown>(f: T): T; close(): void };
  let db: Sqlite | undefined;
  if (peers.has('sqlite')) {
    try {
      const Database = createRequire(import.meta.url)('better-sqlite3') as new (p: string) => Sqlite;
      const file = join(dir, 'fts5.sqlite');
      rmSync(file, { force: true });
      db = new Database(file);
      db.exec("pragma journal_mode = off; pragma synchronous = off; create virtual table fts using fts5(source unindexed, email, username, password, hashed_password, ip_address, name, phone, tokenize = 'trigram')");
      const ins = db.prepare('insert into fts values (?, ?, ?, ?, ?, ?, ?, ?)');
      const [ms] = await time(async () => {
        let batch: string[][] = [];
        const flush = db!.transaction(((rows: string[][]) => { for (const r of rows) ins.run(...r); }) as never);
        const rl = createInterface({ input: createReadStream(join(dir, 'flat.tsv')), crlfDelay: Infinity });
        for await (const line of rl) {
          batch.push(line.split('\t'));
          if (batch.length >= 10000) {
            (flush as unknown as (r: string[][]) => void)(batch);
            batch = [];
          }
        }
        (flush as unknown as (r: string[][]) => void)(batch);
      });
      build.sqlite = { ms, bytes: statSync(file).size };
      log(`bench: SQLite FTS5 build ${fmt(ms)}`);
    } catch (e) {
      log(`bench: SQLite FTS5 peer skipped (${e instanceof Error ? e.message.split('\n')[0] : String(e)}); npm install better-sqlite3 to enable it`);
      db = undefined;
    }
  }
  // DuckDB over the same rows (the flat file the PostgreSQL table is loaded from), in its
  // own in-memory table: vectorised, every core, no index (what leak tools that keep dumps
  // as Parquet query with DuckDB).
  let duck: Duck | undefined;
  if (peers.has('duckdb')) {
    try {
      const { DuckDBInstance } = await import('@duckdb/node-api');
      const instance = await DuckDBInstance.create(':memory:');
      const connection = await instance.connect();
      const [ms] = await time(() => connection.run(duckLoadSql(join(dir, 'flat.tsv'))));
      build.duckdb = { ms };
      log(`bench: DuckDB load ${fmt(ms)}`);
      duck = {
        count: async (sql, params) => (await connection.runAndReadAll(duckSql(sql), params as never)).getRows(),
        rows: async (sql, params) => (await connection.runAndReadAll(duckSql(sql), params as never)).getRowObjects(),
        close: () => connection.closeSync(),
      };
    } catch (e) {
      log(`bench: DuckDB peer skipped (${e instanceof Error ? e.message.split('\n')[0] : String(e)}); npm install to enable it`);
    }
  }
  const hasRg = peers.has('rg') && spawnSync('rg', ['--version']).status === 0;
  if (peers.has('rg') && !hasRg) log('bench: ripgrep peer skipped (no rg on the PATH); apt-get install ripgrep to enable it');

  const stats = await scanFlat(join(dir, 'flat.tsv'));
  const popular = byCount(stats.passwords)[0] as [string, number];
  const pw100 = nearest(stats.passwords, 100);
  const dom100 = nearest(stats.domains, 100);
  const dom10k = nearest(stats.domains, 10_000);
  const domBig = byCount(stats.domains)[1] as [string, number];
  const hashBig = byCount(stats.hashes)[0] as [string, number];
  const hashOne = nearest(stats.hashes, 1);
  const ln = nearest(stats.lastNames, 300)[0];
  const email1 = stats.emails[7] ?? stats.emails[0] ?? '';
  const well = info.sources[3]?.well ?? '';
  const wellIdx = 3;
  const rgPaths = info.sources.map((s) => s.file);
  const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const sq = (s: string) => `"${s.replace(/"/g, '""')}"`;

  const cases: QueryCase[] = [
    { cls: `exact email (1 hit)`, engine: { query: `email:"${email1}"`, mode: 'exact' }, pg: { sql: 'select count(*) from bench_records where email = $1', params: [email1] }, sqlite: { sql: 'select count(*) c from fts where fts match ? and email = ?', params: [`email:${sq(email1)}`, email1] }, rg: ['-c', '-i', '-F', email1] },
    { cls: `exact password ~${pw100[1]} hits`, engine: { query: `password:"${pw100[0]}"`, mode: 'exact' }, pg: { sql: 'select count(*) from bench_records where password = $1', params: [pw100[0]] }, sqlite: { sql: 'select count(*) c from fts where fts match ? and password = ?', params: [`password:${sq(pw100[0])}`, pw100[0]] }, rg: ['-c', '-F', pw100[0]] },
    { cls: `exact popular password (${popular[1]} hits, total)`, engine: { query: `password:"${popular[0]}"`, mode: 'exact' }, pg: { sql: 'select count(*) from bench_records where password = $1', params: [popular[0]] }, sqlite: { sql: 'select count(*) c from fts where fts match ? and password = ?', params: [`password:${sq(popular[0])}`, popular[0]] }, rg: ['-c', '-x', '-e', `.*[:;\\t,"]${esc(popular[0])}["]?`] },
    { cls: `exact 40-hex hash (1 hit)`, engine: { query: `hashed_password:${hashOne[0]}`, mode: 'exact' }, pg: { sql: 'select count(*) from bench_records where hashed_password = $1', params: [hashOne[0]] }, sqlite: { sql: 'select count(*) c from fts where fts match ? and hashed_password = ?', params: [`hashed_password:${sq(hashOne[0])}`, hashOne[0]] }, rg: ['-c', '-F', hashOne[0]] },
    { cls: `exact 40-hex hash (${hashBig[1]} hits)`, engine: { query: `hashed_password:${hashBig[0]}`, mode: 'exact' }, pg: { sql: 'select count(*) from bench_records where hashed_password = $1', params: [hashBig[0]] }, sqlite: { sql: 'select count(*) c from fts where fts match ? and hashed_password = ?', params: [`hashed_password:${sq(hashBig[0])}`, hashBig[0]] }, rg: ['-c', '-F', hashBig[0]] },
    ...([dom100, dom10k, domBig] as [string, number][]).map(([d, n]): QueryCase => ({
      cls: `suffix email:*@${d} (${n} hits)`, engine: { query: `email:*@${d}`, mode: 'wildcard' },
      pg: { sql: 'select count(*) from bench_records where reverse(email) like $1', params: [`${d.split('').reverse().join('')}@%`] },
      sqlite: { sql: 'select count(*) c from fts where email like ?', params: [`%@${d}`] }, rg: ['-c', '-i', '-F', `@${d}`],
    })),
    { cls: `domain:${dom10k[0]} (exact, ${dom10k[1]} hits)`, engine: { query: `domain:${dom10k[0]}`, mode: 'exact' }, pg: { sql: 'select count(*) from bench_records where reverse(email) like $1', params: [`${dom10k[0].split('').reverse().join('')}@%`] } },
    { cls: 'prefix username:john*', engine: { query: 'username:john*', mode: 'wildcard' }, pg: { sql: "select count(*) from bench_records where username like 'john%'", params: [] }, sqlite: { sql: "select count(*) c from fts where username like 'john%'", params: [] }, rg: ['-c', '-i', '-e', '(^|[;:,\\t"])john'] },
    { cls: `infix email:*${ln}*`, engine: { query: `email:*${ln}*`, mode: 'wildcard' }, pg: { sql: 'select count(*) from bench_records where email like $1', params: [`%${ln}%`] }, sqlite: { sql: 'select count(*) c from fts where email like ?', params: [`%${ln}%`] }, rg: ['-c', '-i', '-F', ln] },
    { cls: 'infix email:john*smith*', engine: { query: 'email:john*smith*', mode: 'wildcard' }, pg: { sql: "select count(*) from bench_records where email like 'john%smith%'", params: [] }, sqlite: { sql: "select count(*) c from fts where email like 'john%smith%'", params: [] }, rg: ['-c', '-i', '-e', '(^|[;:,\\t"])john[^@]*smith'] },
    { cls: 'email:j?hn*', engine: { query: 'email:j?hn*', mode: 'wildcard' }, pg: { sql: "select count(*) from bench_records where email like 'j_hn%'", params: [] }, sqlite: { sql: "select count(*) c from fts where email like 'j_hn%'", params: [] }, rg: ['-c', '-i', '-e', '(^|[;:,\\t"])j.hn'] },
    { cls: 'common literal email:*gmail* (first page, exact total)', engine: { query: 'email:*gmail*', mode: 'wildcard' }, pg: { sql: "select count(*) from bench_records where email like '%gmail%'", params: [] }, sqlite: { sql: "select count(*) c from fts where email like '%gmail%'", params: [] }, rg: ['-c', '-i', '-F', 'gmail'] },
    { cls: `regex with literal username:/${ln}_[a-z]+[0-9]+/`, engine: { query: `username:/${ln}_[a-z]+[0-9]+/`, mode: 'regex' }, pg: { sql: 'select count(*) from bench_records where username ~ $1', params: [`${ln}_[a-z]+[0-9]+`] }, rg: ['-c', '-i', '-e', `${ln}_[a-z]+[0-9]+`] },
    { cls: 'regex without 3-char literal email:/^[a-z]+_[0-9]{2}@/', engine: { query: 'email:/^[a-z]+_[0-9]{2}@/', mode: 'regex', budget: 10_000 }, pg: { sql: "select count(*) from bench_records where email ~ '^[a-z]+_[0-9]{2}@'", params: [] }, rg: ['-c', '-i', '-e', '(^|[;:,\\t"])[a-z]+_[0-9]{2}@'] },
    { cls: `source filter: email:john*&database_name=…`, engine: { query: `email:john*&database_name="${well}"`, mode: 'wildcard' }, pg: { sql: "select count(*) from bench_records where email like 'john%' and source = $1", params: [wellIdx] }, sqlite: { sql: "select count(*) c from fts where email like 'john%' and source = ?", params: [String(wellIdx)] } },
    { cls: `dedup off: password:"${popular[0]}"`, engine: { query: `password:"${popular[0]}"`, mode: 'exact', dedup: false } },
    { cls: `page 499 (size 20): password:"${popular[0]}"`, engine: { query: `password:"${popular[0]}"`, mode: 'exact', page: 499, size: 20 }, pg: { sql: 'select * from bench_records where password = $1 order by ctid offset 9960 limit 20', params: [popular[0]] } },
  ];

  type Row = { cls: string; total: number; engine: number; repeat: number; pg?: number; sqlite?: number; duck?: number; rg?: number };
  const rows: Row[] = [];
  for (const c of cases) {
    const runs: number[] = [];
    let total = 0;
    const reps = 21;
    const request = { query: c.engine.query, mode: c.engine.mode, dedup: c.engine.dedup ?? true, page: c.engine.page ?? 1, size: c.engine.size ?? 20, timeBudgetMs: c.engine.budget ?? 30_000 };
    // The work itself: the count cache off.
    for (let i = 0; i < reps; i++) {
      const r = await engine.search({ ...request, countCache: false });
      runs.push(r.tookMicros / 1000);
      total = r.total;
    }
    // The same query again with the count cache on (the first run fills it): what a
    // repeat or the next page costs.
    const repeats: number[] = [];
    for (let i = 0; i < 11; i++) {
      const r = await engine.search(request);
      if (r.total !== total) throw new Error(`${c.cls}: total ${r.total} with the count cache, ${total} without`);
      repeats.push(r.tookMicros / 1000);
    }
    const row: Row = { cls: c.cls, total, engine: median(runs.slice(1)), repeat: median(repeats.slice(1)) };
    if (pgc && c.pg) {
      const t: number[] = [];
      for (let i = 0; i < 4; i++) t.push((await time(() => pgc!.query(c.pg!.sql, c.pg!.params)))[0]);
      row.pg = median(t.slice(1));
    }
    if (duck && c.pg) {
      const t: number[] = [];
      for (let i = 0; i < 4; i++) t.push((await time(() => duck!.count(c.pg!.sql, c.pg!.params)))[0]);
      row.duck = median(t.slice(1));
    }
    if (db && c.sqlite) {
      const st = db.prepare(c.sqlite.sql);
      const t: number[] = [];
      for (let i = 0; i < 4; i++) t.push((await time(() => st.get(...c.sqlite!.params)))[0]);
      row.sqlite = median(t.slice(1));
    }
    if (hasRg && c.rg) {
      const t: number[] = [];
      for (let i = 0; i < 2; i++) t.push((await time(() => spawnSync('rg', [...c.rg!, ...rgPaths], { maxBuffer: 1 << 26 })))[0]);
      row.rg = median(t);
    }
    rows.push(row);
    log(`bench: ${c.cls}: engine ${fmt(row.engine)}, repeat ${fmt(row.repeat)} (total ${total})`);
  }
  // Pages of up to 10,000 entries as /v2/search serves them, class by class, beside
  // PostgreSQL and DuckDB returning the same query's rows. Engine: `searchApiReply`, the
  // reply's whole body as the Buffer the server sends (no raw record, count cache off);
  // "cold": the first run of each query in this process (no block of its page in the block
  // cache), "warm": the median of the 10 next. Peers: `select * … limit 10000`, the rows
  // read into this process (objects), median of 3 warm runs. Wall-clock in this process.
  const top = (m: Map<string, number>, n: number, min: number) => byCount(m).filter((e) => e[1] >= min).slice(0, n);
  type PageQuery = { query: string; mode: SearchMode; sql: string; params: unknown[] };
  // `scan`: not a small answer (the paced side-by-side prints them apart from its target).
  const pageCases: { cls: string; queries: PageQuery[]; scan?: boolean }[] = [
    { cls: 'exact email', queries: [0, 7, 21].map((i) => stats.emails[i] ?? email1).map((e) => ({ query: `email:"${e}"`, mode: 'exact' as SearchMode, sql: 'select * from bench_records where email = $1 limit 10000', params: [e] })) },
    { cls: 'exact 40-hex hash', queries: [{ query: `hashed_password:${hashOne[0]}`, mode: 'exact', sql: 'select * from bench_records where hashed_password = $1 limit 10000', params: [hashOne[0]] }] },
    { cls: 'exact password (~100 hits)', queries: [{ query: `password:"${pw100[0]}"`, mode: 'exact', sql: 'select * from bench_records where password = $1 limit 10000', params: [pw100[0]] }] },
    { cls: 'exact password (most common)', queries: top(stats.passwords, 5, 1).map(([p]) => ({ query: `password:"${p}"`, mode: 'exact' as SearchMode, sql: 'select * from bench_records where password = $1 limit 10000', params: [p] })) },
    { cls: `domain:${dom10k[0]} (exact)`, queries: [{ query: `domain:${dom10k[0]}`, mode: 'exact', sql: 'select * from bench_records where reverse(email) like $1 limit 10000', params: [`${dom10k[0].split('').reverse().join('')}@%`] }] },
    { cls: 'email:*@domain (largest)', queries: top(stats.domains, 5, 1).map(([d]) => ({ query: `email:*@${d}`, mode: 'wildcard' as SearchMode, sql: 'select * from bench_records where reverse(email) like $1 limit 10000', params: [`${d.split('').reverse().join('')}@%`] })), scan: true },
    { cls: 'prefix username:xxxx*', queries: top(stats.userPrefixes, 5, 1).map(([u]) => ({ query: `username:${u}*`, mode: 'wildcard' as SearchMode, sql: 'select * from bench_records where username like $1 limit 10000', params: [`${u}%`] })) },
    { cls: `infix email:*${ln}*`, queries: [{ query: `email:*${ln}*`, mode: 'wildcard', sql: 'select * from bench_records where email like $1 limit 10000', params: [`%${ln}%`] }], scan: true },
    { cls: `regex username:/${ln}_[a-z]+[0-9]+/`, queries: [{ query: `username:/${ln}_[a-z]+[0-9]+/`, mode: 'regex', sql: 'select * from bench_records where username ~ $1 limit 10000', params: [`${ln}_[a-z]+[0-9]+`] }], scan: true },
    { cls: 'source filter email:john*&database_name=…', queries: [{ query: `email:john*&database_name="${well}"`, mode: 'wildcard', sql: "select * from bench_records where email like 'john%' and source = $1 limit 10000", params: [wellIdx] }], scan: true },
  ];
  /** perEntry: the warm page over its entries; entryCost: (the warm page − the same search with one entry) over the other entries. */
  type PageRow = { cls: string; queries: string; entries: number; cold: number; warm: number; pg?: number; duck?: number; perEntry: number; oneEntry: number; entryCost: number };
  const pageRows: PageRow[] = [];
  const totalOf = (body: Buffer) => Number(/"total":(\d+)\}$/.exec(body.subarray(Math.max(0, body.length - 40)).toString('latin1'))?.[1] ?? NaN);
  // Each side measured on its own (the engine's classes, then PostgreSQL's, then DuckDB's):
  // DuckDB's worker threads, busy after its queries, would otherwise share the cores with
  // the engine's next run.
  for (const c of pageCases) {
    const cold: number[] = [], warm: number[] = [];
    // The same query with a page of one entry: what the search costs before its entries
    // (its count, a scan for an infix or a regex), so that an entry's own cost is told apart.
    const one: number[] = [];
    let entries = 0;
    for (const q of c.queries) {
      const req = { query: q.query, mode: q.mode, size: 10_000, countCache: false, timeBudgetMs: 30_000 };
      const [coldMs, first] = await time(() => engine.searchApiReply(req, false, 0));
      cold.push(coldMs);
      for (let i = 0; i < 10; i++) warm.push((await time(() => engine.searchApiReply(req, false, 0)))[0]);
      for (let i = 0; i < 10; i++) one.push((await time(() => engine.searchApiReply({ ...req, size: 1 }, false, 0)))[0]);
      entries += Math.min(totalOf(first), 10_000);
    }
    const perQuery = entries / c.queries.length;
    pageRows.push({
      cls: c.cls,
      queries: c.queries.map((q) => q.query).join(', '),
      entries: Math.round(perQuery),
      cold: median(cold),
      warm: median(warm),
      perEntry: (median(warm) * 1000) / Math.max(1, perQuery),
      oneEntry: median(one),
      entryCost: perQuery > 1 ? (Math.max(0, median(warm) - median(one)) * 1000) / (perQuery - 1) : NaN,
    });
  }
  const peerMedian = async (run: (q: PageQuery) => Promise<unknown>, c: (typeof pageCases)[number]) => {
    const t: number[] = [];
    for (const q of c.queries) {
      await run(q);
      for (let i = 0; i < 3; i++) t.push((await time(() => run(q)))[0]);
    }
    return median(t);
  };
  if (pgc) for (const [i, c] of pageCases.entries()) pageRows[i]!.pg = await peerMedian((q) => pgc!.query(q.sql, q.params), c);
  if (duck) for (const [i, c] of pageCases.entries()) pageRows[i]!.duck = await peerMedian((q) => duck!.rows(q.sql, q.params), c);
  for (const row of pageRows) log(`bench: side by side, ${row.cls}: engine cold ${fmt(row.cold)}, warm ${fmt(row.warm)} (${row.perEntry.toFixed(2)} µs an entry), PostgreSQL ${fmt(row.pg ?? NaN)}, DuckDB ${fmt(row.duck ?? NaN)} (${row.entries} entries a page)`);

  // HTTP-free in-process throughput of an exact query (the engine's share of /v2/search).
  const [tputMs] = await time(async () => {
    await Promise.all(Array.from({ length: 8 }, async () => {
      for (let i = 0; i < 500; i++) await engine.search({ query: `email:"${stats.emails[i % stats.emails.length]}"`, mode: 'exact', size: 20 });
    }));
  });
  await engine.close();
  await pgc?.end();
  db?.close();
  duck?.close();
  const paced = args.paced
    ? await pacedSideBySide({
        indexDir,
        pgUrl: args['pg-url'] as string,
        flatTsv: join(dir, 'flat.tsv'),
        peers: { pg: pgc !== undefined, duckdb: duck !== undefined },
        classes: pageCases.map((c) => ({ cls: c.cls, ...(c.queries[0] as PageQuery), scan: c.scan ?? false })),
        paceMs: pacing.paceMs,
        rounds: pacing.rounds,
        log,
      })
    : undefined;

  const ratio = (peer?: number, mine?: number) => (peer === undefined || mine === undefined ? '' : `${(peer / mine).toFixed(1)}×`);
  const formatRows = reuse ? [] : await ingestByFormat();
  const out: string[] = [];
  out.push(`## Run: ${N.toLocaleString('en-US')} records, seed ${args.seed}, ${new Date().toISOString().slice(0, 10)}`);
  out.push('');
  out.push('Calibration: ' + Object.entries(calibration).map(([k, v]) => `${k}: ${v}`).join('; '));
  out.push('');
  out.push(`Corpus: ${(info.bytes / 1e6).toFixed(0)} MB raw in ${info.sources.length} sources, ${info.duplicates.toLocaleString('en-US')} exact duplicates.`);
  out.push('');
  out.push('| build | time | records/s | size | size / raw |');
  out.push('|---|---|---|---|---|');
  for (const [k, v] of Object.entries(build)) out.push(`| ${k} | ${fmt(v.ms)} | ${Math.round(N / (v.ms / 1000)).toLocaleString('en-US')} | ${v.bytes ? `${(v.bytes / 1e6).toFixed(0)} MB` : '-'} | ${v.bytes ? (v.bytes / info.bytes).toFixed(2) : '-'} |`);
  out.push('');
  out.push(`Engine index: ${layout} (ingest rate without them: ${Math.round(N / ((ingestMs - mergeMs) / 1000)).toLocaleString('en-US')} records/s).`);
  out.push('');
  out.push(...formatRows);
  if (archiveRows.length) out.push(...archiveRows, '');
  out.push('Engine figures are the engine\'s own `tookMicros` (median of 20 warm runs, first page of 20, exact total, count cache off); "repeat" is the same query again with the count cache on (median of 10 after the run that fills it: what the next page or a repeat costs); peers are wall-clock medians of 3 warm runs of a count(*) (ripgrep: 2 runs over all raw files, `-c`). Ratio = peer / engine (count cache off).');
  out.push('');
  out.push('| query class | hits | engine | repeat | PostgreSQL | ratio | DuckDB | ratio | SQLite FTS5 | ratio | ripgrep | ratio |');
  out.push('|---|---|---|---|---|---|---|---|---|---|---|---|');
  for (const r of rows) out.push(`| ${r.cls} | ${r.total.toLocaleString('en-US')} | ${fmt(r.engine)} | ${fmt(r.repeat)} | ${fmt(r.pg ?? NaN)} | ${ratio(r.pg, r.engine)} | ${fmt(r.duck ?? NaN)} | ${ratio(r.duck, r.engine)} | ${fmt(r.sqlite ?? NaN)} | ${ratio(r.sqlite, r.engine)} | ${fmt(r.rg ?? NaN)} | ${ratio(r.rg, r.engine)} |`);
  out.push('');
  const byCls = (p: string) => rows.find((r) => r.cls.startsWith(p));
  const p1 = byCls('exact popular'), p499 = byCls('page 499'), doff = byCls('dedup off'), filt = byCls('source filter'), pre = byCls('prefix');
  out.push(`Derived: page 499 / page 1 = ${((p499?.engine ?? NaN) / (p1?.engine ?? NaN)).toFixed(2)}; dedup on / off = ${((p1?.engine ?? NaN) / (doff?.engine ?? NaN)).toFixed(2)}; source filter / unfiltered prefix = ${((filt?.engine ?? NaN) / (pre?.engine ?? NaN)).toFixed(2)}; in-process exact-query throughput (8 concurrent, JSON included) = ${Math.round(4000 / (tputMs / 1000)).toLocaleString('en-US')} searches/s.`);
  out.push('');
  out.push(`Side by side, the same rows: pages of up to 10,000 entries as /v2/search serves them (\`searchApiReply\`: the reply's whole body as the Buffer sent, size 10000, no raw record, count cache off; queries: ${pageRows.map((r) => r.queries).join('; ')}). Engine: wall-clock in this process, the first run of each query ("cold": none of its blocks in the block cache, ${process.env.LEAKWELL_STORE_CACHE_MB ?? 64} MB) and the median of the 10 next ("warm"); per entry = warm / entries; one entry = the same search with a page of one (median of 10: its count, and its scan for an infix or a regex); an entry beyond it = (warm − one entry) / (entries − 1), an entry's own cost. PostgreSQL and DuckDB: wall-clock median of 3 warm runs of \`select * … limit 10000\` (the rows as objects in this process). Ratio = peer / engine warm.`);
  out.push('');
  out.push('| class | entries a page | engine cold | engine warm | per entry | one entry | an entry beyond it | PostgreSQL | ratio | DuckDB | ratio |');
  out.push('|---|---|---|---|---|---|---|---|---|---|---|');
  for (const r of pageRows) out.push(`| ${r.cls} | ${r.entries.toLocaleString('en-US')} | ${fmt(r.cold)} | ${fmt(r.warm)} | ${r.perEntry.toFixed(2)} µs | ${fmt(r.oneEntry)} | ${Number.isNaN(r.entryCost) ? '-' : `${r.entryCost.toFixed(2)} µs`} | ${fmt(r.pg ?? NaN)} | ${ratio(r.pg, r.warm)} | ${fmt(r.duck ?? NaN)} | ${ratio(r.duck, r.warm)} |`);
  out.push('');
  if (paced) out.push(...paced.lines);
  // The page, ingest, size, dedup and HTTP floor targets, each with its figure from this run.
  const verdict = (ok: boolean | undefined) => (ok === undefined ? 'not measured' : ok ? 'met' : 'missed');
  const worstCold = Math.max(...pageRows.map((r) => r.cold));
  const worstWarm = Math.max(...pageRows.map((r) => r.warm));
  const pgRatios = pageRows.filter((r) => r.pg !== undefined).map((r) => (r.pg as number) / r.warm);
  const duckRatios = pageRows.filter((r) => r.duck !== undefined).map((r) => (r.duck as number) / r.warm);
  const bigPages = pageRows.filter((r) => r.entries >= 1000);
  const worstEntryCost = bigPages.length ? Math.max(...bigPages.map((r) => r.entryCost)) : NaN;
  const rate = N / (ingestMs / 1000);
  const floor = args.http ? httpFloor() : undefined;
  const dedupRatio = (p1?.engine ?? NaN) / (doff?.engine ?? NaN);
  out.push('### Targets (issue 14)');
  out.push('');
  out.push('| target | measured | verdict |');
  out.push('|---|---|---|');
  out.push(`| page of 10,000 entries in the engine ≤ 10 ms | worst class ${fmt(worstCold)} cold, ${fmt(worstWarm)} warm | ${verdict(worstCold <= 10)} (cold), ${verdict(worstWarm <= 10)} (warm) |`);
  out.push(`| /v2/search size 10000 at least as fast as PostgreSQL returning the same rows | PostgreSQL / engine warm: ${pgRatios.length ? pgRatios.map((x) => `${x.toFixed(2)}×`).join(', ') : '-'} | ${verdict(pgRatios.length ? Math.min(...pgRatios) >= 1 : undefined)} |`);
  out.push(`| ingest ≥ 150,000 records/s, merges included | ${reuse ? 'not measured (--reuse)' : `${Math.round(rate).toLocaleString('en-US')} records/s (${merges} merges, ${fmt(mergeMs)})`} | ${verdict(reuse ? undefined : rate >= 150_000)} |`);
  out.push(`| index ≤ 1.5× the raw input | ${(indexBytes / info.bytes).toFixed(2)}× (${(indexBytes / 1e6).toFixed(0)} MB; store ${(storeBytes / N).toFixed(1)} bytes/record) | ${verdict(indexBytes / info.bytes <= 1.5)} |`);
  out.push(`| dedup on ≤ 1.1× dedup off | ${dedupRatio.toFixed(2)}× (popular password, first page) | ${verdict(dedupRatio <= 1.1)} |`);
  if (floor) {
    out.push(`| /v2/search ≥ 80% of the Fastify floor in req/s (100 connections, a key each), \`REDIS_URL\` set | ${floor.throughput} | ${verdict(floor.throughputMet)} |`);
    out.push(`| one-hit exact search ≤ 0.5 ms over the floor's latency at p50 | ${floor.latency} | ${verdict(floor.latencyMet)} |`);
    out.push('');
    out.push('HTTP floor rounds (`loadtest/http-bench.ts --scenario floor --rounds 3 --profile`):');
    out.push('');
    for (const line of floor.rounds) out.push(`- ${line.trim()}`);
    if (floor.cpuProfile.length) {
      out.push('', `Where the search's event-loop time goes under load (self time a request, by place; ${floor.cpuProfile[0]!.replace(/^profile of the JS thread under load: /, '')}):`, '');
      for (const line of floor.cpuProfile.slice(1)) out.push(`- ${line.trim().replace(/^([\d.]+ µs)\s+([\d.]+%)\s+/, '$1 ($2) ')}`);
    }
  } else {
    out.push('| /v2/search ≥ 80% of the Fastify floor in req/s, one-hit exact ≤ 0.5 ms over the floor at p50 | not run (add `--http`, or `npm run loadtest -- --scenario floor`) | not measured |');
  }
  // The per-entry, side-by-side, start-up and end-to-end ingest targets.
  out.push('');
  out.push('### Targets (issue 30)');
  out.push('');
  out.push('| target | measured | verdict |');
  out.push('|---|---|---|');
  // The sequential client's lines: two phases of one-hit searches, then a large page over HTTP.
  const targetOf = (line: string) => (line.startsWith('sequential page') ? 'entries ≤ 0.5 µs each end to end over HTTP (a page of the loadtest index, one client)' : 'one-hit /v2/search ≤ 0.15 ms over /livez at p50, one sequential keep-alive client');
  if (floor?.sequential.length) for (const line of floor.sequential) out.push(`| ${targetOf(line)} | ${line.replace(/: (met|missed)$/, '')} | ${line.endsWith(': met') ? 'met' : 'missed'} |`);
  else out.push('| one-hit /v2/search ≤ 0.15 ms over /livez at p50, one sequential keep-alive client | not run (add `--http`, or `npm run loadtest -- --scenario sequential`) | not measured |');
  out.push(
    `| entries ≤ 0.5 µs each, pages of 1,000–10,000 of this corpus (the reply's bytes in this process; an entry's cost: the page less the same search with one entry, over the other entries) | worst class ${Number.isNaN(worstEntryCost) ? '-' : `${worstEntryCost.toFixed(2)} µs`} (${bigPages.map((r) => `${r.cls}: ${r.entryCost.toFixed(2)} µs × ${r.entries.toLocaleString('en-US')}, the whole page ${r.perEntry.toFixed(2)} µs an entry with the search's own ${fmt(r.oneEntry)}`).join('; ') || 'no page of 1,000 or more'}) | ${verdict(bigPages.length ? worstEntryCost <= 0.5 : undefined)} |`,
  );
  for (const r of pageRows) {
    const peersMet = [r.pg, r.duck].filter((x) => x !== undefined) as number[];
    out.push(`| ${r.cls}: at least as fast as PostgreSQL and DuckDB (same rows) | engine ${fmt(r.warm)}, PostgreSQL ${fmt(r.pg ?? NaN)} (${ratio(r.pg, r.warm) || '-'}), DuckDB ${fmt(r.duck ?? NaN)} (${ratio(r.duck, r.warm) || '-'}) | ${verdict(peersMet.length ? peersMet.every((x) => x >= r.warm) : undefined)} |`);
  }
  out.push(`| DuckDB in the run | ${duckRatios.length ? `${duckRatios.length} classes side by side` : 'skipped'} | ${verdict(duckRatios.length ? true : undefined)} |`);
  const starts = cliStarts();
  out.push(`| operator CLIs start in ≤ 0.3 s (\`node scripts/run.mjs NAME --help\`, build current; median of 5, wall-clock) | ${starts.map((c) => `${c.name} ${c.seconds.toFixed(2)} s`).join(', ')}; Node alone ${cliBaseline().toFixed(2)} s | ${verdict(starts.every((c) => c.seconds <= 0.3))} |`);
  const npmStarts = cliStarts(true);
  out.push(`| the same through npm (\`npm run -s NAME -- --help\`: npm's own start included) | ${npmStarts.map((c) => `${c.name} ${c.seconds.toFixed(2)} s`).join(', ')} | ${verdict(npmStarts.every((c) => c.seconds <= 0.3))} |`);
  if (args['ingest-e2e']) {
    const e2e = ingestEndToEnd();
    out.push(`| \`npm run ingest\` of 12 files of 83k records end to end at least as fast as PostgreSQL's load plus index | ${e2e.text} | ${verdict(e2e.met)} |`);
  } else {
    out.push("| `npm run ingest` of 12 files of 83k records end to end at least as fast as PostgreSQL's load plus index | not run (add `--ingest-e2e`, or `npm run bench:ingest`) | not measured |");
  }
  if (floor?.profile.length) {
    out.push('');
    out.push('Where a paced one-hit search\'s time goes (the sequential client\'s profile lines):');
    out.push('');
    for (const line of floor.profile) out.push(`- ${line.replace(/^profile: /, '')}`);
  }
  out.push('', '### Targets (issue 44)', '', '| target | measured | verdict |', '|---|---|---|', ...pacedTargetRows(paced));
  const text = out.join('\n');
  console.log(text);
  writeFileSync(join(dir, 'results.md'), text + '\n');
}

/** Median wall-clock seconds of 5 runs of `command ARGS` (after one that builds what is missing); `node` by default. */
function startSeconds(args: string[], command = process.execPath): number {
  const root = resolve(import.meta.dirname, '..');
  spawnSync(command, args, { cwd: root, stdio: 'ignore' });
  const t = Array.from({ length: 5 }, () => {
    const t0 = performance.now();
    spawnSync(command, args, { cwd: root, stdio: 'ignore' });
    return (performance.now() - t0) / 1000;
  });
  return median(t);
}

/** The shipped operator commands' start-up: each one's `--help` (against the start-up target), run by node or through npm. */
function cliStarts(throughNpm = false): { name: string; seconds: number }[] {
  return ['admin', 'ingest', 'whois-ingest'].map((name) => ({
    name,
    seconds: throughNpm ? startSeconds(['run', '-s', name, '--', '--help'], 'npm') : startSeconds(['scripts/run.mjs', name, '--help']),
  }));
}

/**
 * The ingest end to end, as an operator runs it: `scripts/ingest-bench.ts` in a child process
 * (1,000,000 records in 12 files under `--dir`, made once; one `npm run ingest` a file
 * against PostgreSQL's COPY and index build of the same rows), its figures read back.
 */
function ingestEndToEnd(): { text: string; met: boolean } {
  log('bench: ingest end to end (npm run bench:ingest)…');
  const root = resolve(import.meta.dirname, '..');
  const run = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/ingest-bench.ts', '--dir', join(resolve(args.dir as string), 'ingest-e2e'), '--pg-url', args['pg-url'] as string], {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 1 << 24,
  });
  const lines = (run.stdout ?? '').split('\n');
  const engineRow = lines.find((l) => l.includes('× `npm run ingest`'));
  const pgRow = lines.find((l) => l.startsWith('| PostgreSQL'));
  const ratio = lines.find((l) => l.startsWith('engine / PostgreSQL'));
  if (run.status !== 0 || !engineRow || !pgRow || !ratio) return { text: `failed (exit ${run.status}): ${(run.stderr ?? '').slice(-500)}`, met: false };
  const cells = (row: string) => row.split('|').map((c) => c.trim()).filter(Boolean);
  const [, engineTime, engineRate] = cells(engineRow);
  const [, pgTime, pgRate] = cells(pgRow);
  return { text: `12 × npm run ingest ${engineTime} (${engineRate} records/s), PostgreSQL COPY + 8 indexes ${pgTime} (${pgRate}): ${ratio.replace(/ \(target.*$/, '')}`, met: ratio.endsWith(': met)') };
}

/** Node's own start-up, the floor of every command's. */
function cliBaseline(): number {
  return startSeconds(['-e', '0']);
}

/**
 * The HTTP targets: the loadtest's floor scenario in a child process (its own server, its own
 * 100,000-record index), its verdict lines read back from its output.
 */
function httpFloor(): { throughput: string; latency: string; rounds: string[]; sequential: string[]; profile: string[]; cpuProfile: string[]; throughputMet: boolean; latencyMet: boolean } {
  log('bench: HTTP floor (loadtest --scenario floor --rounds 3 --profile)…');
  const root = resolve(import.meta.dirname, '..');
  const run = spawnSync(process.execPath, ['--import', 'tsx', 'loadtest/http-bench.ts', '--scenario', 'floor', '--rounds', '3', '--profile'], {
    cwd: root,
    env: { ...process.env, REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379' },
    encoding: 'utf8',
    maxBuffer: 1 << 24,
  });
  const lines = (run.stdout ?? '').split('\n');
  const find = (prefix: string) => lines.find((l) => l.startsWith(prefix));
  const throughput = find('throughput:');
  const latency = find('latency:');
  if (!throughput || !latency) {
    log(`bench: the HTTP floor run failed (exit ${run.status}):\n${(run.stderr ?? '').slice(-2000)}`);
    return { throughput: `failed (exit ${run.status})`, latency: `failed (exit ${run.status})`, rounds: [], sequential: [], profile: [], cpuProfile: [], throughputMet: false, latencyMet: false };
  }
  const cpu = find('server CPU per request');
  return {
    throughput: throughput.replace(/^throughput: /, '').replace(/: (met|missed)$/, ''),
    latency: latency.replace(/^latency: /, '').replace(/: (met|missed)$/, ''),
    rounds: [...lines.filter((l) => /^\s+round \d+:/.test(l)), ...(cpu ? [cpu] : [])],
    sequential: lines.filter((l) => l.startsWith('sequential ')),
    profile: lines.filter((l) => l.startsWith('profile: ')),
    // The event loop's time by place under load (loadtest/cpu-profile.ts): the profile of a miss.
    cpuProfile: cpuProfileByPlace(lines),
    throughputMet: throughput.endsWith(': met'),
    latencyMet: latency.endsWith(': met'),
  };
}

/** The floor run's profile heading and its lines by place (those before "by function"). */
function cpuProfileByPlace(lines: string[]): string[] {
  const start = lines.findIndex((l) => l.startsWith('profile of the JS thread'));
  if (start < 0) return [];
  const end = lines.findIndex((l, i) => i > start && l.trim().startsWith('by function'));
  return lines.slice(start, end < 0 ? undefined : end).filter((l) => !l.trim().startsWith('by place'));
}

/** The corpus of `dir` (generated once per size and seed, as `main` does). */
async function corpus(): Promise<CorpusInfo> {
  if (args.fresh) rmSync(dir, { recursive: true, force: true });
  if (existsSync(join(dir, 'corpus.json')) && existsSync(join(dir, 'flat.tsv'))) return JSON.parse(readFileSync(join(dir, 'corpus.json'), 'utf8')) as CorpusInfo;
  const [ms, info] = await time(() => generateCorpus(N, Number(args.seed), dir, log, true));
  log(`bench: corpus generated in ${fmt(ms)}`);
  return info;
}

/**
 * Monitoring: every ingest is followed by a match of every active task against
 * the new segment. Ingests the whole corpus as one segment (one data well, like an
 * operator's `npm run ingest` of a breach), then matches watches against it: a mix of
 * kinds (40% email, 25% username, 15% phone, 10% name, 10% domain), 1% of them values the
 * corpus holds (company domains for domain watches), the rest values it does not.
 */
async function monitoringBench(): Promise<void> {
  log(`bench --monitoring: ${N.toLocaleString('en-US')} records, seed ${args.seed}, dir ${dir}`);
  const info = await corpus();
  const files = info.sources.map((s) => s.file);
  // Ingest twice into a fresh index (the first run also warms the page cache); the faster counts.
  const ingests: number[] = [];
  let segmentId = '';
  const indexDir = join(dir, 'monitor-index');
  for (let i = 0; i < 2; i++) {
    rmSync(indexDir, { recursive: true, force: true });
    const [ms, r] = await time(() => ingestFiles(indexDir, { well: 'Monitoring Bench', files, maxSegments: 0 }));
    if (r.records < N * 0.9) throw new Error(`ingested ${r.records} records`);
    ingests.push(ms);
    segmentId = r.segmentId ?? '';
    log(`bench: ingest ${r.records.toLocaleString('en-US')} records in ${fmt(ms)} (${r.parts} parts)`);
  }
  const ingestMs = Math.min(...ingests);

  // Values the corpus holds, from the flat file (emails, usernames, phones, names) and company domains.
  const pools: Record<'email' | 'username' | 'phone' | 'name' | 'domain', string[]> = { email: [], username: [], phone: [], name: [], domain: [] };
  const rl = createInterface({ input: createReadStream(join(dir, 'flat.tsv')), crlfDelay: Infinity });
  let line = 0;
  for await (const l of rl) {
    if (line++ % 97 !== 0) continue;
    const c = l.split('\t');
    const [email, username, name, phone] = [c[1] ?? '', c[2] ?? '', c[6] ?? '', c[7] ?? ''];
    if (email) pools.email.push(email);
    if (username) pools.username.push(username);
    if (phone) pools.phone.push(phone);
    if (name) pools.name.push(name);
    const d = email.slice(email.lastIndexOf('@') + 1);
    if (d && !FREE_MAIL.includes(d)) pools.domain.push(d);
  }
  const kinds: (keyof typeof pools)[] = [];
  for (const [k, n] of [['email', 40], ['username', 25], ['phone', 15], ['name', 10], ['domain', 10]] as const) for (let i = 0; i < n; i++) kinds.push(k);
  const r = rng(Number(args.seed) + 10);
  const makeWatches = (n: number, only?: keyof typeof pools): WatchInput[] =>
    Array.from({ length: n }, (_, i) => {
      const field = only ?? (kinds[i % kinds.length] as keyof typeof pools);
      const pool = pools[field];
      const hit = r() < 0.01;
      const miss = { email: `nomatch.${i}@nowhere.example`, username: `nomatch_${i}`, phone: `000${String(i).padStart(12, '0')}`, name: `Nomatch Person${i}`, domain: `nomatch${i}.example` }[field];
      return { id: `t${i}`, field, value: hit ? (pool[Math.floor(r() * pool.length)] as string) : miss };
    });

  const engine = await openEngine(indexDir);
  type Row = { what: string; ms: number; matched: number; ids: number; records: number };
  const rows: Row[] = [];
  const run = async (what: string, watches: WatchInput[], strategy: 'auto' | 'lookup' | 'walk' = 'auto', reps = 3): Promise<Row> => {
    const times: number[] = [];
    let res: Awaited<ReturnType<Engine['matchWatches']>> = [];
    for (let i = 0; i < reps; i++) {
      const [ms, out] = await time(() => engine.matchWatches(segmentId, watches, { strategy }));
      times.push(ms);
      res = out;
    }
    const row = { what, ms: median(times), matched: res.length, ids: res.reduce((a, m) => a + m.recordIds.length, 0), records: res.reduce((a, m) => a + m.total, 0) };
    log(`bench: ${what}: ${fmt(row.ms)} (${row.matched} watches matched, ${row.records.toLocaleString('en-US')} records, ${row.ids.toLocaleString('en-US')} ids)`);
    return row;
  };
  const w10k = makeWatches(10_000);
  const w100k = makeWatches(100_000);
  rows.push(await run('0 watches', []));
  rows.push(await run('10,000 watches', w10k));
  rows.push(await run('100,000 watches', w100k));
  const match100k = rows[2]!.ms;
  // The cost model's inputs: exact kinds by one strategy or the other (email watches only,
  // and the whole mix); the domain walk alone.
  const calib: Row[] = [];
  for (const n of [1_000, 3_000, 10_000, 30_000, 100_000]) {
    const ws = makeWatches(n, 'email');
    for (const s of ['lookup', 'walk', 'auto'] as const) calib.push(await run(`${n.toLocaleString('en-US')} email watches, ${s}`, ws, s));
  }
  for (const s of ['lookup', 'walk'] as const) calib.push(await run(`100,000 watches (mix), ${s}`, w100k, s));
  calib.push(await run('1 domain watch (walk of domain and url terms)', makeWatches(1, 'domain')));
  calib.push(await run('10,000 domain watches', makeWatches(10_000, 'domain')));
  await engine.close();

  const out: string[] = [];
  out.push(`## Monitoring run: ${N.toLocaleString('en-US')} records, seed ${args.seed}, ${new Date().toISOString().slice(0, 10)}`);
  out.push('');
  out.push(`Machine: ${cpus().length} × ${cpus()[0]?.model ?? '?'}, ${Math.round(totalmem() / 2 ** 30)} GB. Corpus ${(info.bytes / 1e6).toFixed(0)} MB raw, ingested as one segment (${info.sources.length} files, one data well).`);
  out.push('');
  out.push(`Ingest: ${ingests.map(fmt).join(', ')} (best ${fmt(ingestMs)}). matchWatches: wall-clock in the caller (JSON both ways included), median of 3 warm runs; watches 40% email, 25% username, 15% phone, 10% name, 10% domain, 1% of them values of the corpus.`);
  out.push('');
  out.push('| matchWatches | time | watches matched | records matched | ids returned |');
  out.push('|---|---|---|---|---|');
  for (const x of [...rows, ...calib]) out.push(`| ${x.what} | ${fmt(x.ms)} | ${x.matched.toLocaleString('en-US')} | ${x.records.toLocaleString('en-US')} | ${x.ids.toLocaleString('en-US')} |`);
  out.push('');
  out.push(`(ingest + match with 100,000 tasks) / ingest alone = (${fmt(ingestMs)} + ${fmt(match100k)}) / ${fmt(ingestMs)} = **${((ingestMs + match100k) / ingestMs).toFixed(3)}** (target ≤ 1.10); time to match 100,000 tasks after publishing: ${fmt(match100k)}.`);
  const text = out.join('\n');
  console.log(text);
  writeFileSync(join(dir, 'results-monitoring.md'), text + '\n');
}

/** Monitoring end to end through the server (scripts/lib/monitoring-bench.ts). */
async function monitoringE2EBench(): Promise<void> {
  log(`bench --monitoring-e2e: ${N.toLocaleString('en-US')} records, ${Number(args.tasks).toLocaleString('en-US')} tasks, seed ${args.seed}, dir ${dir}`);
  const info = await corpus();
  const text = await monitoringE2E({
    records: N,
    tasks: Number(args.tasks),
    users: Number(args.users),
    channelEvery: 10,
    rounds: Number(args.rounds),
    seed: Number(args.seed),
    dir,
    info,
    log,
  });
  console.log(text);
  writeFileSync(join(dir, 'results-monitoring-e2e.md'), text + '\n');
}

(args['monitoring-e2e'] ? monitoringE2EBench() : args.monitoring ? monitoringBench() : main()).catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
