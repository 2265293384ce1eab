// Format 6, 7 and 8 parts (the 10M indexes written before format 7, 8 and 9) are read by this
// engine as the engine that wrote them answered: `fixtures/format6` is an index of three parts
// written by the format 6 engine (commit 07150b7) with that engine's answers to every kind of
// lookup (`make.mjs`, `expected.json`); `fixtures/format7` and `fixtures/format8` the same
// records written by the format 7 engine (commit 073dec4) and the format 8 one (76eee5c).
// Format 7 changed what these lookups read (one-document postings packed in `.pix`,
// Rice-coded `.tri` lists, store blocks with varint lengths), format 8 only the store (bare
// zstd blocks and a grouped block map, `store.map` starting with `LWM8`), format 9 the `.pix`
// blocks (up to 64 terms, each with its `.post` offset), so the old forms are only exercised
// here. Then a format 9 segment of the same records joins it (every record a duplicate, so the
// deduplicated answers stay the same) and a merge rewrites both as format 9 (the merge cuts
// the old stores' frames). Format 10 changed the dedup keys (`dedup.dat`, a whole key a
// record, became `dedup.top` and `dedup.rest`): both forms are read side by side, and after
// the merge a removal hides a record whose key is only computed again from its line.
// Format 11 dropped the `email_local` table that formats 6 to 10 wrote (the local parts'
// trigrams in `email.ltri` instead): `email:*lit*` is checked against the records at each step.
import assert from 'node:assert/strict';
import { cpSync, existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ingestFiles, openEngine, type Engine } from '../index';
import { answers, tempDir, type Expected } from './helpers';

const { dir, cleanup } = tempDir('engine-format6-');
after(() => cleanup());

const records = fileURLToPath(new URL('./fixtures/format6/a.jsonl', import.meta.url));

/** The `.pix` flags of a part's fields: bit 31 (format 6 bitmaps), bit 30 (format 7 packed
 * documents), bit 29 (format 9 blocks with their `.post` offset). */
function pixFlags(part: string): Set<number> {
  return new Set(readdirSync(part).filter((f) => f.endsWith('.pix')).map((f) => readFileSync(join(part, f)).readUInt32LE(0) >>> 29));
}

/** `pixFlags` of a part of each format (format 8 wrote format 7's `.pix`). */
const PIX = { 6: 0b100, 7: 0b110, 8: 0b110, 9: 0b111 };

/** Whether a part's store has the format 8 block map (else the 16-byte entries of formats 4-7). */
function storeMap8(part: string): boolean {
  return readFileSync(join(part, 'store.map')).subarray(0, 4).toString('latin1') === 'LWM8';
}

/** `email:*lit*` totals without dedup against the records holding the literal (times `copies`). */
async function checkEmailInfixes(engine: Engine, copies: number, when: string): Promise<void> {
  const emails = readFileSync(records, 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as { email?: string }).email?.trim().toLowerCase() ?? '');
  // In local parts (mari, a.k), in domains (example, .org), in both (gmail, an), across the `@`.
  for (const lit of ['gmail', 'mari', 'a.k', 'example', '.org', 'an', 'e', '1@e', 'zzz']) {
    const want = emails.filter((e) => e.includes(lit)).length;
    const r = await engine.search({ query: `email:*${lit}*`, mode: 'wildcard', size: 1, dedup: false, countCache: false });
    assert.equal(r.total, copies * want, `${when}: email:*${lit}*`);
  }
}

/** Whether a part has the `email_local` table (formats 6-10) rather than `email.ltri` (11). */
function emailLocal(part: string): boolean {
  const files = readdirSync(part);
  assert.notEqual(files.includes('email_local.terms'), files.includes('email.ltri'), part);
  return files.includes('email_local.terms');
}

function parts(index: string): string[] {
  return readdirSync(index)
    .filter((d) => d.startsWith('seg-'))
    .flatMap((s) => readdirSync(join(index, s)).filter((p) => p.startsWith('part-')).map((p) => join(index, s, p)));
}

