// Monitoring: matchWatches (exact kinds, domains with subdomains and URL hosts, the two
// strategies for exact kinds against each other and against a brute-force oracle,
// limit/total, removals, merged segments) and getMany / getManyApiText.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type Engine, type Entry, type FieldName, ingestFiles, mergeIndex, openEngine, type WatchInput, type WatchMatch } from '../index';
import { dedupKey, documentOrder, normalize, pick, type Rec, rng, tempDir } from './helpers';

const FIELDS = ['email', 'username', 'phone', 'name', 'domain', 'url'] as const;
const NAMES = ['john', 'jane', 'manske', 'smith', 'alice', 'bob', 'zoë', 'o.neil'];
const HOSTS = [
  'example.com', 'mail.example.com', 'a.b.example.com', 'EXAMPLE.com', 'notexample.com', 'example.com.evil.net',
  'example.co.uk', 'shop.example.co.uk', 'gmail.com', 'corp.io', 'x.corp.io', 'example.community',
];
const WATCHED_DOMAINS = ['example.com', 'Example.COM.', 'example.co.uk', 'corp.io', 'b.example.com', 'evil.net', 'nothing-here.org', 'gmail.com'];

/** The host of a URL, domain or email-domain value, as the engine extracts it (watch.rs `host_of`). */
function hostOf(value: string): string {
  let s = value.trim().toLowerCase();
  const p = s.slice(0, 64).indexOf('://');
  if (p > 0 && /^[a-z0-9+.-]+$/.test(s.slice(0, p))) s = s.slice(p + 3);
  else if (p < 0 && s.startsWith('//')) s = s.slice(2);
  s = s.slice(0, s.search(/[/?#\\ \t]/) < 0 ? s.length : s.search(/[/?#\\ \t]/));
  s = s.slice(s.lastIndexOf('@') + 1);
  if (s.startsWith('[')) return s.includes(']') ? s.slice(0, s.indexOf(']') + 1) : s;
  if (s.includes(':')) s = s.slice(0, s.indexOf(':'));
  return s.replace(/\.+$/, '');
}

/** Hosts a domain watch looks at: email domains, `domain` values, URL hosts. */
function hosts(rec: Rec): string[] {
  const out: string[] = [];
  for (const e of rec.email ?? []) {
    const n = e.trim().toLowerCase();
    const at = n.lastIndexOf('@');
    if (at >= 0 && at < n.length - 1) out.push(hostOf(n.slice(at + 1)));
  }
  for (const d of rec.domain ?? []) out.push(hostOf(d));
  for (const u of rec.url ?? []) out.push(hostOf(u));
  return out;
}

function oracleMatches(rec: Rec, w: WatchInput): boolean {
  if (w.field === 'domain') {
    const d = w.value.trim().toLowerCase().replace(/\.+$/, '');
    return d !== '' && hosts(rec).some((h) => h === d || h.endsWith(`.${d}`));
  }
  const n = normalize(w.field, w.value);
  return n !== null && (rec[w.field] ?? []).some((v) => normalize(w.field, v) === n);
}

function makeRecord(r: () => number, rid: number): Rec {
  const rec: Rec = { rid: [String(rid)] };
  const n1 = pick(r, NAMES);
  const n2 = pick(r, NAMES);
  if (r() < 0.7) rec.email = [`${r() < 0.3 ? n1.toUpperCase() : n1}${Math.floor(r() * 8)}@${pick(r, HOSTS)}`];
  if (r() < 0.5) rec.username = [`${n1}${Math.floor(r() * 10)}`];
  if (r() < 0.3) rec.phone = [`+1 (555) 0${Math.floor(r() * 20)}-${Math.floor(r() * 3)}`];
  if (r() < 0.4) rec.name = [`${r() < 0.5 ? n1.toUpperCase() : n1}  ${n2}`];
  if (r() < 0.3) rec.domain = [pick(r, HOSTS) + (r() < 0.1 ? '.' : '')];
  if (r() < 0.4) {
    const host = pick(r, HOSTS);
    const shapes = [
      () => `https://${host}/u/${n1}`,
      () => `http://${host}:8080`,
      () => `${host}/login?next=https://evil.net/`,
      () => `https://${n1}:pw@${host}/x@y`,
      () => host,
      () => `//${host}/a.js`,
    ];
    rec.url = [pick(r, shapes)()];
  }
  if (!FIELDS.some((f) => rec[f])) rec.username = [`${n1}${n2}`];
  return rec;
}

let dir: string;
let cleanup: () => void;
let engine: Engine;
const corpus: { rec: Rec; segment: string }[] = [];

async function ingest(recs: Rec[], name: string, partRecords = 37): Promise<string> {
  const file = join(dir, `${name}.jsonl`);
  writeFileSync(file, recs.map((x) => JSON.stringify(x)).join('\n') + '\n');
  const res = await ingestFiles(join(dir, 'index'), { well: `Well ${name}`, files: [file], format: 'jsonl', partRecords, maxSegments: 0 });
  assert.equal(res.records, recs.length);
  // In document order (`documentOrder`): the oracle walks the corpus in it.
  const order = await documentOrder(join(dir, 'index'), res.segmentId ?? '', recs.length, partRecords);
  assert.equal(order.length, recs.length);
  const byRid = new Map(recs.map((rec) => [rec.rid[0] as string, rec]));
  for (const id of order) corpus.push({ rec: byRid.get(id) as Rec, segment: res.segmentId ?? '' });
  return res.segmentId ?? '';
}

const rid = (e: Entry): string => (JSON.parse(e.raw_record) as { rid: string[] }).rid[0] as string;

/** The rids of a match's record ids (every id must resolve). */
async function rids(ids: string[]): Promise<string[]> {
  const entries = await engine.getMany(ids);
  return entries.map((e, i) => {
    assert.ok(e, `record id ${ids[i]} resolves`);
    return rid(e);
  });
}

function randomWatches(r: () => number, n: number): WatchInput[] {
  const out: WatchInput[] = [];
  for (let i = 0; i < n; i++) {
    const field = pick(r, ['email', 'username', 'phone', 'name', 'domain'] as const);
    const sample = pick(r, corpus).rec;
    let value: string;
    if (field === 'domain') value = pick(r, [...WATCHED_DOMAINS, ...HOSTS]);
    else if (r() < 0.6 && sample[field]?.[0]) value = sample[field][0] as string;
    else value = field === 'phone' ? `555 09${i}` : `${pick(r, NAMES)}-none-${i}`;
    // As a user might type it.
    if (field !== 'phone' && r() < 0.3) value = ` ${value.toUpperCase()} `;
    out.push({ id: `w${i}`, field, value });
  }
  return out;
}

/** Compares a matchWatches answer with the oracle over the records of `segment` that are not removed. */
async function checkAgainstOracle(segment: string, watches: WatchInput[], got: WatchMatch[], removed: Set<string>, limit = 1000): Promise<void> {
  const live = corpus.filter((c) => c.segment === segment && !removed.has(dedupKey(c.rec, FIELDS)));
  const byId = new Map(got.map((m) => [m.id, m]));
  assert.equal(byId.size, got.length, 'one answer per watch');
  for (const w of watches) {
    const expected = live.filter((c) => oracleMatches(c.rec, w)).map((c) => c.rec.rid[0] as string);
    const m = byId.get(w.id);
    assert.equal(m?.total ?? 0, expected.length, `${w.field}:${JSON.stringify(w.value)} total`);
    if (!m) continue;
    assert.equal(m.recordIds.length, Math.min(limit, expected.length), `${w.id}: at most limit ids`);
    // The corpus is in document order: the first `limit` of the oracle's.
    assert.deepEqual(await rids(m.recordIds), expected.slice(0, limit), `${w.field}:${JSON.stringify(w.value)} ids`);
  }
  // Answers come in the order of the watches, only the matching ones.
  const order = watches.map((w) => w.id).filter((id) => byId.has(id));
  assert.deepEqual(got.map((m) => m.id), order);
}

let segA = '';
let segB = '';

before(async () => {
  ({ dir, cleanup } = tempDir('engine-monitoring-'));
  const r = rng(2026);
  const a: Rec[] = [];
  for (let i = 0; i < 400; i++) a.push(makeRecord(r, i));
  // Fixed records for the named cases.
  a.push({ rid: ['d1'], email: ['Alice@Mail.Example.com'] });
  a.push({ rid: ['d2'], url: ['https://shop.example.com/x'] });
  a.push({ rid: ['d3'], url: ['http://EXAMPLE.com:8080'] });
  a.push({ rid: ['d4'], email: ['bob@notexample.com'], url: ['https://example.com.evil.net/login'] });
  a.push({ rid: ['d5'], domain: ['sub.Example.com.'] });
  segA = await ingest(a, 'a');
  const b: Rec[] = [];
  for (let i = 0; i < 300; i++) b.push(makeRecord(r, 1000 + i));
  segB = await ingest(b, 'b', 29);
  engine = await openEngine(join(dir, 'index'));
});

after(async () => {
  await engine?.close();
  cleanup?.();
});

test('domain watches match email domains, domain values and URL hosts, subdomains included', async () => {
  const m = await engine.matchWatches(segA, [{ id: 'ex', field: 'domain', value: 'Example.com' }]);
  const got = new Set(await rids(m[0]?.recordIds ?? []));
  for (const id of ['d1', 'd2', 'd3', 'd5']) assert.ok(got.has(id), `${id} is under example.com`);
  assert.ok(!got.has('d4'), 'notexample.com and example.com.evil.net are not example.com');
  const evil = await engine.matchWatches(segA, [{ id: 'evil', field: 'domain', value: 'evil.net' }]);
  assert.ok((await rids(evil[0]?.recordIds ?? [])).includes('d4'), 'the host example.com.evil.net is under evil.net');
  const none = await engine.matchWatches(segA, [{ id: 'n', field: 'domain', value: 'ample.com' }, { id: 'n2', field: 'domain', value: 'example' }]);
  assert.deepEqual(none, [], 'a suffix that is not at a dot matches nothing');
});

test('every watch kind agrees with the oracle, and both strategies give the same answer', async () => {
  const r = rng(7);
  for (let round = 0; round < 4; round++) {
    const watches = randomWatches(r, 150);
    const seg = round % 2 ? segB : segA;
    const lookup = await engine.matchWatches(seg, watches, { strategy: 'lookup' });
    const walk = await engine.matchWatches(seg, watches, { strategy: 'walk' });
    const auto = await engine.matchWatches(seg, watches);
    assert.deepEqual(walk, lookup, 'walk = lookup');
    assert.deepEqual(auto, lookup, 'auto = lookup');
    assert.ok(lookup.length > 10 && lookup.length < watches.length, `a mix of matching and not matching watches (${lookup.length})`);
    await checkAgainstOracle(seg, watches, lookup, new Set());
  }
});

test('limit bounds the ids, total counts every match', async () => {
  const watches: WatchInput[] = [{ id: 'gm', field: 'domain', value: 'gmail.com' }, { id: 'ex', field: 'domain', value: 'example.com' }];
  const full = await engine.matchWatches(segA, watches);
  const cut = await engine.matchWatches(segA, watches, { limit: 3 });
  assert.ok((full[0]?.total ?? 0) > 3);
  assert.deepEqual(cut.map((m) => m.total), full.map((m) => m.total));
  for (const [k, m] of cut.entries()) assert.deepEqual(m.recordIds, full[k]?.recordIds.slice(0, 3), 'the first ids in document order');
  const zero = await engine.matchWatches(segA, watches, { limit: 0 });
  assert.deepEqual(zero.map((m) => [m.total, m.recordIds.length]), full.map((m) => [m.total, 0]));
  await checkAgainstOracle(segA, watches, cut, new Set(), 3);
});

test('identical watches each get their answer; unknown fields and empty values match nothing', async () => {
  const m = await engine.matchWatches(segA, [
    { id: 'a', field: 'email', value: 'alice@mail.example.com' },
    { id: 'b', field: 'email', value: ' ALICE@mail.example.COM ' },
    { id: 'c', field: 'nope' as FieldName, value: 'x' },
    { id: 'd', field: 'phone', value: 'no digits' },
    { id: 'e', field: 'domain', value: '' },
  ]);
  assert.deepEqual(m.map((x) => x.id), ['a', 'b']);
  assert.deepEqual(m[0]?.recordIds, m[1]?.recordIds);
  await assert.rejects(engine.matchWatches('no-such-segment', []), /unknown segment/);
});

test('removed records are never matched nor fetched; getMany keeps the order and answers null', async () => {
  const watches = randomWatches(rng(99), 120);
  const before = await engine.matchWatches(segA, watches);
  const victimIds = [...new Set(before.slice(0, 5).map((m) => m.recordIds[0] as string))];
  const victims = await engine.getMany(victimIds);
  const removed = new Set<string>();
  for (const [k, id] of victimIds.entries()) {
    const victim = rid(victims[k]!);
    const key = dedupKey(corpus.find((c) => c.rec.rid[0] === victim)!.rec, FIELDS);
    // A record with the same content as one removed before is already gone.
    assert.equal(await engine.remove(id), !removed.has(key));
    removed.add(key);
  }
  const after = await engine.matchWatches(segA, watches);
  for (const m of after) for (const id of victimIds) assert.ok(!m.recordIds.includes(id), 'a removed id never comes back');
  await checkAgainstOracle(segA, watches, after, removed);
  const walk = await engine.matchWatches(segA, watches, { strategy: 'walk' });
  assert.deepEqual(walk, after);

  const live = [...new Set(after.flatMap((m) => m.recordIds))].slice(0, 2);
  assert.equal(live.length, 2);
  const ids = [live[1]!, victimIds[0]!, 'nope-0-0', live[0]!, `${segA}-0-999999`, live[1]!];
  const many = await engine.getMany(ids);
  assert.equal(many.length, ids.length);
  assert.deepEqual(many.map((e) => e?.id ?? null), [live[1], null, null, live[0], null, live[1]]);
  assert.deepEqual(many[0], await engine.get(live[1]!), 'the same entry shape as get');
  assert.deepEqual(await engine.getMany([]), []);

  const api = await engine.getManyApiText(ids, false);
  const parsed = JSON.parse(api.entriesJson) as Record<string, unknown>[];
  assert.equal(api.found, 3);
  assert.deepEqual(parsed.map((e) => e.id), [live[1], live[0], live[1]]);
  assert.ok(parsed.every((e) => !('raw_record' in e)), 'no raw_record in the public API');
  const { raw_record: raw, ...rest } = many[0]!;
  assert.deepEqual(parsed[0], rest);
  const le = JSON.parse((await engine.getManyApiText([live[0]!], true)).entriesJson) as { raw_record: unknown }[];
  assert.deepEqual(le[0]?.raw_record, { le_only: true, unstructured: many[3]?.raw_record });
  assert.ok(raw);
});

test('a merged segment still matches each ingest by its old id, with ids that resolve', async () => {
  const watches = randomWatches(rng(5), 150);
  const beforeA = await engine.matchWatches(segA, watches);
  const beforeB = await engine.matchWatches(segB, watches);
  const ridsOf = async (ms: WatchMatch[]) => Promise.all(ms.map(async (m) => [m.id, m.total, await rids(m.recordIds)] as const));
  const expectA = await ridsOf(beforeA);
  const expectB = await ridsOf(beforeB);
  const res = await mergeIndex(join(dir, 'index'), { partRecords: 101 });
  assert.deepEqual(new Set(res.merged), new Set([segA, segB]));
  await engine.refresh();
  const afterA = await engine.matchWatches(segA, watches);
  const afterB = await engine.matchWatches(segB, watches, { strategy: 'walk' });
  assert.ok(afterA.every((m) => m.recordIds.every((id) => id.startsWith(`${res.segmentId}-`))), 'ids of the merged segment');
  assert.deepEqual(await ridsOf(afterA), expectA, 'the first ingest, by its old id');
  assert.deepEqual(await ridsOf(afterB), expectB, 'the second ingest, by its old id');
  assert.deepEqual(await engine.matchWatches(segB, watches, { strategy: 'lookup' }), afterB);
});
