// Compatibility: an index written by the format 1 engine (fixtures/format1, made by the
// engine of commit d05bbf1 with fixtures/format1/make.mjs: two ingests, one removal, whose
// tombstones.log is kept as fixtures/format1/tombstones.txt) is
// read as it is, gives the same results, and a merge rewrites it into format 2 with the
// same results, ids that keep resolving and the removal still in force.
import assert from 'node:assert/strict';
import { cpSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { type Entry, type Engine, ingestFiles, openEngine, type SearchMode } from '../index';
import { tempDir } from './helpers';

const fixture = fileURLToPath(new URL('./fixtures/format1', import.meta.url));
const { dir, cleanup } = tempDir('engine-format1-');
after(() => cleanup());

type Expected = { removedId: string; results: { query: string; mode: SearchMode; dedup: boolean; total: number; entries: Entry[] }[] };
const expected = JSON.parse(readFileSync(join(fixture, 'expected.json'), 'utf8')) as Expected;

async function check(engine: Engine, sameIds: boolean): Promise<void> {
  for (const x of expected.results) {
    const r = await engine.search({ query: x.query, mode: x.mode, dedup: x.dedup, size: 100 });
    const ctx = `${x.mode} ${x.query} dedup=${x.dedup}`;
    assert.equal(r.total, x.total, ctx);
    assert.deepEqual(r.entries.map((e) => [e.raw_record, e.database_name]), x.entries.map((e) => [e.raw_record, e.database_name]), ctx);
    if (sameIds) assert.deepEqual(r.entries.map((e) => e.id), x.entries.map((e) => e.id), ctx);
    for (const e of x.entries.slice(0, 3)) assert.equal((await engine.get(e.id))?.raw_record, e.raw_record, `get ${e.id}`);
  }
  assert.equal(await engine.get(expected.removedId), null);
}

test('a format 1 index is read, merged into format 2, and ingested into', async () => {
  const index = join(dir, 'index');
  cpSync(join(fixture, 'index'), index, { recursive: true });
  // Kept outside the index under another name: `*.log` is git-ignored.
  cpSync(join(fixture, 'tombstones.txt'), join(index, 'tombstones.log'));
  let engine = await openEngine(index);
  try {
    await check(engine, true);
    const m = await engine.merge();
    assert.equal(m.merged.length, 2);
    assert.equal((await engine.stats()).segments, 1);
    await check(engine, false);
    await engine.close();
    engine = await openEngine(index);
    await check(engine, false);
    // A new ingest next to the migrated segment.
    const r = await ingestFiles(index, { well: 'New', files: [join(fixture, 'a.jsonl')], format: 'jsonl' });
    assert.equal(r.records, 60);
    await engine.refresh();
    const all = await engine.search({ query: 'password:123456', dedup: false, size: 200 });
    const old = expected.results.find((x) => x.query === 'password:123456' && !x.dedup)?.total ?? 0;
    assert.ok(all.total > old);
    assert.equal((await engine.search({ query: 'password:123456', size: 200 })).total, expected.results.find((x) => x.query === 'password:123456' && x.dedup)?.total);
    // Regression: merging a part without email local parts (format 1) with one that has
    // them must not leave a local-part table that covers only some emails (*lit* would
    // then miss the old records' local parts).
    const infixes = ['email:*john*', 'email:*gmail*', 'email:*bob*', 'email:*example*'];
    const totals = async () => Promise.all(infixes.map(async (query) => (await engine.search({ query, mode: 'wildcard', dedup: false, countCache: false })).total));
    const beforeMerge = await totals();
    assert.ok(beforeMerge.every((t) => t > 0));
    await engine.merge();
    await engine.refresh();
    assert.deepEqual(await totals(), beforeMerge);
  } finally {
    await engine.close();
  }
});
