// Password checks: the engine derives the SHA-256, SHA-1 and NTLM of every plaintext
// password at ingest (hidden tables `password_sha256` / `password_sha1`, format 3;
// `password_ntlm`, format 12), and
// `passwordCount` / `passwordRange` look a hash up in them and in the stored
// `hashed_password` values. Removals hide records, merges keep (remake) the tables, entries
// never show them. Parts of older formats: format6.test.ts and upgrade.test.ts.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { ingestFiles, openEngine } from '../index';
import { tempDir } from './helpers';

const { dir, cleanup } = tempDir('engine-password-');
after(() => cleanup());

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
const sha1 = (s: string) => createHash('sha1').update(s).digest('hex');

function jsonl(name: string, recs: Record<string, string>[]): string {
  const p = join(dir, name);
  writeFileSync(p, recs.map((r) => JSON.stringify(r)).join('\n') + '\n');
  return p;
}

test('plaintext passwords are found by their SHA-256 and SHA-1, with stored hashes, once per record', async () => {
  const index = join(dir, 'index');
  const a = jsonl('a.jsonl', [
    { email: 'a@x.org', password: 'hunter2' },
    { email: 'b@x.org', password: 'hunter2' },
    { email: 'c@x.org', hashed_password: sha256('hunter2').toUpperCase() },
    { email: 'd@x.org', password: 'Secret!', hashed_password: sha256('Secret!') },
    { email: 'e@x.org', password: 'other', hashed_password: sha1('sha1only').toUpperCase() },
  ]);
  assert.equal((await ingestFiles(index, { well: 'A', files: [a], format: 'jsonl' })).records, 5);
  const engine = await openEngine(index);
  try {
    const count = async (h: string) => (await engine.passwordCount(h)).total;
    assert.equal(await count(sha256('hunter2')), 3, 'two plaintexts + one stored upper-case hash');
    assert.equal(await count(sha256('hunter2').toUpperCase()), 3, 'any case');
    assert.equal(await count(sha1('hunter2')), 2);
    assert.equal(await count(sha256('Secret!')), 1, 'a record with both is counted once');
    assert.equal(await count(sha1('Secret!')), 1);
    assert.equal(await count(sha1('sha1only')), 1, 'stored SHA-1');
    assert.equal(await count(sha256('nope')), 0);
    // Through search(): the routes hold only the search service.

    const range = async (h: string) => {
      const r = await engine.passwordRange(h.slice(0, 5).toUpperCase());
      assert.equal(r.prefix, h.slice(0, 5));
      return r.suffixes.find((s) => s.suffix === h.slice(5))?.count ?? 0;
    };
    assert.equal(await range(sha256('hunter2')), 3);
    assert.equal(await range(sha1('hunter2')), 2);
    assert.equal(await range(sha256('Secret!')), 1);
    assert.equal(await range(sha1('sha1only')), 1);
    const sha1Range = await engine.passwordRange(sha1('hunter2').slice(0, 5));
    assert.ok(sha1Range.suffixes.some((s) => s.suffix === sha1('hunter2').slice(5) && s.count === 2));
    assert.equal(sha1Range.truncated, false);

    // Hidden: no entry shows the derived values, no query names their tables.
    const all = await engine.search({ query: 'x.org', type: 'domain', size: 100 });
    assert.equal(all.total, 5);
    const text = JSON.stringify(all.entries);
    assert.ok(!text.includes(sha256('hunter2').slice(0, 16)) && !text.includes(sha1('hunter2').slice(0, 16)) && !text.includes('password_sha'), text);
    // (`password_sha256:…` is no field name: a bare term found in no public field.)
    assert.equal((await engine.search({ query: `password_sha256:${sha256('hunter2')}` })).total, 0);
    assert.equal((await engine.search({ query: sha1('hunter2') })).total, 0);
    await assert.rejects(engine.passwordRange('abc'), /prefix must be 5 to 64 hex digits/);

    // Removal hides the record from both lookups.
    const hit = (await engine.search({ query: 'email:a@x.org' })).entries[0]!;
    assert.equal(await engine.remove(hit.id), true);
    assert.equal(await count(sha256('hunter2')), 2);
    assert.equal(await count(sha1('hunter2')), 1);
    assert.equal(await range(sha256('hunter2')), 2);

    // A second segment, then a merge: the merged part has the derived tables again.
    const b = jsonl('b.jsonl', [{ email: 'f@x.org', password: 'hunter2' }, { email: 'g@x.org', password: 'Secret!' }]);
    await ingestFiles(index, { well: 'B', files: [b], format: 'jsonl' });
    await engine.refresh();
    assert.equal(await count(sha256('hunter2')), 3);
    assert.equal(await count(sha256('Secret!')), 2);
    const m = await engine.merge();
    assert.equal(m.merged.length, 2);
    const seg = readdirSync(index).find((d) => d.startsWith('seg-'))!;
    assert.deepEqual(readdirSync(join(index, seg, 'part-0')).filter((f) => f.startsWith('password_')).sort(), [
      'password_ntlm.dig', 'password_ntlm.pord',
      'password_sha1.dig', 'password_sha1.pord',
      'password_sha256.dig', 'password_sha256.pord',
    ]);
    assert.equal(JSON.parse(readFileSync(join(index, seg, 'part-0', 'part.json'), 'utf8')).format_version, 12);
    assert.equal(await count(sha256('hunter2')), 3);
    assert.equal(await count(sha1('hunter2')), 2);
    assert.equal(await count(sha256('Secret!')), 2);
    assert.equal(await range(sha256('hunter2')), 3);
    assert.equal(await range(sha1('Secret!')), 2);
  } finally {
    await engine.close();
  }
});

