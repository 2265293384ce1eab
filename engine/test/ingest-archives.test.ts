// Archives and compression at ingest: zip, tar (plain, gzip, xz, bzip2, zstd), xz, bzip2
// and zstd files recognised by content; directories; truncated and corrupt inputs stop the
// run with nothing published; bombs stopped by the caps. Zip, tar and gzip inputs are built
// in code (scripts/lib/archives.ts); the xz, bzip2 and zstd ones are small committed
// fixtures (fixtures/archives, see its README).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { makeTar, makeZip } from '../../scripts/lib/archives';
import { type IngestProgress, ingestFiles, openEngine } from '../index';
import { tempDir } from './helpers';

const root = fileURLToPath(new URL('../..', import.meta.url));
const fixtures = fileURLToPath(new URL('./fixtures/archives', import.meta.url));
let dir: string;
let cleanup: () => void;

before(() => {
  ({ dir, cleanup } = tempDir('engine-archives-'));
});
after(() => cleanup?.());

async function count(index: string, query: string): Promise<number> {
  const e = await openEngine(index);
  try {
    return (await e.search({ query })).total;
  } finally {
    await e.close();
  }
}

/** What an index holds, reports aside: a failed run must leave it as it was. */
function snapshot(index: string): string {
  return JSON.stringify([readdirSync(index).filter((f) => f !== 'reports').sort(), existsSync(join(index, 'MANIFEST')) ? readFileSync(join(index, 'MANIFEST'), 'utf8') : null]);
}