for (const old of [6, 7, 8] as const) {
  test(`format ${old} parts answer as the engine that wrote them did, beside a segment and after a merge in the current format`, async () => {
    const fixture = fileURLToPath(new URL(`./fixtures/format${old}`, import.meta.url));
    const index = join(dir, `index${old}`);
    cpSync(join(fixture, 'index'), index, { recursive: true });
    const expected = JSON.parse(readFileSync(join(fixture, 'expected.json'), 'utf8')) as Expected;
    assert.equal(parts(index).length, 3);
    for (const p of parts(index)) assert.deepEqual(pixFlags(p), new Set([PIX[old]]), `${p} is a format ${old} part`);
    for (const p of parts(index)) assert.equal(storeMap8(p), old === 8, `${p} has a format ${old} store`);
    for (const p of parts(index)) assert.ok(existsSync(join(p, 'dedup.dat')) && !existsSync(join(p, 'dedup.top')), `${p} has whole dedup keys`);
    // The fixture exercises what it is meant to: lookups of many and of one document, and hits.
    assert.ok(expected.searches.every((s) => s.total > 0));
    assert.ok(expected.searches.some((s) => s.total === 1) && expected.searches.some((s) => s.total >= 80));
    assert.ok(Object.values(expected.counts).filter((c) => c > 1).length >= 3);

    const engine = await openEngine(index);
    try {
      assert.deepEqual(await answers(engine, expected), expected, `format ${old} parts, as written`);
      assert.ok(parts(index).every(emailLocal));
      await checkEmailInfixes(engine, 1, `format ${old} parts (email_local)`);

      await ingestFiles(index, { well: 'Six', files: [records], format: 'jsonl' });
      await engine.refresh();
      assert.equal(parts(index).length, 4);
      const fresh = parts(index).filter((p) => pixFlags(p).has(PIX[9]));
      assert.equal(fresh.length, 1, 'the new segment has format 9 postings');
      assert.deepEqual(parts(index).map(storeMap8).sort(), [old === 8, old === 8, old === 8, true].sort(), 'and a format 8 store');
      // Format 10 keys: a short key a record, and the whole key of each record that is not
      // the first with its key: here every record (they all repeat a fixture record).
      const [part] = fresh as [string];
      const docs = (JSON.parse(readFileSync(join(part, 'part.json'), 'utf8')) as { docs: number }).docs;
      assert.ok(!existsSync(join(part, 'dedup.dat')));
      assert.equal(statSync(join(part, 'dedup.top')).size, 4 * docs);
      assert.equal(statSync(join(part, 'dedup.rest')).size, 8 * docs);
      assert.equal(parts(index).filter(emailLocal).length, 3, 'the new segment has email.ltri');
      await checkEmailInfixes(engine, 2, `format ${old} and 11 side by side`);
      const both = await answers(engine, expected);
      assert.deepEqual(both.searches, expected.searches, `format ${old} and 9 side by side: every new record is a duplicate`);
      // A hash's count is of distinct records (the duplicates add nothing); a range counts
      // every record, as the format 6 engine did for the same two segments.
      assert.deepEqual(both.counts, expected.counts);
      const doubled = Object.fromEntries(Object.entries(expected.ranges).map(([p, r]) => [p, { ...r, suffixes: r.suffixes.map((x) => ({ ...x, count: 2 * x.count })) }]));
      assert.deepEqual(both.ranges, doubled);

      const m = await engine.merge();
      assert.ok(m.merged.length >= 1);
      for (const p of parts(index)) assert.deepEqual(pixFlags(p), new Set([PIX[9]]), `${p} was rewritten with format 9 postings`);
      for (const p of parts(index)) assert.ok(storeMap8(p), `${p} has a format 8 store`);
      for (const p of parts(index)) assert.ok(existsSync(join(p, 'dedup.top')) && !existsSync(join(p, 'dedup.dat')), `${p} has format 10 keys`);
      assert.ok(!parts(index).some(emailLocal), 'merged: email.ltri, no email_local');
      await checkEmailInfixes(engine, 2, 'merged into format 11');
      const merged = await answers(engine, expected);
      assert.deepEqual(merged.searches, expected.searches, 'after the merge');
      assert.deepEqual(merged.counts, expected.counts);
      assert.deepEqual(merged.ranges, doubled);

      // Removing the second copy of a record (its whole key in `dedup.rest`) hides the first
      // (only its short key stored: its whole key is computed again from its line).
      const one = expected.searches.find((s) => s.total === 1)!;
      const copies = async () => (await engine.search({ query: one.query, mode: one.mode, page: 1, size: 10, dedup: false, countCache: false })).entries;
      const [first, second] = (await copies()).map((e) => e.id);
      assert.ok(first !== undefined && second !== undefined);
      assert.ok(await engine.remove(second));
      assert.deepEqual(await copies(), [], 'both copies removed');
      assert.equal(await engine.get(first), null);
    } finally {
      await engine.close();
    }
  });
}
