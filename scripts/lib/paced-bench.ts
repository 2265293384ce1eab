/**
 * The bench's paced side-by-side (`npm run bench -- --paced`, issue 44): small answers of
 * /v2/search beside PostgreSQL and DuckDB answering the same query, every side paced alike,
 * as a client under the 10 req/s limit sends them.
 *
 * The product runs in the bench's process (`startRuntime`, as loadtest/http-bench.ts starts
 * it) over the bench's own index (INDEX_DIR; the runtime opens it read-only: no merge, no
 * rewrite), on a scratch database of the bench's PostgreSQL server (`bench_paced_<pid>`,
 * dropped at the end), limits in memory, the API's rate limits and daily limit out of the
 * way, one subscriber with an API key. The client is paced-client.ts in a child process (its
 * own event loop): one keep-alive connection, one `pg.Client` to the bench's `bench_records`,
 * DuckDB over the same flat file; per class, in rounds, `GET /livez`, the class's
 * `POST /v2/search` (size 20), the PostgreSQL and the DuckDB `select * … limit 20`, each
 * followed by the same pause, the order rotated every round.
 *
 * Added = /v2/search p50 − /livez p50 (the same connection: the client's and the loopback's
 * costs cancel out); ratio = the peer's p50 / added.
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fork } from 'node:child_process';
import pg from 'pg';
import type { SearchMode } from '../../engine/index';
import type { Runtime } from '../../server/src/runtime';
import type { PacedClass, PacedJob, PacedReport, PacedSamples } from './paced-client';

/** A query class as the bench's side-by-side has it (`pageCases`: its first query). */
export interface PacedClassInput {
  cls: string;
  query: string;
  mode: SearchMode;
  /** The peers' statement, `select * from bench_records where … limit 10000` (run with limit 20). */
  sql: string;
  params: unknown[];
  /** A scan (suffix, infix, regex, source filter): printed, not among the small answers' target. */
  scan: boolean;
}

export interface PacedOptions {
  indexDir: string;
  /** The bench's PostgreSQL: the scratch database is made on its server; `bench_records` is read there. */
  pgUrl: string;
  flatTsv: string;
  /** The peers that ran in the bench (their table exists): only those get a side. */
  peers: { pg: boolean; duckdb: boolean };
  classes: PacedClassInput[];
  paceMs: number;
  rounds: number;
  log: (line: string) => void;
}

/** A class's paced figures (ms, p50 unless said); ratios are the peer's p50 / added. */
export interface PacedRow {
  cls: string;
  scan: boolean;
  total: number;
  livez: number;
  search: number;
  searchP90: number;
  added: number;
  took?: number;
  pg?: number;
  pgRatio?: number;
  duck?: number;
  duckRatio?: number;
  failures: number;
}

export interface PacedResult {
  rows: PacedRow[];
  lines: string[];
  paceMs: number;
}

/** Rounds run first and not kept (JIT, caches, the connection's first use). */
const WARMUP_ROUNDS = 2;

const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s[Math.min(s.length - 1, Math.floor(p * (s.length - 1)))] as number) : NaN;
};
const fmtMs = (ms: number | undefined) => (ms === undefined || Number.isNaN(ms) ? '-' : ms < 1 ? `${(ms * 1000).toFixed(0)} µs` : `${ms.toFixed(2)} ms`);
const fmtRatio = (x: number | undefined) => (x === undefined ? '-' : Number.isFinite(x) ? `${x.toFixed(2)}×` : '∞ (added ≤ 0)');

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

/** Runs `sql` on a connection of its own to `url` (the scratch database's creation and removal). */
async function adminQuery(url: string, sql: string): Promise<void> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

/** The product in this process over `indexDir`, on `databaseUrl`, limits in memory and out of the way, listening on a free loopback port. */
async function startProduct(indexDir: string, databaseUrl: string, dataDir: string): Promise<{ runtime: Runtime; url: string }> {
  const { loadConfig } = await import('../../server/src/config');
  const { startRuntime } = await import('../../server/src/runtime');
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'development',
    PORT: String(port),
    DATA_DIR: dataDir,
    INDEX_DIR: indexDir,
    DATABASE_URL: databaseUrl,
    LOG_LEVEL: 'warn',
    API_RATE_PER_SECOND: '10000',
    API_RATE_BURST: '100000',
    SEARCH_DAILY_LIMIT: '10000000',
    // The block cache the bench's own engine had (the cache is one per process).
    ...(process.env.LEAKWELL_STORE_CACHE_MB ? { ENGINE_STORE_CACHE_MB: process.env.LEAKWELL_STORE_CACHE_MB } : {}),
  };
  // No Redis: the limits (out of the way anyway) and the queues stay in this process and the scratch database.
  delete env.REDIS_URL;
  const config = loadConfig(env);
  const runtime = await startRuntime(config, { mailConsole: null, logStream: fs.createWriteStream('/dev/null'), namespace: `bench_paced_${process.pid}` });
  try {
    await runtime.app.listen({ port, host: '127.0.0.1' });
  } catch (error) {
    await runtime.close();
    throw error;
  }
  return { runtime, url: `http://127.0.0.1:${port}` };
}

