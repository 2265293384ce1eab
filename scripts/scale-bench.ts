// Scale benchmark: the engine alone over an index that is already built
// (1M, 10M, 100M records), for engine/SCALE.md.
//
//   node --import tsx scripts/scale-bench.ts --index DIR [--pick DIR] [--well NAME] [--cold] [--startup-only]
//        [--cap-seconds 20] [--json FILE]
//   node --import tsx scripts/scale-bench.ts [--pick DIR]     (only pick the query values)
//
// Query values are picked once, from the 1M-record corpus of seed 1 (`--pick`, generated with
// its flat.tsv when missing) the way scripts/bench.ts picks them, and the same queries run at
// every size: the generator is a stream, so the first million records of seed 1 are in every
// larger corpus built from seed 1, and hit counts grow with the index.
//
// Measured, in this order: start-up (openEngine to the first answer; `--cold` first drops the
// index files from the page cache with posix_fadvise, through python3), resident memory
// (VmRSS, split into anonymous memory and mapped index pages, from /proc/self/status) after
// opening, after a warm-up and after every query class; per class the engine's `tookMicros`,
// median of 20 warm runs with the count cache off (as the bench; fewer, at least 3, when they
// take longer than --cap-seconds) and of 10 with it on, and the process's CPU time per query
// over the uncached runs. Then pages of 10,000 entries (`searchApiText`, as /v2/search serves
// them; the bench's page rows): the most frequent password, free-mail domain and 4-letter
// username prefix of the 1M corpus, the first run in the process ("cold": none of the page's
// blocks cached) and the median of 10 more ("warm"), after the classes as in the bench
// (their pages of 20 warmed at most a page's first block or two).

import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { openEngine, type SearchMode } from '../engine/index';
import { type CorpusInfo, generateCorpus } from './corpus';
import { byCount, nearest, scanFlat } from './lib/corpus-stats';

const { values: args } = parseArgs({
  options: {
    index: { type: 'string' },
    pick: { type: 'string', default: '/tmp/scale-c1m' },
    cold: { type: 'boolean', default: false },
    json: { type: 'string' },
    /** The data well of the source-filter class (default: the 1M corpus's 4th source, as the bench picks). */
    well: { type: 'string' },
    /** Seconds of runs per class at most (at least 3 runs): heavy scans at nice +10 on a loaded machine take seconds each. */
    'cap-seconds': { type: 'string', default: '20' },
    /** Only the start-up and the memory after it (a cold start without the query classes). */
    'startup-only': { type: 'boolean', default: false },
  },
});
const log = (s: string) => console.error(s);
const capMs = Number(args['cap-seconds']) * 1000;

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s[Math.floor((s.length - 1) / 2)] as number) : NaN;
};
const fmt = (ms: number) => (Number.isNaN(ms) ? '-' : ms < 1 ? `${(ms * 1000).toFixed(0)} µs` : ms < 1000 ? `${ms.toFixed(ms < 10 ? 2 : 1)} ms` : `${(ms / 1000).toFixed(2)} s`);
const load = () => loadavg().map((x) => x.toFixed(2)).join(' ');

function filesUnder(path: string): string[] {
  return readdirSync(path, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(join(path, e.name)) : [join(path, e.name)]));
}

/** Resident memory of this process in MB: total, anonymous (heaps), file-backed (mapped index pages). */
function memory(): { rssMB: number; anonMB: number; fileMB: number; peakMB: number } {
  const status = readFileSync('/proc/self/status', 'utf8');
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  const mb = (k: number) => Math.round(k / 1024);
  return { rssMB: mb(kb('VmRSS')), anonMB: mb(kb('RssAnon')), fileMB: mb(kb('RssFile')), peakMB: mb(kb('VmHWM')) };
}

interface Case {
  cls: string;
  query: string;
  mode: SearchMode;
  dedup?: boolean;
  page?: number;
  budget?: number;
}

/**
 * The bench's query classes (scripts/bench.ts, `main`), values picked from the 1M corpus's
 * flat.tsv, kept in DIR/scale-cases.json: a measuring run only reads that file, so the
 * maps of the pick are not in the memory it reports.
 */
async function loadCases(dir: string): Promise<Case[]> {
  const file = join(dir, 'scale-cases.json');
  if (!existsSync(file)) writeFileSync(file, JSON.stringify(await pickCases(dir), null, 2) + '\n');
  return JSON.parse(readFileSync(file, 'utf8')) as Case[];
}

/** The page-of-10,000 queries, kept in DIR/scale-pages.json (picked as `pickCases` does). */
async function loadPageCases(dir: string): Promise<Case[]> {
  const file = join(dir, 'scale-pages.json');
  if (!existsSync(file)) {
    const { passwords, domains, userPrefixes } = await scanFlat(join(dir, 'flat.tsv'));
    const cases: Case[] = [
      { cls: 'page of 10,000: popular password', query: `password:"${byCount(passwords)[0]?.[0]}"`, mode: 'exact' },
      { cls: 'page of 10,000: email:*@ top free-mail domain', query: `email:*@${byCount(domains)[0]?.[0]}`, mode: 'wildcard' },
      { cls: 'page of 10,000: prefix username:xxxx*', query: `username:${byCount(userPrefixes)[0]?.[0]}*`, mode: 'wildcard' },
    ];
    writeFileSync(file, JSON.stringify(cases, null, 2) + '\n');
  }
  return JSON.parse(readFileSync(file, 'utf8')) as Case[];
}

