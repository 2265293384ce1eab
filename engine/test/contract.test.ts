// The engine's boundary (engine/crates/contract/src/, ARCHITECTURE.md): the committed TypeScript is
// what the Rust definitions generate, the generator reads serde as serde does and refuses
// what it does not know, and the engine refuses a request with a key it does not know or
// without a field that limits what the caller sees, with `invalid_argument`.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import { addonPath, addonState } from '../addon';
import { GENERATED_PATH, generateContract, generateFrom } from '../contract-gen';
import type { GetManyArgs, ParseArgs, SearchArgs, WellCountsArgs, WellCountsReply } from '../contract.generated';
import { validateQuery } from '../index';
import { tempDir } from './helpers';

test('contract.generated.ts is what engine/crates/contract/src/ generates (npm run gen:engine-contract)', () => {
  assert.equal(readFileSync(GENERATED_PATH, 'utf8'), generateContract());
});

const rust = (text: string) => generateFrom([{ file: 'lib.rs', text }]);

test('the generator reads names, optional fields and unions as serde does', () => {
  const ts = rust(`
    use serde::{Deserialize, Serialize};
    /// A request.
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields, rename_all = "camelCase")]
    pub struct AskArgs {
        pub one_term: bool,
        /// Checked when given.
        pub page: Option<u64>,
        #[serde(default = "one")]
        pub part_records: u64,
        #[serde(rename = "type")]
        pub default_field: String,
        pub pairs: Vec<(String, String)>,
        pub cache: Cache,
    }
    fn one() -> u64 { 1 }
    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    pub struct Reply {
        pub since: Option<u64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        pub timing: Option<u64>,
        pub by_field: std::collections::BTreeMap<Kind, Vec<&'static str>>,
        pub wells: BTreeMap<String, u64>,
    }
    #[derive(Serialize, Deserialize)]
    #[serde(rename_all = "snake_case")]
    pub enum Kind { Email, HashedPassword }
    impl Kind { pub const ALL: [Kind; 2] = [Kind::Email, Kind::HashedPassword]; }
    #[derive(Deserialize)]
    #[serde(untagged)]
    pub enum Cache { On(bool), Micros(u64) }
    /// Deepest page.
    pub const LIMIT: u64 = 10_000;
    #[cfg(test)]
    mod tests { fn x() { let _ = "}"; } }
  `);
  const lines = ts.split('\n');
  for (const line of [
    '/** A request. */',
    'export interface AskArgs {',
    '  oneTerm: boolean;',
    '  /** Checked when given. */',
    '  page?: number | null;',
    '  partRecords?: number;',
    '  type: string;',
    '  pairs: [string, string][];',
    '  cache: Cache;',
    '  since: number | null;',
    '  timing?: number;',
    '  byField: Partial<Record<Kind, string[]>>;',
    '  wells: Record<string, number>;',
    "export const KIND_VALUES = ['email', 'hashed_password'] as const;",
    'export type Kind = (typeof KIND_VALUES)[number];',
    'export type Cache = boolean | number;',
    'export const LIMIT = 10000;',
  ]) {
    assert.ok(lines.includes(line), `missing line: ${line}\n${ts}`);
  }
});

test('the generator refuses what it cannot map faithfully', () => {
  const refused: [string, RegExp][] = [
    ['#[derive(Deserialize)]\npub struct A { pub x: u64 }', /refuses unknown fields \(deny_unknown_fields\)/],
    ['#[derive(Deserialize)]\n#[serde(deny_unknown_fields)]\npub struct A { #[serde(flatten)] pub x: B }', /unsupported serde attribute flatten/],
    ['#[derive(Serialize)]\npub struct A { pub x: std::rc::Rc<u64> }', /no TypeScript for the Rust type Rc/],
    ['#[derive(Serialize)]\npub struct A { #[serde(default)] pub x: u64 }', /default on a reply/],
    ['#[derive(Serialize)]\npub enum E { A(u64) }', /only untagged enums hold values/],
    ['pub static X: u64 = 1;', /unsupported item static/],
  ];
  for (const [text, error] of refused) assert.throws(() => rust(text), error, text);
});

