// Opt-out for good (engine/crates/format/src/suppress.rs): a suppressed address is left
// out of searches, counts, password checks, monitoring matches and gets, in the segments
// there are and in segments published later (other content, another well), until the
// suppression is lifted; lifting brings back what the opt-out hid and nothing an entry
// removal hid. What is stored is a keyed hash, never the address.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { ingestFiles, openEngine } from '../index';
import { tempDir } from './helpers';

const { dir, cleanup } = tempDir('engine-suppress-');
after(() => cleanup());

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
let files = 0;
function jsonl(recs: Record<string, string | string[]>[]): string {
  const p = join(dir, `f${files++}.jsonl`);
  writeFileSync(p, recs.map((r) => JSON.stringify(r)).join('\n') + '\n');
  return p;
}

test('suppressed: every read path, later wells too; lifted: back, but an entry removal holds', async () => {
  const index = join(dir, 'index');
  await ingestFiles(index, {
    well: 'First',
    format: 'jsonl',
    files: [
      jsonl([
        { email: 'Opted.Out@Example.com', password: 'first-pw', username: 'opted' },
        { email: ['other@example.com', 'opted.out@example.com'], username: 'shared' },
        { email: 'keep@example.com', password: 'first-pw' },
      ]),
    ],
  });
  const engine = await openEngine(index);
  try {
    const total = async (query: string) => (await engine.search({ query, size: 100 })).total;
    assert.equal(await total('email:opted.out@example.com'), 2);
    assert.equal((await engine.passwordCount(sha256('first-pw'))).total, 2);
    const victimId = (await engine.search({ query: 'username:opted' })).entries[0]!.id;

    assert.deepEqual(await engine.suppression('opted.out@example.com'), { suppressed: false, since: null });
    // Any case, spaces around: the address's indexed form.
    assert.deepEqual(await engine.suppress(' OPTED.OUT@example.COM '), { records: 2 });
    const state = await engine.suppression('opted.out@example.com');
    assert.equal(state.suppressed, true);
    assert.ok(state.since! > Date.now() / 1000 - 60);

    // Gone everywhere: exact, wildcard, other fields of the same records, counts, password checks, get.
    assert.equal(await total('email:opted.out@example.com'), 0);
    assert.equal(await total('email:opted*'), 0);
    assert.equal(await total('username:shared'), 0, 'a record holding the address among others');
    assert.equal(await total('email:other@example.com'), 0);
    assert.equal(await total('email:keep@example.com'), 1, 'other records stay');
    assert.equal((await engine.passwordCount(sha256('first-pw'))).total, 1);
    assert.equal(await engine.get(victimId), null);

    // A later well with the address, other content: hidden from its first moment, monitoring included.
    const later = await ingestFiles(index, {
      well: 'Later',
      format: 'jsonl',
      files: [jsonl([{ email: 'OPTED.OUT@example.com', password: 'later-pw' }, { email: 'fresh@example.com', password: 'later-pw' }])],
    });
    await engine.refresh();
    assert.equal(await total('email:opted.out@example.com'), 0);
    assert.equal((await engine.passwordCount(sha256('later-pw'))).total, 1);
    const watches = await engine.matchWatches(later.segmentId!, [
      { id: 'opted', field: 'email', value: 'opted.out@example.com' },
      { id: 'fresh', field: 'email', value: 'fresh@example.com' },
    ]);
    assert.deepEqual(watches.map((w) => [w.id, w.total]), [['fresh', 1]]);

    // Nothing stored names the address: only its keyed hash.
    for (const file of ['suppressions.log', 'tombstones.log']) {
      const text = readFileSync(join(index, file), 'utf8');
      assert.doesNotMatch(text, /opted|example\.com/i, file);
    }
    assert.match(readFileSync(join(index, 'suppressions.log'), 'utf8'), /^\+[0-9a-f]{32}\t\d+\n$/);
    assert.equal(statSync(join(index, 'suppression.key')).mode & 0o777, 0o600);

    // An entry removal of one of those records holds after the lift.
    const shared = (await engine.search({ query: 'username:shared' })).entries;
    assert.equal(shared.length, 0);
    await engine.unsuppress('opted.out@example.com');
    const sharedId = (await engine.search({ query: 'username:shared' })).entries[0]!.id;
    assert.equal(await engine.remove(sharedId), true);
    await engine.suppress('opted.out@example.com');
    assert.equal(await total('email:opted.out@example.com'), 0);

    // Lifted: the opt-out's records are back, in every well; the removed one is not.
    assert.equal(await engine.unsuppress('opted.out@example.com'), true);
    assert.equal(await engine.unsuppress('opted.out@example.com'), false, 'once');
    assert.deepEqual(await engine.suppression('opted.out@example.com'), { suppressed: false, since: null });
    assert.equal(await total('email:opted.out@example.com'), 2, 'the first record and the later one');
    assert.equal(await total('username:shared'), 0);
    assert.equal((await engine.passwordCount(sha256('later-pw'))).total, 2);
    assert.ok(await engine.get(victimId));

    // A merge keeps both: the lift, and the entry removal.
    await engine.suppress('opted.out@example.com');
    await engine.merge();
    await engine.refresh();
    assert.equal(readdirSync(index).filter((d) => d.startsWith('seg-')).length, 1);
    assert.equal(await total('email:opted.out@example.com'), 0);
    await engine.unsuppress('opted.out@example.com');
    assert.equal(await total('email:opted.out@example.com'), 2);
    assert.equal(await total('username:shared'), 0);
  } finally {
    await engine.close();
  }
});

test('a suppression made by another process is seen at the next refresh; an invalid address is refused', async () => {
  const index = join(dir, 'index2');
  await ingestFiles(index, { well: 'W', format: 'jsonl', files: [jsonl([{ email: 'a@example.org' }, { email: 'b@example.org' }])] });
  const reader = await openEngine(index);
  const writer = await openEngine(index);
  try {
    await writer.suppress('a@example.org');
    await reader.refresh();
    assert.equal((await reader.search({ query: 'email:a@example.org' })).total, 0);
    assert.equal((await reader.search({ query: 'example.org', type: 'domain' })).total, 1);
    await assert.rejects(writer.suppress('not an address'), /an email address is required/);
  } finally {
    await reader.close();
    await writer.close();
  }
});
