// Property test: random corpora and random queries of every class, compared with a
// brute-force oracle (totals and pages), dedup on and off, with and without the count
// cache, with removals, a re-ingest and merges.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type Engine, ingestFiles, openEngine } from '../index';
import { CASE_SENSITIVE, dedupKey, documentOrder, normalize, pick, type Rec, rng, tempDir, values, wildcardToRegExp } from './helpers';

const FIELDS = ['email', 'username', 'password', 'phone', 'name', 'ip_address'] as const;
const NAMES = ['john', 'johnny', 'jon', 'jane', 'manske', 'smith', 'alice', 'bob', 'mallory', 'zoë', 'o.neil', 'x_y'];
const DOMAINS = ['gmail.com', 'yahoo.fr', 'example.com', 'fake-box.com', 'corp.io'];
const PASSWORDS = ['123456', 'password', 'Password', 'hunter2', 'letmein', 'dragon', 'qwerty', 'abc123', 'P@ss w0rd'];

function makeRecord(r: () => number, rid: number): Rec {
  const rec: Rec = { rid: [String(rid)] };
  const n1 = pick(r, NAMES);
  const n2 = pick(r, NAMES);
  if (r() < 0.8) rec.email = [`${r() < 0.3 ? n1.toUpperCase() : n1}${r() < 0.5 ? '.' + n2 : ''}${Math.floor(r() * 20)}@${pick(r, DOMAINS)}`];
  if (r() < 0.6) rec.username = [`${n1}${r() < 0.5 ? n2 : ''}${Math.floor(r() * 50)}`];
  if (r() < 0.2 && rec.username) rec.username.push(`${n2}_${Math.floor(r() * 9)}`);
  if (r() < 0.8) rec.password = [pick(r, PASSWORDS)];
  if (r() < 0.3) rec.phone = [`+1 (555) 0${Math.floor(r() * 100)}-${Math.floor(r() * 10)}`];
  if (r() < 0.4) rec.name = [`${n1}  ${n2}`];
  if (r() < 0.3) rec.ip_address = [`10.0.${Math.floor(r() * 3)}.${Math.floor(r() * 5)}`];
  if (!FIELDS.some((f) => rec[f])) rec.password = ['fallback'];
  return rec;
}

type Stored = { rec: Rec; well: string; key: string };

let dir: string;
let cleanup: () => void;
let engine: Engine;
const corpus: Stored[] = [];
const removedKeys = new Set<string>();

const segmentOf = new Map<string, string>(); // rid -> segment id of its ingest
const position = new Map<string, number>(); // rid -> its place in document order (`documentOrder`)
const at = (s: Stored) => position.get(s.rec.rid[0] as string) ?? Infinity;

async function ingest(well: string, recs: Rec[], name: string, partRecords = 37, maxSegments?: number): Promise<string> {
  const file = join(dir, `${name}.jsonl`);
  writeFileSync(file, recs.map((x) => JSON.stringify(x)).join('\n') + '\n');
  const res = await ingestFiles(join(dir, 'index'), { well, files: [file], format: 'jsonl', partRecords, maxSegments });
  assert.equal(res.records, recs.length);
  for (const rec of recs) {
    corpus.push({ rec, well, key: dedupKey(rec, FIELDS) });
    segmentOf.set(rec.rid[0] as string, res.segmentId ?? '');
  }
  for (const id of await documentOrder(join(dir, 'index'), res.segmentId ?? '', recs.length, partRecords)) position.set(id, position.size);
  return res.segmentId ?? '';
}

type Q = { query: string; mode: 'exact' | 'wildcard' | 'regex'; match: (s: Stored) => boolean };