interface Native {
  open(dir: string): Promise<object>;
  call(handle: object, op: string, arg: string): Promise<string>;
  parse(arg: string): Promise<string>;
}

const SEARCH: SearchArgs = {
  query: 'email:a@example.com', mode: 'exact', page: 1, size: 20, maxWindow: 10_000, dedup: true, timeBudgetMs: 5_000,
  type: 'all', countCache: true, rawRecord: 'line', oneTerm: false,
};

const without = (o: object, key: string) => Object.fromEntries(Object.entries(o).filter(([k]) => k !== key));

async function refused(call: Promise<unknown>, message: RegExp): Promise<void> {
  await assert.rejects(call, (e: Error & { code?: string }) => {
    assert.equal(e.code, 'invalid_argument', e.message);
    assert.match(e.message, message);
    return true;
  });
}

test('the engine refuses unknown keys and missing security fields with invalid_argument', async () => {
  assert.equal(addonState(), 'current', 'the engine is built from these sources (npm run build:engine)');
  const native = createRequire(import.meta.url)(addonPath) as Native;
  const { dir, cleanup } = tempDir();
  const handle = await native.open(dir);
  try {
    assert.equal(JSON.parse(await native.call(handle, 'search', JSON.stringify(SEARCH))).total, 0, 'the whole request is read');
    await refused(native.call(handle, 'search', JSON.stringify({ ...SEARCH, onlyOneTerm: true })), /unknown field `onlyOneTerm`/);
    for (const key of ['oneTerm', 'rawRecord', 'maxWindow']) {
      await refused(native.call(handle, 'search', JSON.stringify(without(SEARCH, key))), new RegExp(`missing field \`${key}\``));
      await refused(native.call(handle, 'searchText', JSON.stringify(without(SEARCH, key))), new RegExp(`missing field \`${key}\``));
      await refused(native.call(handle, 'searchReply', JSON.stringify({ balance: 1, search: without(SEARCH, key) })), new RegExp(`missing field \`${key}\``));
    }
    await refused(native.call(handle, 'search', JSON.stringify({ ...SEARCH, rawRecord: 'all' })), /unknown variant `all`/);
    const many: GetManyArgs = { ids: [], rawRecord: 'omit' };
    await refused(native.call(handle, 'getManyText', JSON.stringify(without(many, 'rawRecord'))), /missing field `rawRecord`/);
    await refused(native.call(handle, 'searchEverything', '{}'), /unknown operation "searchEverything"/);
    const counts: WellCountsArgs = { query: 'email:a@example.com', mode: 'exact', timeBudgetMs: 5_000, type: 'all', oneTerm: true, distinct: false };
    const reply = JSON.parse(await native.call(handle, 'wellCounts', JSON.stringify(counts))) as WellCountsReply;
    assert.deepEqual([reply.wells, reply.distinct], [[], null], 'distinct: null when not asked');
    const asked = JSON.parse(await native.call(handle, 'wellCounts', JSON.stringify({ ...counts, distinct: true }))) as WellCountsReply;
    assert.equal(asked.distinct, 0, 'asked: a number');
    for (const key of ['oneTerm', 'distinct']) {
      await refused(native.call(handle, 'wellCounts', JSON.stringify(without(counts, key))), new RegExp(`missing field \`${key}\``));
    }
    await refused(native.call(handle, 'wellCounts', JSON.stringify({ ...counts, dedup: false })), /unknown field `dedup`/);
    const parse: ParseArgs = { query: 'email:a@example.com', mode: 'exact', type: 'all', maxWindow: 10_000, oneTerm: true };
    assert.deepEqual(JSON.parse(await native.parse(JSON.stringify(parse))), { mode: 'exact', sources: [] });
    await refused(native.parse(JSON.stringify(without(parse, 'oneTerm'))), /missing field `oneTerm`/);
    await refused(native.parse(JSON.stringify({ ...parse, dedup: true })), /unknown field `dedup`/);
    // The wrapper sends every field: its defaults, not the engine's, fill what a caller leaves out.
    assert.deepEqual(await validateQuery({ query: 'email:a@example.com' }), { mode: 'exact', sources: [] });
  } finally {
    await native.call(handle, 'close', '');
    cleanup();
  }
});
