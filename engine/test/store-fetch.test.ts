// Fetching entries: a page of thousands of entries, written as JSON text straight
// from the store (searchApiText, getManyApiText), equals the entries of the value path
// (search, getMany) and of small pages; merges copy store blocks (format 4) and give the
// same entries, the same resolving ids and the same removals as before.
import assert from 'node:assert/strict';
import { readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type Engine, type Entry, ingestFiles, openEngine } from '../index';
import { rng, tempDir } from './helpers';

let dir: string;
let cleanup: () => void;
let index: string;
let engine: Engine;

const N = 3000;

/** Lines of every shape the renderer handles: combos, CSV (plain, quoted, repeated header, tab), JSON lines. */
function write(name: string, seed: number): { file: string; format: 'combo' | 'csv' | 'jsonl' } {
  const r = rng(seed);
  const pw = () => ['123456', 'hunter2', 'pässwörd', 'a"quote', 'back\\slash', 'tab\there'][Math.floor(r() * 6)] as string;
  const user = (i: number) => `user${seed}_${i}`;
  const lines: string[] = [];
  const file = join(dir, name);
  if (name.endsWith('.txt')) {
    for (let i = 0; i < N; i++) lines.push(i % 3 === 0 ? `${user(i)}@mail.example:${pw()}` : `${user(i)};${pw()}`);
    writeFileSync(file, lines.join('\n'));
    return { file, format: 'combo' };
  }
  if (name.endsWith('.csv')) {
    lines.push('email,login,password,ip,login,note');
    for (let i = 0; i < N; i++) {
      const p = pw();
      const cell = (v: string) => (v.includes('"') || v.includes(',') || i % 7 === 0 ? `"${v.replace(/"/g, '""')}"` : v);
      lines.push([`${user(i)}@x.org`, user(i), cell(p), i % 5 === 0 ? '' : `10.0.${i % 256}.1`, `second_${i}`, i % 11 === 0 ? 'ünïcode ✓' : ''].join(','));
    }
    writeFileSync(file, lines.join('\n'));
    return { file, format: 'csv' };
  }
  for (let i = 0; i < N; i++) lines.push(JSON.stringify({ email: `${user(i)}@y.org`, password: pw(), phone: i % 4 === 0 ? ['+1 555 0100', '+1 555 0101'] : '+44 20 7946 0000', extra: { n: i } }));
  writeFileSync(file, lines.join('\n'));
  return { file, format: 'jsonl' };
}

before(async () => {
  ({ dir, cleanup } = tempDir('engine-store-fetch-'));
  index = join(dir, 'index');
  for (const [i, name] of ['a.txt', 'b.csv', 'c.jsonl', 'd.csv'].entries()) {
    const { file, format } = write(name, i + 1);
    await ingestFiles(index, { well: `Well ${i}`, files: [file], format, partRecords: 1100, maxSegments: 0 });
  }
  engine = await openEngine(index);
});

after(async () => {
  await engine?.close();
  cleanup?.();
});

/** The public API's shape of an entry of the value path, law enforcement or not. */
function api(e: Entry, lawEnforcement: boolean): Record<string, unknown> {
  const { raw_record: raw, ...rest } = e;
  return lawEnforcement ? { ...rest, raw_record: { le_only: true, unstructured: raw } } : rest;
}

const queries = ['password:123456', 'password:hunter2', 'email:*@x.org', 'email:*@y.org', 'username:user2*', 'username:user1_1*'];

async function pages(query: string): Promise<{ total: number; text: Record<string, unknown>[]; le: Record<string, unknown>[]; values: Entry[] }> {
  const mode = query.includes('*') ? 'wildcard' : 'exact';
  const text = await engine.searchApiText({ query, mode, size: 10_000 }, false);
  const le = await engine.searchApiText({ query, mode, size: 10_000 }, true);
  const values = await engine.search({ query, mode, size: 10_000 });
  assert.equal(text.total, values.total, query);
  assert.equal(le.total, values.total, query);
  return { total: values.total, text: JSON.parse(text.entriesJson), le: JSON.parse(le.entriesJson), values: values.entries };
}

