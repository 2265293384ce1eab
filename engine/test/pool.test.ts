// The engine's own threads (pool.rs, ARCHITECTURE.md "Threads"): searches are routed by
// their plan (scans to the heavy lane, lookups stay quick), a full heavy lane does not
// delay lookups, and the completion path (a threadsafe function per Node environment)
// keeps a process alive exactly while calls are pending and survives a worker thread that
// exits with calls in flight.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { Worker } from 'node:worker_threads';
import { addonPath } from '../addon';
import type { SearchArgs } from '../contract.generated';
import { type Engine, type EngineLaneStats, enginePoolStats, ingestFiles, openEngine, validateQuery } from '../index';
import { tempDir } from './helpers';

const RECORDS = 60_000;
const { dir, cleanup } = tempDir('engine-pool-');
const index = join(dir, 'index');
let engine: Engine;

/** Lower-case text that rarely matches HEAVY, so the scan reads every term to its end. */
function text(i: number): string {
  let seed = i * 2654435761;
  let s = '';
  for (let j = 0; j < 160; j++) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    s += String.fromCharCode(97 + (seed % 26));
  }
  return s;
}

// No literal the planner can narrow to, and a bounded repetition the lazy DFA cannot hold.
const heavy = (k: number) => `company:/[a-m][a-z]{${30 + k}}[n-z][a-c][d-k][w-z][a-b]/`;

const lane = (stats: EngineLaneStats[], name: string) => stats.find((s) => s.lane === name)!;

before(async () => {
  const file = join(dir, 'records.jsonl');
  writeFileSync(file, Array.from({ length: RECORDS }, (_, i) => JSON.stringify({ email: `user${i}@example.com`, company: text(i) })).join('\n') + '\n');
  await ingestFiles(index, { well: 'Pool', files: [file] });
  engine = await openEngine(index);
});

after(async () => {
  await engine?.close();
  cleanup();
});

test('a scan runs on the heavy lane, a lookup on the quick lane; a full heavy lane does not delay lookups', async () => {
  const before = await enginePoolStats();
  assert.deepEqual(before.map((s) => s.lane), ['quick', 'heavy', 'bulk']);
  const threads = lane(before, 'heavy').threads;
  assert.ok(threads >= 2 && lane(before, 'quick').threads === threads);

  await engine.search({ query: 'email:user7@example.com' });
  const afterExact = await enginePoolStats();
  assert.equal(lane(afterExact, 'heavy').done, lane(before, 'heavy').done, 'an exact search never reaches the heavy lane');
  const one = await engine.search({ query: heavy(0), mode: 'regex', countCache: false, timeBudgetMs: 60_000 });
  // A job counts as done after it handed its result over (on a low-priority thread), so the
  // count may trail the promise by a moment on a loaded machine.
  const heavyDone = async () => lane(await enginePoolStats(), 'heavy').done;
  for (let waited = 0; (await heavyDone()) <= lane(afterExact, 'heavy').done && waited < 5000; waited += 10) await new Promise((resolve) => setTimeout(resolve, 10));
  assert.equal(await heavyDone(), lane(afterExact, 'heavy').done + 1, 'a regex scan runs on the heavy lane');
  assert.ok(one.tookMicros > 0);

  // Fill the heavy lane (and queue as many again), then time lookups.
  const scans = Array.from({ length: threads * 3 }, (_, k) => engine.search({ query: heavy(k + 1), mode: 'regex', countCache: false, timeBudgetMs: 60_000 }));
  let settled = 0;
  for (const s of scans) void s.then(() => settled++, () => settled++);
  await new Promise((r) => setTimeout(r, 50));
  const busy = lane(await enginePoolStats(), 'heavy');
  assert.equal(busy.busy + busy.queued + settled, threads * 3, JSON.stringify(busy));
  const lookups: number[] = [];
  for (let i = 0; i < 50; i++) {
    const start = performance.now();
    assert.equal((await engine.search({ query: `email:user${i * 31}@example.com` })).total, 1);
    lookups.push(performance.now() - start);
  }
  const settledDuringLookups = settled;
  const results = await Promise.all(scans);
  lookups.sort((a, b) => a - b);
  const scanMs = Math.min(...results.map((r) => r.tookMicros / 1000));
  console.log(`# ${threads * 3} scans of ${scanMs.toFixed(0)} ms or more; 50 lookups meanwhile: median ${lookups[25]!.toFixed(2)} ms, max ${lookups[49]!.toFixed(1)} ms; ${settledDuringLookups} scans had finished`);
  assert.ok(settledDuringLookups < threads * 3, 'the lookups ran while scans were still queued or running');
  // On libuv's shared pool each lookup waited for a scan to finish.
  assert.ok(lookups[25]! < scanMs / 4, `median lookup ${lookups[25]} ms against scans of ${scanMs} ms`);
});

