// Ingest A/B of two engine builds: the bench's 10M ingests, one per source (as
// scripts/bench.ts does, automatic merges inside), with a given addon file, so two builds
// (copies of engine/build/engine.node) run alternately in the same minutes: the machine's
// speed drifts between runs, so only interleaved runs compare. Prints one
// JSON line: wall, records/s, the process's CPU seconds, merges, the summed `timing` phase
// figures (seconds) when the build reports them, index bytes, load average.
// usage: node scripts/engine-ingest-ab.mjs ADDON.node INDEXDIR [maxSegments] [firstN]
// (INDEXDIR is removed first; the corpus is /tmp/bench-store/10000000-1, or CORPUS=dir.)
import { createRequire } from 'node:module';
import { readFileSync, rmSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
const [addon, dir, maxS = '8', firstN = '42'] = process.argv.slice(2);
const n = createRequire(import.meta.url)(addon);
const corpus = JSON.parse(readFileSync(join(process.env.CORPUS ?? '/tmp/bench-store/10000000-1', 'corpus.json'), 'utf8'));
rmSync(dir, { recursive: true, force: true });
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1e6; };
const t0 = performance.now(), c0 = cpu();
let mergeMs = 0, merges = 0, recs = 0;
const T = {};
const add = (o, pre) => { for (const [k, v] of Object.entries(o ?? {})) T[pre + k] = (T[pre + k] ?? 0) + v; };
for (const s of corpus.sources.slice(0, Number(firstN))) {
  const buf = new Float64Array(6);
  const out = JSON.parse(await n.ingest(JSON.stringify({ indexDir: dir, well: s.well, files: [s.file], maxSegments: Number(maxS) }), buf));
  recs += out.records;
  add(out.timing, 'ingest.');
  if (out.timing) T['ingest.visibleMs'] = (T['ingest.visibleMs'] ?? 0) + out.timing.publishedMs - out.timing.indexedMs - out.timing.durableMs;
  if (out.merge) add(out.merge.timing, 'merge.');
  if (out.merge && out.merge.error === undefined) { mergeMs += out.merge.elapsedMs; merges++; }
  if (out.merge && out.merge.error) console.log('merge error', out.merge.error);
}
const ms = performance.now() - t0, c = cpu() - c0;
const du = (p) => { let t = 0; for (const e of readdirSync(p)) { const q = join(p, e); const st = statSync(q); t += st.isDirectory() ? du(q) : st.size; } return t; };
const man = { segments: readdirSync(dir).filter((e) => e.startsWith('seg-')) };
console.log(JSON.stringify({ addon, records: recs, wallS: +(ms / 1000).toFixed(2), recPerS: Math.round(recs / (ms / 1000)), cpuS: +c.toFixed(2), merges, mergeS: +(mergeMs / 1000).toFixed(2), noMergeRecPerS: Math.round(recs / ((ms - mergeMs) / 1000)), segments: man.segments.length, timing: Object.fromEntries(Object.entries(T).map(([k, v]) => [k, +(v / 1000).toFixed(2)])), bytes: du(dir), load: readFileSync('/proc/loadavg', 'utf8').trim() }));