test('a page of thousands of entries as JSON text equals the value path, small pages and getMany', async () => {
  let seen = 0;
  for (const query of queries) {
    const p = await pages(query);
    assert.ok(p.total > 100, `${query}: ${p.total} hits`);
    assert.equal(p.values.length, Math.min(p.total, 10_000));
    assert.deepEqual(p.text, p.values.map((e) => api(e, false)), query);
    assert.deepEqual(p.le, p.values.map((e) => api(e, true)), query);
    // Small pages (the value path a page of 20 takes) hold the same entries.
    const mode = query.includes('*') ? 'wildcard' : 'exact';
    const small: Entry[] = [];
    for (let page = 1; small.length < Math.min(p.total, 600); page++) small.push(...(await engine.search({ query, mode, size: 100, page })).entries);
    assert.deepEqual(small, p.values.slice(0, small.length), query);
    // By id, in another order, with unknown ids between.
    const ids = p.values.map((e) => e.id).reverse();
    const asked = ids.flatMap((id, i) => (i % 50 === 0 ? [id, 'nope-0-0'] : [id]));
    const many = await engine.getMany(asked);
    assert.deepEqual(many.filter((e) => e !== null), [...p.values].reverse(), query);
    const manyText = await engine.getManyApiText(asked, true);
    assert.equal(manyText.found, ids.length);
    assert.deepEqual(JSON.parse(manyText.entriesJson), [...p.values].reverse().map((e) => api(e, true)), query);
    seen += p.total;
  }
  assert.ok(seen > 5000);
  // The shapes are all there, values with quotes, backslashes, tabs and non-ASCII included.
  const all = (await pages('email:*@x.org')).values.concat((await pages('email:*@y.org')).values, (await pages('username:user1_1*')).values);
  assert.ok(all.some((e) => e.database_name === 'Well 1' && e.raw_record.includes('"login":"second_') && e.username?.length === 2), 'CSV, a repeated column');
  assert.ok(all.some((e) => e.database_name === 'Well 2' && e.phone?.length === 2), 'JSON lines with arrays');
  for (const pw of ['a"quote', 'back\\slash', 'tab\there', 'pässwörd']) assert.ok(all.some((e) => e.password?.[0] === pw), pw);
  assert.ok(all.some((e) => e.raw_record.includes('ünïcode ✓')));
});

test('merges copy store blocks: same entries, old ids resolve, removals hold', async () => {
  const before = new Map<string, { total: number; values: Entry[] }>();
  for (const query of queries) {
    const p = await pages(query);
    before.set(query, { total: p.total, values: p.values });
  }
  const removed = before.get('password:hunter2')!.values[7]!;
  assert.equal(await engine.remove(removed.id), true);
  const afterRemoval = await pages('password:hunter2');
  const storeBytes = () => {
    let n = 0;
    for (const s of readdirSync(index).filter((d) => d.startsWith('seg-'))) {
      for (const p of readdirSync(join(index, s)).filter((d) => d.startsWith('part-'))) n += statSync(join(index, s, p, 'store.dat')).size;
    }
    return n;
  };
  const bytes = storeBytes();
  const m = await engine.merge({ partRecords: 2500 });
  assert.equal(m.merged.length, 4);
  // Copied, not recompressed: the blocks are the same bytes.
  assert.equal(storeBytes(), bytes);
  for (const query of queries) {
    const p = await pages(query);
    const was = query === 'password:hunter2' ? { total: afterRemoval.total, values: afterRemoval.values } : before.get(query)!;
    assert.equal(p.total, was.total, query);
    const strip = (e: Entry) => ({ ...e, id: '' });
    assert.deepEqual(p.values.map(strip), was.values.map(strip), query);
    assert.deepEqual(p.text, p.values.map((e) => api(e, false)), query);
    // Every old id resolves (aliases) to the same entry.
    const old = was.values.filter((_, i) => i % 97 === 0).map((e) => e.id);
    const got = await engine.getMany(old);
    assert.deepEqual(got.map((e) => e && strip(e)), was.values.filter((_, i) => i % 97 === 0).map(strip), query);
  }
  assert.equal(await engine.get(removed.id), null);
  // Merged again (copied blocks of copied blocks): still the same.
  await ingestFiles(index, { well: 'Late', files: [write('e.txt', 9).file], format: 'combo', maxSegments: 0 });
  await engine.merge();
  const p = await pages('password:123456');
  assert.equal(p.total, before.get('password:123456')!.total + (await engine.search({ query: 'password:123456&database_name="Late"' })).total);
  assert.deepEqual(p.text, p.values.map((e) => api(e, false)));
});