/** A subscriber with credits and an API key, as loadtest/http-bench.ts `customer(true)` makes one. */
async function subscriberKey(runtime: Runtime): Promise<string> {
  const { hashPassword } = await import('../../server/src/auth/passwords-service');
  const { applyGrant } = await import('../../server/src/users/account-grants-service');
  const { insertUser } = await import('../../server/src/users/accounts-service');
  const { createUserService } = await import('../../server/src/users/user-service');
  const id = (await insertUser(runtime.db, { email: 'paced-bench@example.com', passwordHash: await hashPassword('Paced-Bench-Pw1'), verified: true }))!;
  await applyGrant(runtime.db, id, { searchDays: 30, searchCredits: 100_000_000 });
  return createUserService(runtime.db).regenerateApiKey(id);
}

/** The classes as the client sends them: the /v2/search body, the engine's total for it, the peers' `limit 20`. */
async function clientClasses(runtime: Runtime, classes: PacedClassInput[]): Promise<PacedClass[]> {
  const out: PacedClass[] = [];
  for (const c of classes) {
    // /v2/search's defaults: no dedup (de_dupe false), the count cache on.
    const { total } = await runtime.engine.search({ query: c.query, mode: c.mode, size: 1, dedup: false });
    const flags = c.mode === 'wildcard' ? { wildcard: true } : c.mode === 'regex' ? { regex: true } : {};
    out.push({ cls: c.cls, body: JSON.stringify({ query: c.query, size: 20, ...flags }), expectTotal: total, sql: c.sql.replace(/limit 10000$/, 'limit 20'), params: c.params });
  }
  return out;
}

