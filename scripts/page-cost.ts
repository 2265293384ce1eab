/**
 * The cost of /v2/search pages in process, for profiles (engine/BENCHMARKS.md):
 *
 *   node --import tsx scripts/page-cost.ts page INDEX QUERY [REPS]
 *       `searchApiReply` of QUERY (size 10000, count cache off) once, then REPS times
 *       (default 20): the process CPU and wall-clock of each warm page, medians. Under
 *       `taskset -c 0 valgrind --tool=callgrind --toggle-collect='*Engine::search_reply*'`
 *       the instructions of REPS + 1 pages written on one thread.
 *   node --import tsx scripts/page-cost.ts paced INDEX EMAIL…
 *       one-hit exact searches of the EMAILs in turn: back to back, then paced at 10/s
 *       (as a client waiting for each answer at that rate), then paced with the CPU kept
 *       busy for the last millisecond before each call; p50 of each, and the engine's own
 *       `took` of the paced ones.
 *
 * INDEX: an engine index directory (`npm run bench` leaves one under its --dir).
 */
import { openEngine, type SearchRequest } from '../engine/index';

const [mode, dir, ...rest] = process.argv.slice(2);
if ((mode !== 'page' && mode !== 'paced') || !dir || rest.length === 0) {
  process.stderr.write('usage: node --import tsx scripts/page-cost.ts page INDEX QUERY [REPS] | paced INDEX EMAIL…\n');
  process.exit(2);
}
const median = (v: number[]) => [...v].sort((a, b) => a - b)[v.length >> 1] ?? NaN;
const engine = await openEngine(dir);

async function timed(req: SearchRequest): Promise<{ us: number; cpuUs: number; body: Buffer }> {
  const c0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  const body = await engine.searchApiReply(req, false, 0);
  const us = Number(process.hrtime.bigint() - t0) / 1000;
  const c = process.cpuUsage(c0);
  return { us, cpuUs: c.user + c.system, body };
}

if (mode === 'page') {
  const query = rest[0]!;
  const reps = Number(rest[1] ?? 20);
  const req: SearchRequest = { query, mode: query.includes('*') ? 'wildcard' : 'exact', size: 10_000, countCache: false, timeBudgetMs: 30_000 };
  const first = await timed(req);
  const entries = Math.min(10_000, Number(/"total":(\d+)\}$/.exec(first.body.subarray(-40).toString('latin1'))?.[1] ?? 0));
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < reps; i++) {
    const t = await timed(req);
    wall.push(t.us);
    cpu.push(t.cpuUs);
  }
  const perEntry = (us: number) => (entries ? (us / entries).toFixed(3) : '-');
  console.log(`${query}: ${entries} entries; warm median of ${reps}: wall ${(median(wall) / 1000).toFixed(2)} ms (${perEntry(median(wall))} µs an entry), process CPU ${(median(cpu) / 1000).toFixed(2)} ms (${perEntry(median(cpu))} µs an entry); first ${(first.us / 1000).toFixed(2)} ms`);
} else {
  const one = (i: number) => timed({ query: `email:"${rest[i % rest.length]}"`, mode: 'exact', size: 20, countCache: false });
  const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
  for (let i = 0; i < 200; i++) await one(i);
  const backToBack: number[] = [];
  for (let i = 0; i < 1000; i++) backToBack.push((await one(i)).us);
  const paced: number[] = [];
  const spun: number[] = [];
  const took: number[] = [];
  for (let i = 0; i < 60; i++) {
    await pause(100);
    const t = await one(i);
    paced.push(t.us);
    const micros = /"took":"(\d+)µs"/.exec(t.body.toString('utf8'))?.[1];
    if (micros) took.push(Number(micros));
    await pause(99);
    const until = performance.now() + 1;
    while (performance.now() < until);
    spun.push((await one(i + 1)).us);
  }
  console.log(`one-hit searchApiReply, p50: back to back ${median(backToBack).toFixed(1)} µs; paced at 10/s ${median(paced).toFixed(1)} µs (engine took ${median(took).toFixed(0)} µs); paced, the CPU busy for 1 ms before ${median(spun).toFixed(1)} µs`);
}
await engine.close();
