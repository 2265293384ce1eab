// `upgradeIndex` (`npm run admin -- index:upgrade`) rewrites the segments of older formats in
// the current one with the answers they gave: `fixtures/format6` (the oldest format this
// engine reads, written by the format 6 engine with its answers in `expected.json`) is served
// by an open engine while it is upgraded, then answers the same from the format 12 segment
// that replaced it, and by NTLM too (the upgrade derives the table format 12 added); a second
// run does nothing. `fixtures/format5` (written by the format 5 engine, older than this
// engine reads) is refused by open and by the upgrade alike, with what to do, and left
// untouched.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { cpSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { EngineError, ingestFiles, openEngine, upgradeIndex, type Engine } from '../index';
import { answers, tempDir, type Expected } from './helpers';

const { dir, cleanup } = tempDir('engine-upgrade-');
after(() => cleanup());

const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));

function copyIndex(name: string): string {
  const index = join(dir, name);
  cpSync(join(fixture(name), 'index'), index, { recursive: true });
  return index;
}

/** The format of the MANIFEST, and of every segment and part of the index. */
function formats(index: string): { manifest: number; files: Set<number> } {
  const read = (...p: string[]) => (JSON.parse(readFileSync(join(index, ...p), 'utf8')) as { format_version: number }).format_version;
  const files = new Set<number>();
  for (const seg of readdirSync(index).filter((d) => d.startsWith('seg-'))) {
    files.add(read(seg, 'segment.json'));
    for (const part of readdirSync(join(index, seg)).filter((p) => p.startsWith('part-'))) files.add(read(seg, part, 'part.json'));
  }
  return { manifest: read('MANIFEST'), files };
}

/** The answers with every record present twice: deduplicated searches and hash counts are the same, ranges count each copy. */
const twice = (e: Expected): Expected => ({
  ...e,
  ranges: Object.fromEntries(Object.entries(e.ranges).map(([p, x]) => [p, { ...x, suffixes: x.suffixes.map((y) => ({ ...y, count: 2 * y.count })) }])),
});

// NTLM of 'Secret!', a password of the format 6 fixture (format 12 added the NTLM table), from
// `openssl dgst -provider legacy -md4` of its UTF-16LE encoding (Node's OpenSSL has no MD4).
const SECRET_NTLM = 'a81c4e106556054dc281446237ab715d';
const SECRET_SHA1 = createHash('sha1').update('Secret!').digest('hex');

/** A hash's count in its range (every record holding it, duplicates too). */
async function inRange(engine: Engine, hash: string): Promise<number> {
  const r = await engine.passwordRange(hash.slice(0, 5));
  return r.suffixes.find((s) => s.suffix === hash.slice(5))?.count ?? 0;
}

test('index:upgrade rewrites a format 6 index into the current format with the same answers, while it is served; a second run does nothing', async () => {
  const index = copyIndex('format6');
  const expected = JSON.parse(readFileSync(join(fixture('format6'), 'expected.json'), 'utf8')) as Expected;
  assert.deepEqual(formats(index), { manifest: 6, files: new Set([6]) });
  const engine = await openEngine(index);
  try {
    assert.deepEqual(await answers(engine, expected), expected, 'format 6, served as it is');
    const before = await engine.search({ query: expected.searches[0]!.query, mode: expected.searches[0]!.mode, size: 3 });
    const secrets = await inRange(engine, SECRET_SHA1);
    assert.ok(secrets > 0);
    assert.equal(await inRange(engine, SECRET_NTLM), 0, 'a format 6 part has no NTLM table');

    // A current segment beside it (every record a duplicate: the deduplicated answers stay) is left as it is.
    const fresh = await ingestFiles(index, { well: 'Six', files: [join(fixture('format6'), 'a.jsonl')], format: 'jsonl' });
    assert.deepEqual(formats(index).files, new Set([6, 12]));
    await engine.refresh();
    assert.equal(await inRange(engine, SECRET_NTLM), secrets, 'NTLM from the current segment only');

    const r = await upgradeIndex(index);
    assert.equal(r.upgraded.length, 1);
    const [seg] = r.upgraded;
    assert.equal(seg!.fromFormat, 6);
    assert.equal(seg!.toFormat, 12);
    assert.equal(r.format, 12);
    assert.equal(seg!.records, 404);
    assert.equal(seg!.recordsAfter, 404);
    assert.notEqual(seg!.to, seg!.from);
    assert.deepEqual(r.dropped, []);
    assert.equal(r.segments, 2);
    assert.deepEqual(formats(index), { manifest: 12, files: new Set([12]) });
    assert.ok(readdirSync(index).includes(`seg-${fresh.segmentId}`), 'the current segment was not rewritten');

    // The open engine serves the new segment once it refreshes; ids handed out before keep resolving.
    await engine.refresh();
    assert.deepEqual(await answers(engine, expected), twice(expected), 'upgraded, same engine');
    assert.equal(await inRange(engine, SECRET_NTLM), 2 * secrets, 'the upgrade derived the NTLM table');
    assert.equal(await inRange(engine, SECRET_SHA1), 2 * secrets);
    for (const e of before.entries) assert.equal((await engine.get(e.id))?.raw_record, e.raw_record, `get ${e.id}`);

    const again = await upgradeIndex(index);
    assert.deepEqual(again.upgraded, []);
    assert.deepEqual(again.dropped, []);
    assert.equal(again.segments, 2);
    assert.deepEqual(formats(index), { manifest: 12, files: new Set([12]) });
  } finally {
    await engine.close();
  }
  const reopened = await openEngine(index);
  try {
    assert.deepEqual(await answers(reopened, expected), twice(expected), 'upgraded, opened again');
  } finally {
    await reopened.close();
  }
});

test('an index of a format older than this engine reads is refused by open and by the upgrade, naming what to do, and left as it was', async () => {
  const index = copyIndex('format5');
  const manifest = readFileSync(join(index, 'MANIFEST'), 'utf8');
  const refused = (e: unknown) => {
    assert.ok(e instanceof EngineError, String(e));
    assert.equal(e.code, 'unsupported_format');
    assert.match(e.message, /index format 5, which this engine no longer reads \(it reads formats 6 to 12\)/);
    assert.match(e.message, /re-ingest its data/);
    assert.match(e.message, /npm run admin -- index:upgrade/);
    return true;
  };
  await assert.rejects(openEngine(index), refused);
  await assert.rejects(upgradeIndex(index), refused);
  assert.equal(readFileSync(join(index, 'MANIFEST'), 'utf8'), manifest);
  assert.deepEqual(formats(index), { manifest: 5, files: new Set([5]) });

  // A format 5 segment in an index whose MANIFEST a newer engine rewrote is refused by its segment.
  const mixed = join(dir, 'mixed');
  cpSync(index, mixed, { recursive: true });
  const m = JSON.parse(manifest) as { format_version: number };
  m.format_version = 12;
  writeFileSync(join(mixed, 'MANIFEST'), JSON.stringify(m));
  await assert.rejects(openEngine(mixed), (e: unknown) => refused(e) && /^segment 0mwu19czvq4dkz is in index format 5/.test((e as Error).message));
  await assert.rejects(upgradeIndex(mixed), refused);
});