/** Runs the paced client (paced-client.ts) in a child process. */
function runClient(job: PacedJob): Promise<PacedReport> {
  return new Promise<PacedReport>((resolve, reject) => {
    const child = fork(path.join(import.meta.dirname, 'paced-client.ts'), [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    let report: PacedReport | undefined;
    child.once('message', (message) => (report = message as PacedReport));
    child.once('error', reject);
    child.once('exit', (code) => (report ? resolve(report) : reject(new Error(`paced client exited with ${code}`))));
    child.send(job);
  });
}

function rowOf(input: PacedClassInput, expectTotal: number, s: PacedSamples): PacedRow {
  const livez = percentile(s.livez, 0.5);
  const search = percentile(s.search, 0.5);
  const added = search - livez;
  const ratio = (peer: number[]) => {
    if (!peer.length) return [undefined, undefined] as const;
    const p50 = percentile(peer, 0.5);
    return [p50, added > 0 ? p50 / added : Infinity] as const;
  };
  const [pgP50, pgRatio] = ratio(s.pg);
  const [duckP50, duckRatio] = ratio(s.duck);
  return {
    cls: input.cls,
    scan: input.scan,
    total: expectTotal,
    livez,
    search,
    searchP90: percentile(s.search, 0.9),
    added,
    took: s.tookMicros.length ? percentile(s.tookMicros, 0.5) / 1000 : undefined,
    pg: pgP50,
    pgRatio,
    duck: duckP50,
    duckRatio,
    failures: s.failures,
  };
}

/** The "Paced small answers" section: the method, then the table. */
function pacedLines(rows: PacedRow[], o: PacedOptions, connections: number): string[] {
  const lines = [
    '### Paced small answers',
    '',
    `Every side paced alike, as a client under the 10 req/s limit sends: one client in a child process with one keep-alive connection to the product (\`startRuntime\` in the bench process over this index, a scratch database, limits in memory; ${connections} TCP connection${connections === 1 ? '' : 's'} opened), one \`pg.Client\` to the table above and DuckDB in that process; per class ${o.rounds} rounds (after ${WARMUP_ROUNDS} not kept) of \`GET /livez\`, \`POST /v2/search\` (size 20, the class's first query, count cache on as served), PostgreSQL's and DuckDB's \`select * … limit 20\` of the same predicate (rows read in full), each followed by a ${o.paceMs} ms pause, the order rotated every round. Times are round trips in the client, p50 unless said; added = /v2/search − /livez; ratio = peer / added (≥ 1×: as fast or faster than the peer); "took" is the engine's own time in the answers. Small answers: the exact classes, the domain page and the prefixes; scans are marked.`,
    '',
    '| class | total | /livez | /v2/search | p90 | added | took | PostgreSQL | ratio | DuckDB | ratio |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const r of rows) {
    const failed = r.failures ? ` (${r.failures} failed answers)` : '';
    lines.push(
      `| ${r.cls}${r.scan ? ' (scan)' : ''}${failed} | ${r.total.toLocaleString('en-US')} | ${fmtMs(r.livez)} | ${fmtMs(r.search)} | ${fmtMs(r.searchP90)} | ${fmtMs(r.added)} | ${fmtMs(r.took)} | ${fmtMs(r.pg)} | ${fmtRatio(r.pgRatio)} | ${fmtMs(r.duck)} | ${fmtRatio(r.duckRatio)} |`,
    );
  }
  lines.push('');
  return lines;
}

/** The product, its subscriber and the client, on a scratch database created here and dropped at the end (also on failure). */
async function measure(o: PacedOptions): Promise<{ rows: PacedRow[]; connections: number }> {
  const dbName = `bench_paced_${process.pid}`;
  const dbUrl = new URL(o.pgUrl);
  dbUrl.pathname = `/${dbName}`;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lw-bench-paced-'));
  await adminQuery(o.pgUrl, `drop database if exists ${dbName} with (force)`);
  await adminQuery(o.pgUrl, `create database ${dbName}`);
  try {
    const { runtime, url } = await startProduct(o.indexDir, dbUrl.toString(), dataDir);
    try {
      const key = await subscriberKey(runtime);
      const classes = await clientClasses(runtime, o.classes);
      o.log(`bench: paced side by side, ${classes.length} classes × ${o.rounds} rounds, ${o.paceMs} ms pauses (${url}, database ${dbName})…`);
      const report = await runClient({
        url,
        header: runtime.config.apiKeyHeader,
        key,
        classes,
        pgUrl: o.peers.pg ? o.pgUrl : undefined,
        duckFlat: o.peers.duckdb ? o.flatTsv : undefined,
        paceMs: o.paceMs,
        rounds: o.rounds,
        warmupRounds: WARMUP_ROUNDS,
      });
      for (const s of report.classes) if (s.failures) o.log(`bench: paced ${s.cls}: ${s.failures} failed answers, e.g. ${s.failureSample}`);
      return { rows: report.classes.map((s, i) => rowOf(o.classes[i]!, classes[i]!.expectTotal, s)), connections: report.connections };
    } finally {
      await runtime.close();
    }
  } finally {
    await adminQuery(o.pgUrl, `drop database if exists ${dbName} with (force)`);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * The paced side-by-side over the bench's index and rows: the product started in this
 * process, the client in a child; its rows and the lines of its results.md section.
 */
export async function pacedSideBySide(o: PacedOptions): Promise<PacedResult> {
  const { rows, connections } = await measure(o);
  for (const r of rows) o.log(`bench: paced ${r.cls}: /livez ${fmtMs(r.livez)}, /v2/search ${fmtMs(r.search)} (added ${fmtMs(r.added)}), PostgreSQL ${fmtMs(r.pg)} (${fmtRatio(r.pgRatio)}), DuckDB ${fmtMs(r.duck)} (${fmtRatio(r.duckRatio)})`);
  return { rows, lines: pacedLines(rows, o, connections), paceMs: o.paceMs };
}

/** The worst ratio of `rows` against a peer, with its class; undefined when the peer did not run. */
function worst(rows: PacedRow[], peer: 'pgRatio' | 'duckRatio'): { ratio: number; cls: string } | undefined {
  const measured = rows.filter((r) => r[peer] !== undefined);
  if (!measured.length || measured.length < rows.length) return undefined;
  return measured.reduce((w, r) => ((r[peer] as number) < w.ratio ? { ratio: r[peer] as number, cls: r.cls } : w), { ratio: Infinity, cls: '' });
}

/**
 * The issue 44 target rows of results.md's Targets: the small answers at ≥ 1× PostgreSQL,
 * and every class ahead of both peers; "not run" without `--paced`.
 */
export function pacedTargetRows(paced: PacedResult | undefined): string[] {
  const small = 'paced small answers (one-hit exact classes, domain page, prefixes) at ≥ 1× PostgreSQL, every side paced at';
  const every = 'the same side by side, every class ahead of PostgreSQL and DuckDB';
  if (!paced) return [`| ${small} 120 ms | not run (add \`--paced\`) | not measured |`, `| ${every} | not run (add \`--paced\`) | not measured |`];
  const failures = paced.rows.reduce((n, r) => n + r.failures, 0);
  const failed = failures ? `; ${failures} failed answers` : '';
  const verdict = (w: { ratio: number }[] | undefined) => (w === undefined ? 'not measured' : failures === 0 && w.every((x) => x.ratio >= 1) ? 'met' : 'missed');
  const smallWorst = worst(paced.rows.filter((r) => !r.scan), 'pgRatio');
  const pgWorst = worst(paced.rows, 'pgRatio');
  const duckWorst = worst(paced.rows, 'duckRatio');
  const said = (w: { ratio: number; cls: string } | undefined, peer: string) => (w ? `${peer} worst ${fmtRatio(w.ratio)} (${w.cls})` : `${peer} not run`);
  return [
    `| ${small} ${paced.paceMs} ms | ${said(smallWorst, 'PostgreSQL / added')}${failed} | ${verdict(smallWorst && [smallWorst])} |`,
    `| ${every} | ${said(pgWorst, 'PostgreSQL / added')}, ${said(duckWorst, 'DuckDB / added')}${failed} | ${verdict(pgWorst && duckWorst && [pgWorst, duckWorst])} |`,
  ];
}
