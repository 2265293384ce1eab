// Format 7 parts with their `email_local` table (the local part of every email, which format 11
// no longer writes) answer `email:*lit*` as the engine that wrote them did, and as the records
// themselves say: `fixtures/email-local` is an index of three parts written by the format 7
// engine (commit 073dec4) and its answers (`make.mjs`, `expected.json`), over emails holding
// the literals in local parts, in domains, in both, across the `@`, with two `@`s or none.
// Then a segment of the current format (12; `email.ltri` since 11) of the same records joins it
// (every record a duplicate) and a merge rewrites both in it (no `email_local`, the local
// parts' trigrams in `email.ltri`).
// (`format6.test.ts` checks the same on the format 6, 7 and 8 fixtures of other records.)
import assert from 'node:assert/strict';
import { cpSync, existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ingestFiles, openEngine, type Engine } from '../index';
import { tempDir } from './helpers';

const { dir, cleanup } = tempDir('engine-email-local-');
after(() => cleanup());

const fixture = fileURLToPath(new URL('./fixtures/email-local', import.meta.url));

type Search = { literal: string; query: string; total: number; all: number; emails: (string[] | undefined)[] };

function parts(index: string): string[] {
  return readdirSync(index)
    .filter((d) => d.startsWith('seg-'))
    .flatMap((s) => readdirSync(join(index, s)).filter((p) => p.startsWith('part-')).map((p) => join(index, s, p)));
}

const formatOf = (part: string) => (JSON.parse(readFileSync(join(part, 'part.json'), 'utf8')) as { format_version: number }).format_version;

async function answers(engine: Engine, expected: Search[]): Promise<Search[]> {
  const out: Search[] = [];
  for (const { literal, query } of expected) {
    const r = await engine.search({ query, mode: 'wildcard', page: 1, size: 500, countCache: false });
    const all = await engine.search({ query, mode: 'wildcard', page: 1, size: 1, dedup: false, countCache: false });
    out.push({ literal, query, total: r.total, all: all.total, emails: r.entries.map((e) => e.email) });
  }
  return out;
}

test('format 7 parts with email_local answer email:*lit* as written and as the records say, beside a current segment and after a merge into the current format', async () => {
  const index = join(dir, 'index');
  cpSync(join(fixture, 'index'), index, { recursive: true });
  const expected = (JSON.parse(readFileSync(join(fixture, 'expected.json'), 'utf8')) as { searches: Search[] }).searches;
  assert.equal(parts(index).length, 3);
  for (const p of parts(index)) {
    assert.equal(formatOf(p), 7);
    assert.ok(existsSync(join(p, 'email_local.terms')) && !existsSync(join(p, 'email.ltri')), `${p} has the local-part table`);
  }
  // The brute-force check: the records whose normalised email (trimmed, lower-cased) holds
  // the literal. Every record is distinct, so the deduplicated totals are the same.
  const emails = readFileSync(join(fixture, 'a.jsonl'), 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as { email: string }).email.trim().toLowerCase());
  const brute = expected.map((s) => emails.filter((e) => e.includes(s.literal)).length);
  assert.deepEqual(expected.map((s) => s.total), brute, 'the format 7 engine answered as the records say');
  assert.deepEqual(expected.map((s) => s.all), brute);
  // Literals in local parts only, in domains only, in both, across an `@`, and none.
  const total = (lit: string) => brute[expected.findIndex((s) => s.literal === lit)]!;
  assert.ok(total('gmail') > total('gmail.com') && total('mari') > 0 && total('l@gm') === 1 && total('zzz') === 0);

  const engine = await openEngine(index);
  try {
    assert.deepEqual(await answers(engine, expected), expected, 'format 7 parts, as written');

    await ingestFiles(index, { well: 'Seven', files: [join(fixture, 'a.jsonl')], format: 'jsonl' });
    await engine.refresh();
    const fresh = parts(index).filter((p) => formatOf(p) === 12);
    assert.equal(fresh.length, 1, 'the new segment is format 12');
    assert.ok(existsSync(join(fresh[0]!, 'email.ltri')) && !existsSync(join(fresh[0]!, 'email_local.terms')));
    const doubled = expected.map((s) => ({ ...s, all: 2 * s.all }));
    assert.deepEqual(await answers(engine, expected), doubled, 'format 7 and 12 side by side: every new record is a duplicate');

    const m = await engine.merge();
    assert.ok(m.merged.length >= 1);
    for (const p of parts(index)) {
      assert.equal(formatOf(p), 12, `${p} was rewritten as format 12`);
      assert.ok(existsSync(join(p, 'email.ltri')) && !existsSync(join(p, 'email_local.terms')), `${p}: no local-part table`);
    }
    assert.deepEqual(await answers(engine, expected), doubled, 'after the merge');
  } finally {
    await engine.close();
  }
});