async function pickCases(dir: string): Promise<Case[]> {
  let info: CorpusInfo;
  if (existsSync(join(dir, 'flat.tsv')) && existsSync(join(dir, 'corpus.json'))) info = JSON.parse(readFileSync(join(dir, 'corpus.json'), 'utf8')) as CorpusInfo;
  else info = await generateCorpus(1_000_000, 1, dir, log, true);
  const { passwords, domains, emails, hashes, lastNames } = await scanFlat(join(dir, 'flat.tsv'));
  const popular = byCount(passwords)[0]?.[0] ?? '';
  const ln = nearest(lastNames, 300)[0];
  const well = info.sources[3]?.well ?? '';
  return [
    { cls: 'exact email (1 hit at 1M)', query: `email:"${emails[7] ?? emails[0]}"`, mode: 'exact' },
    { cls: 'exact password (~100 hits at 1M)', query: `password:"${nearest(passwords, 100)[0]}"`, mode: 'exact' },
    { cls: 'exact popular password (total)', query: `password:"${popular}"`, mode: 'exact' },
    { cls: 'exact 40-hex hash (1 hit at 1M)', query: `hashed_password:${nearest(hashes, 1)[0]}`, mode: 'exact' },
    { cls: 'exact 40-hex hash (most frequent)', query: `hashed_password:${byCount(hashes)[0]?.[0]}`, mode: 'exact' },
    { cls: 'suffix email:*@domain (~100 hits at 1M)', query: `email:*@${nearest(domains, 100)[0]}`, mode: 'wildcard' },
    { cls: 'suffix email:*@domain (~10k hits at 1M)', query: `email:*@${nearest(domains, 10_000)[0]}`, mode: 'wildcard' },
    { cls: 'suffix email:*@ 2nd free-mail domain', query: `email:*@${byCount(domains)[1]?.[0]}`, mode: 'wildcard' },
    { cls: 'domain: (exact, ~10k hits at 1M)', query: `domain:${nearest(domains, 10_000)[0]}`, mode: 'exact' },
    { cls: 'prefix username:john*', query: 'username:john*', mode: 'wildcard' },
    { cls: `infix email:*${ln}*`, query: `email:*${ln}*`, mode: 'wildcard' },
    { cls: 'infix email:john*smith*', query: 'email:john*smith*', mode: 'wildcard' },
    { cls: 'email:j?hn*', query: 'email:j?hn*', mode: 'wildcard' },
    { cls: 'common literal email:*gmail* (exact total)', query: 'email:*gmail*', mode: 'wildcard' },
    { cls: `regex with literal username:/${ln}_[a-z]+[0-9]+/`, query: `username:/${ln}_[a-z]+[0-9]+/`, mode: 'regex' },
    { cls: 'regex without 3-char literal email:/^[a-z]+_[0-9]{2}@/', query: 'email:/^[a-z]+_[0-9]{2}@/', mode: 'regex', budget: 60_000 },
    { cls: 'source filter: email:john*&database_name=…', query: `email:john*&database_name="${well}"`, mode: 'wildcard' },
    { cls: 'dedup off: popular password', query: `password:"${popular}"`, mode: 'exact', dedup: false },
    { cls: 'page 499 (size 20): popular password', query: `password:"${popular}"`, mode: 'exact', page: 499 },
  ];
}

/** Drop the index's files from the page cache (a cold start), without touching anyone else's. */
function evict(indexDir: string): void {
  const files = filesUnder(indexDir);
  const py = 'import os,sys\nfor p in sys.argv[1:]:\n fd=os.open(p,os.O_RDONLY); os.posix_fadvise(fd,0,0,os.POSIX_FADV_DONTNEED); os.close(fd)';
  const r = spawnSync('python3', ['-c', py, ...files], { stdio: 'inherit' });
  if (r.status !== 0) throw new Error('evicting the index from the page cache failed');
}