test('every container, recognised by content: zip members each detected, tar, tar.gz, tar.xz, tar.bz2, tar.zst, xz, bzip2, zstd', async () => {
  const d = join(dir, 'containers');
  const zip = makeZip([
    { name: 'users.csv', data: 'email,username,password\nzed@zip.example,zed_zip,zip-secret-1\n' },
    { name: 'more/combo.txt', data: 'zara@zip.example:zip-secret-2\n', method: 0 },
    { name: 'lines.jsonl.gz', data: gzipSync('{"email":"zeno@zip.example","phone":"+1 555 0199"}\n'), method: 0 },
    { name: '../../outside.txt', data: 'zola@zip.example:zip-secret-3\n' },
    { name: '__MACOSX/._users.csv', data: Buffer.from([0, 5, 22, 7, 0, 2, 0, 0]) },
    { name: 'inner.zip', data: makeZip([{ name: 'x.txt', data: 'never@zip.example:x\n' }]) },
  ]);
  writeFileSync(join(dir, 'dump.zip'), zip);
  const tar = makeTar([
    { name: 'dump/', data: '', type: '5' },
    { name: 'dump/users.jsonl', data: '{"email":"gina@tgz.example","password":"tgz-secret"}\n' },
    { name: 'ignored', data: 'gus@tgz.example:tgz-secret-2\n', pax: `dump/${'long-directory-name/'.repeat(8)}combo.txt` },
  ]);
  writeFileSync(join(dir, 'dump.tgz'), gzipSync(tar));
  writeFileSync(join(dir, 'plain.tar'), makeTar([{ name: 'a.csv', data: 'email;password\npia@tar.example;tar-secret\n' }]));
  // Names that say nothing: the content decides.
  copyFileSync(join(fixtures, 'users.jsonl.xz'), join(dir, 'noext-1'));
  copyFileSync(join(fixtures, 'combo.txt.zst'), join(dir, 'noext-2.txt'));
  const files = [join(dir, 'dump.zip'), join(dir, 'dump.tgz'), join(dir, 'plain.tar'), join(dir, 'noext-1'), join(dir, 'noext-2.txt'), ...['users.csv.bz2', 'dump.tar.xz', 'dump.tar.bz2', 'dump.tar.zst'].map((f) => join(fixtures, f))];
  let last: IngestProgress | undefined;
  const r = await ingestFiles(d, { well: 'Archives', files }, (p) => (last = p));
  assert.equal(last?.bytesRead, last?.bytesTotal, 'progress counts every on-disk byte of archives too');
  const by = Object.fromEntries(r.files.map((f) => [f.path.replace(dir, '').replace(fixtures, '').replace(/^\//, ''), f]));
  assert.deepEqual(Object.keys(by), [
    'dump.zip!users.csv', 'dump.zip!more/combo.txt', 'dump.zip!lines.jsonl.gz', 'dump.zip!../../outside.txt', 'dump.zip!__MACOSX/._users.csv', 'dump.zip!inner.zip',
    'dump.tgz!dump/users.jsonl', `dump.tgz!dump/${'long-directory-name/'.repeat(8)}combo.txt`,
    'plain.tar!a.csv', 'noext-1', 'noext-2.txt', 'users.csv.bz2',
    'dump.tar.xz!dump/forum/users.csv', 'dump.tar.xz!dump/shop/combo.txt', 'dump.tar.bz2!dump/forum/users.csv', 'dump.tar.bz2!dump/shop/combo.txt', 'dump.tar.zst!dump/forum/users.csv', 'dump.tar.zst!dump/shop/combo.txt',
  ]);
  assert.deepEqual(
    [by['dump.zip!users.csv'], by['dump.zip!more/combo.txt'], by['dump.zip!lines.jsonl.gz'], by['noext-1'], by['noext-2.txt'], by['users.csv.bz2'], by['dump.tar.xz!dump/forum/users.csv']].map((f) => [f?.format, f?.archive, f?.compression, f?.records]),
    [['csv', 'zip', undefined, 1], ['combo', 'zip', undefined, 1], ['jsonl', 'zip', 'gzip', 1], ['jsonl', undefined, 'xz', 2], ['combo', undefined, 'zstd', 2], ['csv', undefined, 'bzip2', 2], ['csv', 'tar', 'xz', 1]],
  );
  assert.equal(by['dump.tgz!dump/users.jsonl']?.compression, 'gzip');
  assert.equal(by['dump.zip!__MACOSX/._users.csv']?.format, 'skipped');
  assert.match(by['dump.zip!inner.zip']?.reason ?? '', /nested archives are not opened/);
  assert.equal(r.records, 19);
  assert.equal(r.badLines, 1, 'the nested archive, reported');
  for (const email of ['zed@zip.example', 'zara@zip.example', 'zeno@zip.example', 'zola@zip.example', 'gina@tgz.example', 'gus@tgz.example', 'pia@tar.example', 'xena@xz.example', 'zoe@zst.example', 'bella@bz.example', 'tara@tarxz.example', 'tom@tarbz.example', 'tara@tarzst.example']) {
    assert.equal(await count(d, `email:${email}`), 1, email);
  }
  assert.equal(await count(d, 'email:never@zip.example'), 0);
  assert.equal(await count(d, 'password:zip-secret-1'), 1);
});

test('an encrypted zip member is left out with a report line; the others are ingested', async () => {
  const d = join(dir, 'encrypted');
  const r = await ingestFiles(d, { well: 'Enc', files: [join(fixtures, 'encrypted.zip')] });
  assert.deepEqual(r.files.map((f) => [f.path.split('/').pop(), f.format, f.records]), [['encrypted.zip!secret.txt', 'skipped', 0], ['encrypted.zip!open.txt', 'combo', 1]]);
  assert.match(readFileSync(r.reportPath ?? '', 'utf8'), /encrypted\.zip!secret\.txt:0: encrypted zip member; skipped/);
  assert.equal(await count(d, 'email:olga@open.example'), 1);
});

test('an archive over the compressed-size cap is left out with a report line', async () => {
  const d = join(dir, 'over-cap');
  writeFileSync(join(dir, 'cap.zip'), makeZip([{ name: 'c.txt', data: 'cap@zip.example:pw\n'.repeat(100) }]));
  writeFileSync(join(dir, 'cap-ok.txt'), 'capok@zip.example:pw\n');
  const r = await ingestFiles(d, { well: 'Cap', files: [join(dir, 'cap.zip'), join(dir, 'cap-ok.txt')], maxCompressedBytes: 100 });
  assert.deepEqual(r.files.map((f) => [f.format, f.compression, f.records]), [['skipped', 'zip', 0], ['combo', undefined, 1]]);
  assert.match(r.files[0]?.error ?? '', /compressed file of \d+ bytes is over the 100 byte cap; skipped/);
  assert.equal(r.badLines, 1);
});

test('a truncated or corrupt input stops the run: nothing is published, the error names the file and the reason', async () => {
  const d = join(dir, 'broken');
  writeFileSync(join(dir, 'good.txt'), 'first@ok.example:pw\n');
  await ingestFiles(d, { well: 'Before', files: [join(dir, 'good.txt')] });
  const before = snapshot(d);
  const lines = Array.from({ length: 20000 }, (_, i) => `t${i}@trunc.example:pw${i}`).join('\n') + '\n';
  const cut = (b: Buffer, at = 0.5) => b.subarray(0, Math.floor(b.length * at));
  const zip = makeZip([{ name: 'a.txt', data: lines }, { name: 'b.txt', data: 'b@trunc.example:pw\n' }]);
  const corruptZip = Buffer.from(zip);
  corruptZip[100] = (corruptZip[100] ?? 0) ^ 0xff; // inside a.txt's deflate data
  const tar = makeTar([{ name: 'a.txt', data: lines }]);
  const cases: [string, Buffer, RegExp][] = [
    ['trunc.txt.gz', cut(gzipSync(lines)), /trunc\.txt\.gz: .*(eof|truncated|corrupt)/i],
    ['trunc.zip', cut(zip, 0.9), /trunc\.zip: zip: .*\(truncated or corrupt\)/],
    ['corrupt.zip', corruptZip, /corrupt\.zip!a\.txt: .*(corrupt|CRC|truncated)/i],
    ['trunc.xz', cut(readFileSync(join(fixtures, 'users.jsonl.xz')), 0.8), /trunc\.xz: .*(eof|truncated|corrupt)/i],
    ['trunc.tar', cut(tar), /trunc\.tar!a\.txt: .*tar member ends \d+ bytes early/],
    ['endless.tar', tar.subarray(0, tar.length - 1024), /endless\.tar: tar archive ends without its end marker/],
    ['trunc.tar.gz', cut(gzipSync(tar), 0.7), /trunc\.tar\.gz!a\.txt: .*(eof|truncated|corrupt)/i],
    ['trunc.tar.zst', cut(readFileSync(join(fixtures, 'dump.tar.zst')), 0.8), /trunc\.tar\.zst/],
    ['trunc.csv.bz2', cut(readFileSync(join(fixtures, 'users.csv.bz2')), 0.8), /trunc\.csv\.bz2/],
  ];
  for (const [name, bytes, message] of cases) {
    writeFileSync(join(dir, name), bytes);
    await assert.rejects(ingestFiles(d, { well: 'Broken', files: [join(dir, 'good.txt'), join(dir, name)] }), (e: Error) => {
      assert.match(e.message, message, name);
      assert.match(e.message, /nothing was published/);
      return true;
    });
    assert.equal(snapshot(d), before, `${name}: the index is unchanged`);
  }
  assert.equal(await count(d, 'email:t1@trunc.example'), 0);
  assert.equal(await count(d, 'email:first@ok.example'), 1, 'only the first run');
});

test('npm run ingest exits non-zero on a truncated archive and says which and why', async () => {
  const index = join(dir, 'cli-index');
  const tar = makeTar([{ name: 'a.txt', data: Array.from({ length: 2000 }, (_, i) => `x${i}@cli.example:pw${i}`).join('\n') }]);
  const gz = gzipSync(tar);
  writeFileSync(join(dir, 'cli.tgz'), gz.subarray(0, gz.length >> 1));
  const r = await new Promise<{ code: number | null; err: string }>((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'scripts/ingest.ts'), '--well', 'Cli', '--no-catalogue', '--index-dir', index, join(dir, 'cli.tgz')], { cwd: root });
    let err = '';
    child.stderr.on('data', (b: Buffer) => (err += b.toString()));
    child.on('exit', (code) => resolve({ code, err }));
  });
  assert.equal(r.code, 1);
  assert.match(r.err, /ingest: .*cli\.tgz!a\.txt: .*nothing was published/);
  assert.ok(!existsSync(join(index, 'MANIFEST')));
});

test('bombs are stopped by the caps: a deflate bomb in a zip, overlapping zip members, a declared size that lies, a gzip bomb, a huge zip directory, the absolute cap', async () => {
  const d = join(dir, 'bombs');
  const zeros = Buffer.alloc(64 << 20);
  writeFileSync(join(dir, 'bomb.zip'), makeZip([{ name: 'zeros.txt', data: zeros }]));
  // Each member alone stays under its own cap (16 MiB of slack); together they would decode 800 MB.
  writeFileSync(join(dir, 'overlap.zip'), makeZip([{ name: 'z.txt', data: Buffer.alloc(8 << 20) }], 100));
  writeFileSync(join(dir, 'liar.zip'), makeZip([{ name: 'l.txt', data: 'a@liar.example:pw\n'.repeat(100), declaredSize: 18 }]));
  writeFileSync(join(dir, 'bomb.txt.gz'), gzipSync(zeros));
  // A central directory claimed too large to read into memory.
  const huge = makeZip([{ name: 'h.txt', data: 'h@huge.example:pw\n' }]);
  huge.writeUInt32LE(0x07000000, huge.length - 22 + 12);
  writeFileSync(join(dir, 'huge-dir.zip'), huge);
  const cases: [string, RegExp][] = [
    ['bomb.zip', /bomb\.zip!zeros\.txt: .*expansion cap exceeded \(\d+ bytes from \d+ compressed; ratio cap 200\)/],
    ['overlap.zip', /overlap\.zip!copy\d+\.txt: .*expansion cap exceeded \(\d+ bytes decoded from a file of \d+ bytes/],
    ['liar.zip', /liar\.zip!l\.txt: .*longer than its declared 18 bytes/],
    ['bomb.txt.gz', /bomb\.txt\.gz: .*expansion cap exceeded/],
    ['huge-dir.zip', /huge-dir\.zip: zip central directory of 117440512 bytes is over the 67108864 byte cap/],
  ];
  for (const [name, message] of cases) {
    await assert.rejects(ingestFiles(d, { well: 'Bomb', files: [join(dir, name)] }), message, name);
  }
  // The absolute cap, under the ratio: 4 MiB of records from a 50 KB gzip, capped at 1 MiB.
  writeFileSync(join(dir, 'big.txt.gz'), gzipSync(Array.from({ length: 200000 }, (_, i) => `u${i}@cap.example:pw`).join('\n')));
  await assert.rejects(ingestFiles(d, { well: 'Bomb', files: [join(dir, 'big.txt.gz')], maxExpandedBytes: 1 << 20 }), /big\.txt\.gz: expansion cap exceeded \(10\d{5} bytes/);
  assert.ok(!existsSync(join(d, 'MANIFEST')), 'nothing published');
});

test('a directory ingests recursively in name order, without dot files, links out of it or links to directories', async () => {
  const d = join(dir, 'dir-index');
  const src = join(dir, 'drop');
  mkdirSync(join(src, 'b-sub', 'deeper'), { recursive: true });
  mkdirSync(join(src, '.git'));
  writeFileSync(join(src, 'a.csv'), 'email,password\nanna@dir.example,dir-1\n');
  writeFileSync(join(src, 'b-sub', 'x.jsonl.gz'), gzipSync('{"email":"bob@dir.example"}\n'));
  writeFileSync(join(src, 'b-sub', 'deeper', 'y.tar'), makeTar([{ name: 'y.txt', data: 'yan@dir.example:dir-2\n' }]));
  copyFileSync(join(fixtures, 'combo.txt.zst'), join(src, 'c.zst'));
  writeFileSync(join(src, '.hidden.txt'), 'hidden@dir.example:pw\n');
  writeFileSync(join(src, '.git', 'config.txt'), 'git@dir.example:pw\n');
  writeFileSync(join(dir, 'outside.txt'), 'outside@dir.example:pw\n');
  symlinkSync(join(dir, 'outside.txt'), join(src, 'd-link-out.txt'));
  symlinkSync(join(src, 'a.csv'), join(src, 'e-link-in.csv'));
  symlinkSync(join(src, 'b-sub'), join(src, 'f-link-dir'));
  const r = await ingestFiles(d, { well: 'Dir', files: [src] });
  assert.deepEqual(
    r.files.map((f) => [f.path.replace(src + '/', ''), f.format, f.records]),
    [
      ['d-link-out.txt', 'skipped', 0],
      ['f-link-dir', 'skipped', 0],
      ['a.csv', 'csv', 1],
      ['b-sub/deeper/y.tar!y.txt', 'combo', 1],
      ['b-sub/x.jsonl.gz', 'jsonl', 1],
      ['c.zst', 'combo', 2],
      ['e-link-in.csv', 'csv', 1],
    ],
  );
  assert.match(r.files[0]?.reason ?? '', /out of the directory/);
  for (const [email, n] of [['anna@dir.example', 1], ['yan@dir.example', 1], ['zoe@zst.example', 1], ['hidden@dir.example', 0], ['git@dir.example', 0], ['outside@dir.example', 0]] as const) {
    assert.equal(await count(d, `email:${email}`), n, email);
  }
});