test('a regex query is compiled, and refused as too large, on the heavy lane: its check as much as its search', async () => {
  // Refused as too large only once compiled: finding out is heavy work, not a quick thread's.
  const costly = String.raw`email:/[\w\W]{1000}[\w\W]{1000}/`;
  // The heavy lane idle first: a scan of the test before counts itself done only after its answer.
  for (let waited = 0; waited < 5000; waited += 10) {
    const heavy = lane(await enginePoolStats(), 'heavy');
    if (heavy.busy === 0 && heavy.queued === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  await new Promise((resolve) => setTimeout(resolve, 50));
  const before = await enginePoolStats();
  await assert.rejects(validateQuery({ query: costly, mode: 'regex' }), { code: 'regex_too_big' });
  await assert.rejects(engine.search({ query: costly, mode: 'regex' }), { code: 'regex_too_big' });
  // A typed `&regex` toggle routes the same way.
  await assert.rejects(validateQuery({ query: `${costly}&regex`, mode: 'exact' }), { code: 'regex_too_big' });
  // A lane counts a call done just after handing back its answer: waited for.
  const heavyDone = async () => lane(await enginePoolStats(), 'heavy').done;
  for (let waited = 0; (await heavyDone()) < lane(before, 'heavy').done + 3 && waited < 5000; waited += 10) await new Promise((resolve) => setTimeout(resolve, 10));
  const moved = await heavyDone();
  assert.equal(moved - lane(before, 'heavy').done, 3, 'each call moved to the heavy lane');
  await validateQuery({ query: 'email:user1@example.com', mode: 'exact' });
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.equal(await heavyDone(), moved, 'an exact check stays on the quick lane');
});

test('a distinct count that scans the emails runs on the heavy lane; the count alone looks the domain up on the quick lane', async () => {
  const heavyLane = async () => lane(await enginePoolStats(), 'heavy');
  for (let waited = 0; waited < 5000; waited += 10) {
    const h = await heavyLane();
    if (h.busy === 0 && h.queued === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  await new Promise((resolve) => setTimeout(resolve, 50));
  const before = (await heavyLane()).done;
  assert.equal((await engine.wellCounts({ query: 'email:*@example.com', mode: 'wildcard' })).total, RECORDS);
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.equal((await heavyLane()).done, before, 'the domain lookup stays on the quick lane');
  assert.equal((await engine.wellCounts({ query: 'email:*@example.com', mode: 'wildcard', distinct: true })).distinct, RECORDS);
  for (let waited = 0; (await heavyLane()).done <= before && waited < 5000; waited += 10) await new Promise((resolve) => setTimeout(resolve, 10));
  assert.equal((await heavyLane()).done, before + 1, 'the scan of the emails moved to the heavy lane');
});

/** Runs a script in a fresh Node process (with tsx), with a time limit. */
function node(script: string, timeoutMs = 60_000) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', timeout: timeoutMs, cwd: join(import.meta.dirname, '..', '..') });
  return { status: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr };
}

const indexModule = JSON.stringify(join(import.meta.dirname, '..', 'index.ts'));

test('a pending call keeps the process alive; an idle engine does not', () => {
  // Nothing but the pending ingest keeps this process running until it settles.
  const file = join(dir, 'small.jsonl');
  writeFileSync(file, '{"email":"late@example.com"}\n');
  const pending = node(`
    const { ingestFiles } = await import(${indexModule});
    ingestFiles(${JSON.stringify(join(dir, 'other'))}, { well: 'Late', files: [${JSON.stringify(file)}] }).then((r) => console.log('ingested', r.records));
  `);
  assert.equal(pending.status, 0, pending.stderr);
  assert.match(pending.stdout, /ingested 1/);
  // An open engine with nothing pending lets the process end by itself.
  const start = Date.now();
  const idle = node(`
    const { openEngine } = await import(${indexModule});
    const e = await openEngine(${JSON.stringify(index)});
    console.log('found', (await e.search({ query: 'email:user1@example.com' })).total);
  `, 30_000);
  assert.equal(idle.signal, null, 'the process ended by itself');
  assert.equal(idle.status, 0, idle.stderr);
  assert.match(idle.stdout, /found 1/);
  assert.ok(Date.now() - start < 30_000);
});

test('a worker thread that exits with calls in flight does not disturb the process; its engine calls work while it lives', async () => {
  // The addon itself (the worker runs plain JavaScript): open, call.
  const rest: Omit<SearchArgs, 'query' | 'mode'> = { page: 1, size: 1, maxWindow: 10_000, dedup: true, timeBudgetMs: 60_000, type: 'all', countCache: false, rawRecord: 'line', oneTerm: false };
  const source = `
    const { parentPort } = require('node:worker_threads');
    const n = require(${JSON.stringify(addonPath)});
    (async () => {
      const h = await n.open(${JSON.stringify(index)});
      const search = (query, mode) => n.call(h, 'search', JSON.stringify({ query, mode, ...${JSON.stringify(rest)} }));
      parentPort.postMessage(JSON.parse(await search('email:user2@example.com', 'exact')).total);
      // Calls still running when the worker is terminated.
      for (let k = 0; k < 4; k++) void search(${JSON.stringify(heavy(40))}.replace('{70}', '{' + (70 + k) + '}'), 'regex').catch(() => {});
      parentPort.postMessage('scanning');
    })();
  `;
  const worker = new Worker(source, { eval: true });
  const messages: unknown[] = [];
  await new Promise<void>((resolve, reject) => {
    worker.on('message', (m) => {
      messages.push(m);
      if (m === 'scanning') resolve();
    });
    worker.on('error', reject);
  });
  assert.deepEqual(messages, [1, 'scanning']);
  await worker.terminate();
  // The scans finish on the engine's threads after their environment is gone; this one
  // keeps working meanwhile and after.
  for (let i = 0; i < 20; i++) assert.equal((await engine.search({ query: `email:user${i}@example.com` })).total, 1);
  const deadline = Date.now() + 120_000;
  while (lane(await enginePoolStats(), 'heavy').busy > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  assert.equal(lane(await enginePoolStats(), 'heavy').busy, 0, 'the orphaned scans ended');
  assert.equal((await engine.search({ query: 'email:user3@example.com' })).total, 1);
});

/** The scheduling policy of each of this process's threads whose name starts with `prefix` (Linux: /proc, field 41 of stat). */
function policies(prefix: string): number[] {
  const found: number[] = [];
  for (const tid of readdirSync('/proc/self/task')) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    } catch {
      continue; // the thread ended meanwhile
    }
    const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    // Fields from the third (state) on follow the parenthesised name.
    if (name.startsWith(prefix)) found.push(Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[41 - 3]));
  }
  return found;
}

test('heavy threads run under SCHED_IDLE (a waking ordinary thread takes their core at once), quick threads under SCHED_BATCH', { skip: process.platform !== 'linux' }, async () => {
  await engine.search({ query: 'email:user1@example.com' });
  const SCHED_BATCH = 3;
  const SCHED_IDLE = 5;
  const heavy = policies('engine-heavy');
  const quick = policies('engine-quick');
  assert.equal(heavy.length, lane(await enginePoolStats(), 'heavy').threads);
  assert.deepEqual(new Set(heavy), new Set([SCHED_IDLE]));
  assert.deepEqual(new Set(quick), new Set([SCHED_BATCH]));
});

test('a lone exact lookup runs on the JS thread while heavy scans are in flight: it waits for no thread', async () => {
  const threads = lane(await enginePoolStats(), 'heavy').threads;
  const scans = Array.from({ length: threads * 2 }, (_, k) => engine.search({ query: heavy(100 + k), mode: 'regex', countCache: false, timeBudgetMs: 60_000 }));
  await new Promise((resolve) => setTimeout(resolve, 50));
  const quickBefore = lane(await enginePoolStats(), 'quick').done;
  let inFlight = 0;
  for (let i = 0; i < 5; i++) {
    await new Promise((resolve) => setTimeout(resolve, 5));
    const heavyLane = lane(await enginePoolStats(), 'heavy');
    inFlight = Math.max(inFlight, heavyLane.busy + heavyLane.queued);
    const body = await engine.searchApiReply({ query: `email:user${i * 17}@example.com`, size: 20 }, false, 0);
    assert.match(body.toString('utf8'), /"total":1\}$/);
  }
  const quickAfter = lane(await enginePoolStats(), 'quick').done;
  await Promise.all(scans);
  assert.ok(inFlight > 0, 'the scans were still running during the lookups');
  // At most one lookup goes to the lanes for the index generation check (once a second).
  assert.ok(quickAfter - quickBefore <= 1, `${quickAfter - quickBefore} of 5 lookups went to the quick lane`);
});