async function main(): Promise<void> {
  const cases = (await loadCases(resolve(args.pick as string))).map((c) =>
    c.cls.startsWith('source filter') && args.well ? { ...c, query: `email:john*&database_name="${args.well}"` } : c,
  );
  const pageCases = await loadPageCases(resolve(args.pick as string));
  if (!args.index) return; // only the pick
  const indexDir = resolve(args.index);
  const indexBytes = filesUnder(indexDir).reduce((n, f) => n + statSync(f).size, 0);
  if (args.cold) evict(indexDir);

  const before = memory();
  const cpu0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  const engine = await openEngine(indexDir);
  const openMs = Number(process.hrtime.bigint() - t0) / 1e6;
  const first = await engine.search({ query: cases[0]!.query, mode: cases[0]!.mode });
  const startupMs = Number(process.hrtime.bigint() - t0) / 1e6;
  const startupCpu = process.cpuUsage(cpu0);
  const startupCpuMs = (startupCpu.user + startupCpu.system) / 1000;
  const afterOpen = memory();
  const stats = await engine.stats();
  log(`scale-bench: ${stats.records.toLocaleString('en-US')} records, ${stats.segments} segments, ${stats.parts} parts, ${(indexBytes / 1e9).toFixed(2)} GB; start-up ${fmt(startupMs)} (CPU ${fmt(startupCpuMs)}; open ${fmt(openMs)}, first answer total ${first.total}), load ${load()}`);

  if (args['startup-only']) {
    await engine.close();
    const result = { index: indexDir, records: stats.records, segments: stats.segments, parts: stats.parts, indexBytes, cold: args.cold, openMs, startupMs, startupCpuMs, memory: { before, afterOpen } };
    if (args.json) writeFileSync(args.json, JSON.stringify(result, null, 2) + '\n');
    console.log(JSON.stringify(result, null, 2));
    return;
  }

  // Warm-up: every class once (the pages they touch come into memory).
  for (const c of cases) await engine.search({ query: c.query, mode: c.mode, dedup: c.dedup ?? true, page: c.page ?? 1, size: 20, timeBudgetMs: c.budget ?? 30_000, countCache: false }).catch(() => undefined);
  const afterWarmup = memory();

  // Besides the engine's own time, the CPU time of the process per query (every thread, the
  // call's JSON included): on two cores shared with others, elapsed time follows the load,
  // CPU time much less.
  type Row = { cls: string; query: string; total: number; runs: number; engineMs: number; cpuMs: number; repeatMs: number; load: string; error?: string };
  const rows: Row[] = [];
  for (const c of cases) {
    const request = { query: c.query, mode: c.mode, dedup: c.dedup ?? true, page: c.page ?? 1, size: 20, timeBudgetMs: c.budget ?? 30_000 };
    const runs: number[] = [];
    let total = 0;
    try {
      total = (await engine.search({ ...request, countCache: false })).total;
      const cpu0 = process.cpuUsage();
      const until = Date.now() + capMs;
      while (runs.length < 20 && (runs.length < 3 || Date.now() < until)) runs.push((await engine.search({ ...request, countCache: false })).tookMicros / 1000);
      const cpu = process.cpuUsage(cpu0);
      const repeats: number[] = [];
      await engine.search(request);
      while (repeats.length < 10 && (repeats.length < 3 || Date.now() < until)) repeats.push((await engine.search(request)).tookMicros / 1000);
      rows.push({ cls: c.cls, query: c.query, total, runs: runs.length, engineMs: median(runs), cpuMs: (cpu.user + cpu.system) / 1000 / runs.length, repeatMs: median(repeats), load: load() });
    } catch (e) {
      rows.push({ cls: c.cls, query: c.query, total, runs: runs.length, engineMs: NaN, cpuMs: NaN, repeatMs: NaN, load: load(), error: e instanceof Error ? e.message : String(e) });
    }
    const row = rows[rows.length - 1] as Row;
    log(`scale-bench: ${c.cls}: ${row.error ?? `${fmt(row.engineMs)} (CPU ${fmt(row.cpuMs)}, ${row.runs} runs), repeat ${fmt(row.repeatMs)}`} (total ${total}), load ${row.load}`);
  }
  type PageRow = { cls: string; query: string; entries: number; coldMs: number; coldCpuMs: number; warmMs: number; load: string };
  const pages: PageRow[] = [];
  for (const c of pageCases) {
    const req = { query: c.query, mode: c.mode, size: 10_000, countCache: false };
    const cpu0 = process.cpuUsage();
    const first = await engine.searchApiText(req, false);
    const cpu = process.cpuUsage(cpu0);
    const warm: number[] = [];
    for (let i = 0; i < 10; i++) warm.push((await engine.searchApiText(req, false)).tookMicros / 1000);
    const row: PageRow = { cls: c.cls, query: c.query, entries: Math.min(first.total, 10_000), coldMs: first.tookMicros / 1000, coldCpuMs: (cpu.user + cpu.system) / 1000, warmMs: median(warm), load: load() };
    pages.push(row);
    log(`scale-bench: ${c.cls} (${c.query}): cold ${fmt(row.coldMs)} (process CPU ${fmt(row.coldCpuMs)}), warm ${fmt(row.warmMs)}, ${row.entries} entries, load ${row.load}`);
  }

  const afterQueries = memory();
  await engine.close();

  const result = {
    index: indexDir,
    records: stats.records,
    segments: stats.segments,
    parts: stats.parts,
    indexBytes,
    bytesPerRecord: indexBytes / stats.records,
    cold: args.cold,
    openMs,
    startupMs,
    startupCpuMs,
    memory: { before, afterOpen, afterWarmup, afterQueries },
    rows,
    pages,
    date: new Date().toISOString(),
  };
  const text = JSON.stringify(result, null, 2);
  if (args.json) writeFileSync(args.json, text + '\n');
  console.log(text);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