function term(r: () => number, mode: Q['mode']): { text: string; match: (s: Stored) => boolean } {
  const sample = pick(r, corpus).rec;
  const field = pick(r, [...FIELDS, 'domain'] as const);
  const raw = field === 'domain' ? pick(r, DOMAINS) : (sample[field]?.[0] ?? (field === 'phone' ? '555 0199' : pick(r, NAMES) + 'zz'));
  const ci = !CASE_SENSITIVE.has(field);
  const q = (s: string) => `"${s.replace(/["\\]/g, '\\$&')}"`;
  if (mode === 'exact') {
    if (r() < 0.2 && field !== 'domain') {
      // bare term: every field
      const v = raw;
      return {
        text: q(v),
        match: (s) => [...FIELDS, 'domain'].some((f) => { const n = normalize(f, v); return n !== null && values(s.rec, f).includes(n); }),
      };
    }
    const n = normalize(field, raw);
    return { text: `${field}:${q(raw)}`, match: (s) => n !== null && values(s.rec, field).includes(n) };
  }
  if (mode === 'wildcard') {
    const base = normalize(field, raw) ?? 'x';
    const chars = [...base];
    const cut = 1 + Math.floor(r() * Math.max(1, chars.length - 1));
    const shapes = [
      () => chars.slice(0, cut).join('') + '*',
      () => chars.slice(0, cut).join('') + '*' + chars.slice(-1).join(''),
      () => '*' + chars.slice(cut, cut + 3).join('') + '*',
      () => chars.map((c, i) => (i === cut ? '?' : c)).join(''),
      () => chars.slice(0, 1).join('') + '?' + chars.slice(2, cut + 1).join('') + '*',
      () => '*' + chars.slice(-Math.max(1, cut)).join(''),
      () => (field === 'email' && base.includes('@') ? '*' + base.slice(base.lastIndexOf('@')) : chars.slice(0, cut).join('') + '*'),
      () => (field === 'email' && base.includes('@') ? '*@*' + base.slice(base.lastIndexOf('.')) : '*' + chars.slice(1, 3).join('') + '*'),
      // Trigram-indexed infixes: literals of 3+ characters that hit, miss, or hit apart.
      () => '*' + chars.slice(cut - 1, cut + 4).join('') + '*',
      () => '*' + chars.slice(0, 3).join('') + '*' + chars.slice(-3).join(''),
      () => '*' + chars.slice(1, 4).join('') + '?' + chars.slice(5, 9).join('') + '*',
      // (phone patterns keep only digits in the engine: no letters there)
      () => '*' + chars.slice(1, 4).join('') + (field === 'phone' ? '0000000' : 'qz') + '*',
      () => (field === 'phone' ? '*555*' : '*' + pick(r, NAMES) + '*' + pick(r, NAMES) + '*'),
      () => '*' + (field === 'phone' ? pick(r, ['555', '550', '999']) : pick(r, ['xqj', 'zzz', 'ohn', 'mit', 'ane', '555', '.co', 'mal'])) + '*',
    ];
    let pat = pick(r, shapes)();
    if (pat.replace(/[*?]/g, '') === '') pat = chars[0] + '*';
    const re = wildcardToRegExp(pat);
    const esc = pat.replace(/[\\"&() ]/g, (c) => (c === ' ' ? ' ' : '\\' + c));
    return { text: `${field}:"${esc.replace(/"/g, '\\"')}"`, match: (s) => values(s.rec, field).some((v) => re.test(v)) };
  }
  const base = normalize(field, raw) ?? 'x';
  const lit = base.slice(0, 2 + Math.floor(r() * 3)).replace(/[^a-z0-9]/g, '');
  const lit3 = base.slice(1, 5).replace(/[^a-z0-9]/g, '');
  const shapes = [
    `${lit}`, `^${lit}`, `${lit}.*[0-9]`, `[0-9]{2}$`, `(${lit}|jane)`, `^[a-z]+\\.`, `o.n`,
    // Trigram-indexed: required literals of 3+ characters, hitting and missing.
    `${lit3}[a-z0-9]*`, `[a-z]${lit3}`, `(${lit3})+.`, `${lit3}.*(com|fr)$`, `smi.h`, `john.+smith`, `qxz${lit3}`, `mal+ory`, `a(lic)e`,
  ];
  const src = pick(r, shapes) || 'jo';
  const re = new RegExp(src, ci ? 'iu' : 'u');
  return { text: `${field}:/${src}/`, match: (s) => values(s.rec, field).some((v) => re.test(v)) };
}

function randomQuery(r: () => number): Q {
  const mode = pick(r, ['exact', 'exact', 'wildcard', 'regex'] as const);
  const a = term(r, mode);
  const shape = r();
  let text = a.text;
  let match = a.match;
  if (shape < 0.25) {
    const b = term(r, mode);
    text = `${a.text} OR ${b.text}`;
    match = (s) => a.match(s) || b.match(s);
  } else if (shape < 0.4) {
    const b = term(r, mode);
    const c = term(r, mode);
    text = `(${a.text} OR ${b.text}) & ${c.text}`;
    match = (s) => (a.match(s) || b.match(s)) && c.match(s);
  } else if (shape < 0.5) {
    const b = term(r, mode);
    text = `${a.text} AND ${b.text}`;
    match = (s) => a.match(s) && b.match(s);
  }
  if (r() < 0.15 && !text.includes(' OR ')) {
    const well = pick(r, ['WellA', 'WellB']);
    text = `${text}&database_name=${well}`;
    const inner = match;
    match = (s) => inner(s) && s.well === well;
  }
  return { query: text, mode, match };
}

function oracle(q: Q, dedup: boolean): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  // In document order: the first of equal records is the same in either order (a part
  // breaks ties of its order by the input's), but pages follow the documents.
  for (const s of [...corpus].sort((a, b) => at(a) - at(b))) {
    if (removedKeys.has(s.key) || !q.match(s)) continue;
    if (dedup) {
      if (seen.has(s.key)) continue;
      seen.add(s.key);
    }
    out.push(s.rec.rid[0] as string);
  }
  return out;
}

const rid = (e: { raw_record: string }) => String((JSON.parse(e.raw_record) as Rec).rid[0]);

before(async () => {
  ({ dir, cleanup } = tempDir());
  const r = rng(20240611);
  const a: Rec[] = [];
  for (let i = 0; i < 400; i++) a.push(makeRecord(r, i));
  const b: Rec[] = [];
  for (let i = 0; i < 300; i++) {
    // ~10% exact duplicates of records of the first source (same fields, new rid)
    if (r() < 0.1) b.push({ ...(pick(r, a) as Rec), rid: [String(1000 + i)] });
    else b.push(makeRecord(r, 1000 + i));
  }
  await ingest('WellA', a, 'a');
  await ingest('WellB', b, 'b', 1000);
  engine = await openEngine(join(dir, 'index'));
});

after(async () => {
  await engine?.close();
  cleanup?.();
});

async function compare(r: () => number, rounds: number): Promise<void> {
  for (let i = 0; i < rounds; i++) {
    const q = randomQuery(r);
    for (const dedup of [false, true]) {
      const expected = oracle(q, dedup);
      const size = pick(r, [5, 20, 100]);
      const pages = Math.max(1, Math.ceil(expected.length / size));
      const page = 1 + Math.floor(r() * Math.min(pages, 3));
      // Without the count cache, then twice through it (the second reads the counts the
      // first remembered), on another page: every answer matches the oracle.
      const other = 1 + Math.floor(r() * Math.min(pages, 3));
      for (const [p, countCache] of [[page, false], [page, 0], [other, 0]] as const) {
        const res = await engine.search({ query: q.query, mode: q.mode, dedup, page: p, size, countCache });
        const ctx = `${q.mode} ${q.query} dedup=${dedup} page=${p} size=${size} countCache=${countCache}`;
        assert.equal(res.total, expected.length, `total: ${ctx}`);
        assert.deepEqual(res.entries.map(rid), expected.slice((p - 1) * size, p * size), `page: ${ctx}`);
      }
    }
  }
}

test('random queries of every class match the brute-force oracle', async () => {
  await compare(rng(7), 250);
});

test('removals hide entries, persist across reopen, and survive a re-ingest of the same records', async () => {
  const r = rng(99);
  const victims = [pick(r, corpus), pick(r, corpus), pick(r, corpus)];
  for (const v of victims) {
    const email = v.rec.email?.[0] ?? v.rec.username?.[0] ?? v.rec.password?.[0] ?? '';
    const res = await engine.search({ query: `"${email.replace(/["\\]/g, '\\$&')}"`, size: 100, dedup: false });
    const hit = res.entries.find((e) => rid(e) === v.rec.rid[0]);
    if (!hit || removedKeys.has(v.key)) continue;
    assert.equal(await engine.remove(hit.id), true);
    assert.equal(await engine.remove(hit.id), false);
    assert.equal(await engine.get(hit.id), null);
    removedKeys.add(v.key);
  }
  assert.ok(removedKeys.size > 0);
  await compare(rng(8), 60);
  await engine.close();
  engine = await openEngine(join(dir, 'index'));
  await compare(rng(9), 40);
  // The same records again, from another source: still removed.
  const again = corpus.filter((s) => removedKeys.has(s.key)).map((s, i) => ({ ...s.rec, rid: [String(5000 + i)] }));
  await ingest('WellA', again, 'again');
  await engine.refresh();
  await compare(rng(10), 60);
});

test('merges keep results, old record ids, removals, source filters and watches', async () => {
  const before = await engine.search({ query: 'password:"123456" OR password:dragon', size: 100, dedup: false });
  assert.ok(before.entries.length > 5);
  const st0 = await engine.stats();
  const m = await engine.merge();
  assert.ok(m.segmentId);
  assert.equal(m.merged.length, st0.segments);
  const st1 = await engine.stats();
  assert.equal(st1.segments, 1);
  assert.equal(st1.records, st0.records);
  assert.deepEqual(st1.wells, st0.wells);
  // Ids handed out before the merge still resolve, to the same record and well.
  for (const e of before.entries) {
    const got = await engine.get(e.id);
    assert.ok(got, `old id ${e.id} resolves`);
    assert.equal(got.raw_record, e.raw_record);
    assert.equal(got.database_name, e.database_name);
  }
  await compare(rng(11), 120);
  // A removal through an id from before the merge.
  const victim = before.entries.find((e) => !removedKeys.has(corpus.find((s) => s.rec.rid[0] === rid(e))?.key ?? ''));
  assert.ok(victim);
  assert.equal(await engine.remove(victim.id), true);
  assert.equal(await engine.get(victim.id), null);
  removedKeys.add(corpus.find((s) => s.rec.rid[0] === rid(victim))?.key ?? '');
  await compare(rng(12), 60);
  // Watches of an ingest merged away: only that ingest's records, with ids that resolve.
  const firstSeg = segmentOf.get(corpus[0]?.rec.rid[0] ?? '') ?? '';
  const watched = await engine.matchWatches(firstSeg, [{ id: 'w', field: 'password', value: '123456' }]);
  const expected = corpus.filter((s) => segmentOf.get(s.rec.rid[0] as string) === firstSeg && !removedKeys.has(s.key) && values(s.rec, 'password').includes('123456'));
  assert.equal(watched[0]?.recordIds.length ?? 0, expected.length);
  for (const id of watched[0]?.recordIds ?? []) assert.equal(segmentOf.get(rid((await engine.get(id))!)), firstSeg);
  // More ingests with automatic merges past two segments.
  const r = rng(77);
  for (let k = 0; k < 4; k++) {
    const recs: Rec[] = [];
    for (let i = 0; i < 60; i++) recs.push(r() < 0.15 ? { ...(pick(r, corpus).rec), rid: [String(7000 + k * 100 + i)] } : makeRecord(r, 7000 + k * 100 + i));
    await ingest(k % 2 ? 'WellB' : 'WellC', recs, `auto${k}`, 25, 2);
  }
  await engine.refresh();
  assert.ok((await engine.stats()).segments <= 2);
  await compare(rng(13), 120);
  await engine.close();
  engine = await openEngine(join(dir, 'index'));
  await compare(rng(14), 40);
});
