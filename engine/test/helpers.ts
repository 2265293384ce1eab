// Shared helpers for the engine tests: temp dirs, a seeded PRNG, a brute-force oracle.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openEngine, type Engine, type SearchMode } from '../index';
export { rng } from '../../scripts/lib/random';

export function tempDir(prefix = 'engine-test-'): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export const pick = <T>(r: () => number, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;

export type Rec = Record<string, string[]> & { rid: string[] };

/** The engine's per-field normalisation, restated for the oracle (the subset the tests use). */
export function normalize(field: string, v: string): string | null {
  const t = v.trim();
  if (!t) return null;
  switch (field) {
    case 'email':
    case 'username':
    case 'domain':
      return t.toLowerCase();
    case 'password':
      return t;
    case 'phone': {
      const d = t.replace(/[^0-9]/g, '');
      return d || null;
    }
    case 'name':
      return t.toLowerCase().split(/\s+/).join(' ');
    case 'ip_address':
      return t.toLowerCase();
    default:
      return t.toLowerCase();
  }
}

export const CASE_SENSITIVE = new Set(['password', 'hashed_password', 'cryptocurrency_address']);

/** Normalised values of a field, with email domains indexed under `domain`. */
export function values(rec: Rec, field: string): string[] {
  const out: string[] = [];
  for (const v of rec[field] ?? []) {
    const n = normalize(field, v);
    if (n !== null) out.push(n);
  }
  if (field === 'domain') {
    for (const e of rec.email ?? []) {
      const n = normalize('email', e);
      const at = n?.lastIndexOf('@') ?? -1;
      if (n && at >= 0 && at < n.length - 1) out.push(n.slice(at + 1));
    }
  }
  return out;
}

export function dedupKey(rec: Rec, fields: readonly string[]): string {
  return fields
    .map((f) => {
      const vs = [...new Set((rec[f] ?? []).map((v) => normalize(f, v)).filter((x): x is string => x !== null))].sort();
      return vs.length ? `${f}=${vs.join('\u0001')}` : '';
    })
    .filter(Boolean)
    .join('\u0002');
}

export function wildcardToRegExp(pattern: string): RegExp {
  let src = '^';
  for (const c of pattern) {
    if (c === '*') src += '.*';
    else if (c === '?') src += '.';
    else src += c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  }
  return new RegExp(`${src}$`, 'su');
}

/**
 * The `rid`s of an ingest's records in document order, for an oracle. A part numbers its
 * records in an order of its own (engine/crates/format/src/segment/writer.rs `PartOrder`: popular passwords'
 * records together, the rest by username or email), not the input's, so an oracle walking
 * the input must walk it in this order. Read back by record id (`<segment>-<part>-<doc>`,
 * parts of `partRecords`); a removed record reads as nothing and is left out. Merges keep
 * the order, so positions taken at ingest stay right.
 */
export async function documentOrder(indexDir: string, segment: string, records: number, partRecords: number): Promise<string[]> {
  const ids: string[] = [];
  for (let p = 0; p * partRecords < records; p++) for (let d = 0; d < Math.min(partRecords, records - p * partRecords); d++) ids.push(`${segment}-${p}-${d}`);
  const engine = await openEngine(indexDir);
  try {
    const out: string[] = [];
    for (let i = 0; i < ids.length; i += 500) {
      for (const e of await engine.getMany(ids.slice(i, i + 500))) if (e) out.push(String((JSON.parse(e.raw_record) as Rec).rid[0]));
    }
    return out;
  } finally {
    await engine.close();
  }
}

/** What an index answered for a fixture's queries (`expected.json` of the format fixtures). */
export type Expected = {
  searches: { query: string; mode: SearchMode; total: number; entries: Record<string, unknown>[] }[];
  counts: Record<string, number>;
  ranges: Record<string, { suffixes: { suffix: string; count: number }[]; truncated: boolean }>;
};

/** The engine's answers to `expected`'s searches, hash counts and ranges, in its shape (ids left out). */
export async function answers(engine: Engine, expected: Expected): Promise<Expected> {
  const searches: Expected['searches'] = [];
  for (const { query, mode } of expected.searches) {
    const r = await engine.search({ query, mode, page: 1, size: 500, countCache: false });
    searches.push({ query, mode, total: r.total, entries: r.entries.map(({ id: _id, ...rest }) => rest) });
  }
  const counts: Expected['counts'] = {};
  for (const h of Object.keys(expected.counts)) counts[h] = (await engine.passwordCount(h)).total;
  const ranges: Expected['ranges'] = {};
  for (const p of Object.keys(expected.ranges)) {
    const r = await engine.passwordRange(p.toUpperCase());
    ranges[p] = { suffixes: r.suffixes, truncated: r.truncated };
  }
  return { searches, counts, ranges };
}