// NTLM = MD4 of the password's UTF-16LE encoding. Node's OpenSSL has no MD4 (legacy
// provider), so the digests are constants, from `openssl dgst -provider legacy -md4` of
// `iconv -t utf-16le`.
const NTLM = {
  password: '8846f7eaee8fb117ad06bdd830b7586c',
  hunter2: '6608e4bc7b2b7a5f77ce3573570775af',
  'pässwörd': '0553152250ac01adb4213cb9938663e4',
  'Secret!': 'a81c4e106556054dc281446237ab715d',
};

test('plaintext passwords are found by their NTLM: counts by whole hash, ranges by 5-digit prefix with 27-digit suffixes, removals', async () => {
  const index = join(dir, 'ntlm');
  const md5 = createHash('md5').update('stored').digest('hex');
  const a = jsonl('ntlm.jsonl', [
    { email: 'a@n.org', password: 'hunter2' },
    { email: 'b@n.org', password: 'hunter2' },
    { email: 'c@n.org', password: 'pässwörd' },
    { email: 'd@n.org', password: 'password' },
    { email: 'e@n.org', hashed_password: md5.toUpperCase() },
  ]);
  assert.equal((await ingestFiles(index, { well: 'N', files: [a], format: 'jsonl' })).records, 5);
  const engine = await openEngine(index);
  try {
    const count = async (h: string) => (await engine.passwordCount(h)).total;
    const range = async (h: string) => {
      const r = await engine.passwordRange(h.slice(0, 5).toUpperCase());
      assert.ok(r.suffixes.every((s) => s.suffix.length === 27 || s.suffix.length === 35 || s.suffix.length === 59), JSON.stringify(r.suffixes));
      return r.suffixes.find((s) => s.suffix === h.slice(5))?.count ?? 0;
    };
    assert.equal(await count(NTLM.hunter2), 2);
    assert.equal(await count(NTLM.hunter2.toUpperCase()), 2, 'any case');
    assert.equal(await count(NTLM['pässwörd']), 1, 'UTF-16LE of a non-ASCII password');
    assert.equal(await count(NTLM.password), 1);
    assert.equal(await count(NTLM['Secret!']), 0, 'not in this index');
    assert.equal(await count(md5), 1, 'a stored 32-digit hash is found the same way');
    assert.equal(await range(NTLM.hunter2), 2);
    assert.equal(await range(NTLM['pässwörd']), 1);
    assert.equal(await range(md5), 1);
    const r = await engine.passwordRange(NTLM.hunter2.slice(0, 5));
    assert.deepEqual(r.suffixes.filter((s) => s.suffix.length === 27), [{ suffix: NTLM.hunter2.slice(5), count: 2 }]);
    const seg = readdirSync(index).find((d) => d.startsWith('seg-'))!;
    assert.ok(readdirSync(join(index, seg, 'part-0')).includes('password_ntlm.dig'));

    // Removing a record takes it out of both lookups.
    const hit = (await engine.search({ query: 'email:a@n.org' })).entries[0]!;
    assert.equal(await engine.remove(hit.id), true);
    assert.equal(await count(NTLM.hunter2), 1);
    assert.equal(await range(NTLM.hunter2), 1);
    // Nothing shows the derived value.
    const all = await engine.search({ query: 'n.org', type: 'domain', size: 100 });
    assert.ok(!JSON.stringify(all.entries).includes(NTLM.hunter2.slice(0, 16)));
  } finally {
    await engine.close();
  }
});
