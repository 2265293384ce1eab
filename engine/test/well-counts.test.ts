// `wellCounts`: a query's matching records per data well, through the addon: several wells
// and segments, duplicates counted (no dedup), sorted by records then name, renames,
// removals, takedowns, source filters, a merge, and refusals as a search's; and the distinct
// values of a one-term query (a domain's addresses).
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { EngineError, EngineQueryError, ingestFiles, openEngine } from '../index';
import { tempDir } from './helpers';

const { dir, cleanup } = tempDir('engine-well-counts-');
after(() => cleanup());

function jsonl(name: string, recs: Record<string, string | string[]>[]): string {
  const p = join(dir, name);
  writeFileSync(p, recs.map((r) => JSON.stringify(r)).join('\n') + '\n');
  return p;
}

test('wellCounts counts matching records per well, following renames, removals, takedowns and merges', async () => {
  const index = join(dir, 'index');
  const filler = Array.from({ length: 9 }, (_, i) => ({ email: `filler${i}@y.org` }));
  const ingest = async (well: string, recs: Record<string, string>[]) =>
    (await ingestFiles(index, { well, files: [jsonl(`${well}.jsonl`, recs)], format: 'jsonl', partRecords: 4 })).segmentId;
  await ingest('Zeta', [...filler, { email: 'ann@x.com', password: 'z1' }, { email: 'ANN@x.com ', password: 'z1' }, { email: 'ann@x.com', password: 'z2' }]);
  const beta = await ingest('Beta', [{ email: 'ann@x.com', password: 'b1' }, { email: 'ann@x.com', password: 'b2' }, { email: 'bo@x.com' }]);
  const alpha = await ingest('Alpha', [{ email: 'ann@x.com', password: 'a1' }, { email: 'ann@x.com', password: 'a2' }]);
  const engine = await openEngine(index);
  try {
    const wells = async (query: string, mode: 'exact' | 'wildcard' = 'exact') => {
      const r = await engine.wellCounts({ query, mode });
      assert.equal(r.total, r.wells.reduce((n, w) => n + w.records, 0));
      assert.ok(r.tookMicros >= 0);
      return r.wells.map((w) => [w.well, w.records]);
    };
    assert.deepEqual(await wells('email:ann@x.com'), [['Zeta', 3], ['Alpha', 2], ['Beta', 2]], 'by records, then by name');
    assert.deepEqual(await wells('ann@x.com'), [['Zeta', 3], ['Alpha', 2], ['Beta', 2]], 'bare term: every field');
    assert.deepEqual(await wells('email:ann*', 'wildcard'), [['Zeta', 3], ['Alpha', 2], ['Beta', 2]]);
    assert.deepEqual(await wells('email:bo@x.com'), [['Beta', 1]]);
    assert.deepEqual(await wells('email:nobody@x.com'), []);
    assert.deepEqual(await wells('email:ann@x.com&database_name=alpha'), [['Alpha', 2]]);
    assert.equal((await engine.search({ query: 'email:ann@x.com', dedup: false })).total, 7, 'the hits of a search without dedup');

    await engine.editWells({ rename: [[alpha!, 'Beta']] });
    assert.deepEqual(await wells('email:ann@x.com'), [['Beta', 4], ['Zeta', 3]], 'a rename into another name: one well');
    const z1 = (await engine.search({ query: 'password:z1', size: 1 })).entries[0]!;
    assert.equal(await engine.remove(z1.id), true);
    assert.deepEqual(await wells('email:ann@x.com'), [['Beta', 4], ['Zeta', 1]], 'a removal hides both alike records');
    await engine.editWells({ delete: [beta!] });
    assert.deepEqual(await wells('email:ann@x.com'), [['Beta', 2], ['Zeta', 1]], 'the taken-down ingest is gone, the renamed one stays');
    assert.deepEqual(await wells('email:bo@x.com'), []);

    await engine.merge({ all: true });
    assert.equal((await engine.stats()).segments, 1);
    assert.deepEqual(await wells('email:ann@x.com'), [['Beta', 2], ['Zeta', 1]], 'after a merge');

    await assert.rejects(engine.wellCounts({ query: 'email:ann*', mode: 'wildcard', oneTerm: true }), (e: unknown) => e instanceof EngineQueryError && e.code === 'subscription_required');
    await assert.rejects(engine.wellCounts({ query: 'email:' }), (e: unknown) => e instanceof EngineQueryError && e.code === 'syntax');
  } finally {
    await engine.close();
  }
});

test('wellCounts counts the distinct values of one term of one field when asked', async () => {
  const index = join(dir, 'distinct');
  const ingest = async (well: string, recs: Record<string, string | string[]>[]) =>
    (await ingestFiles(index, { well, files: [jsonl(`d-${well}.jsonl`, recs)], format: 'jsonl', partRecords: 3 })).segmentId;
  await ingest('North', [
    { email: ['Ann@Example.com', 'bob@example.com'] }, { email: ['cy@example.com', 'zed@other.org'] }, { email: 'x@y.org' },
    { email: 'ANN@example.com', password: 'n1' }, { email: 'ann@sub.example.com' }, { email: 'dee@example.com', password: 'd1' },
  ]);
  await ingest('South', [{ email: 'ann@example.com' }, { email: 'fay@example.com' }]);
  const engine = await openEngine(index);
  try {
    const domain = async (query = 'email:*@example.com') => {
      const r = await engine.wellCounts({ query, mode: 'wildcard', distinct: true });
      return [r.total, r.distinct];
    };
    // ann (three records, two wells), bob and cy (one record holding two), dee, fay; not
    // zed@other.org beside cy, nor ann@sub.example.com.
    assert.deepEqual(await domain(), [6, 5]);
    assert.equal((await engine.wellCounts({ query: 'email:*@example.com', mode: 'wildcard' })).distinct, null, 'not asked');
    assert.deepEqual(await domain('email:*@example.com&database_name=south'), [2, 2]);
    const exact = await engine.wellCounts({ query: 'email:ANN@EXAMPLE.COM', distinct: true });
    assert.deepEqual([exact.total, exact.distinct], [3, 1], 'an exact term: compared lower-cased');

    assert.equal(await engine.remove((await engine.search({ query: 'password:d1', size: 1 })).entries[0]!.id), true);
    assert.deepEqual(await domain(), [5, 4], "dee's only record removed");
    await engine.merge({ all: true });
    assert.deepEqual(await domain(), [5, 4], 'after a merge');

    for (const query of ['email:ann@example.com password:n1', 'ann@example.com']) {
      await assert.rejects(engine.wellCounts({ query, distinct: true }), (e: unknown) => e instanceof EngineError && e.code === 'invalid_argument' && /one term of one field/.test(e.message), query);
    }
  } finally {
    await engine.close();
  }
});
