// The engine's modules form one dependency order (ARCHITECTURE.md, "Layers"): every module
// of engine/src is in LAYERS and names only modules of lower layers, so the import graph
// has no cycle. References are read from the source text: `crate::x`, `use crate::{x, …}`
// and `super::x` reaching the crate root, tests included; comments and string literals
// are ignored.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

/** Bottom-up. A module may name modules of lower layers only. */
const LAYERS: readonly (readonly string[])[] = [
  ['contract', 'error', 'ffi', 'pool', 'sql', 'zstd_block'],
  ['budget', 'bytes', 'digest'],
  ['fields'],
  ['keys', 'postings'],
  ['store'],
  ['termdict'],
  ['trigram'],
  ['source'],
  ['dedup'],
  ['segment'],
  ['manifest', 'watch'],
  ['query', 'suppress'],
  ['planner'],
  ['publish'],
  ['merge'],
  ['ingest'],
  ['render'],
  ['request'],
  ['engine'],
  ['napi'],
];

const SRC = join(import.meta.dirname, '..', 'src');
/** The crate root declares every module; it is not a layer. */
const ROOT = 'lib';

/** The source without comments and string, byte-string and char literals (kept: code). */
function codeOnly(src: string): string {
  let out = '';
  let i = 0;
  const n = src.length;
  while (i < n) {
    const c = src[i]!;
    const next = src[i + 1];
    if (c === '/' && next === '/') {
      while (i < n && src[i] !== '\n') i++;
    } else if (c === '/' && next === '*') {
      let depth = 0;
      do {
        if (src.startsWith('/*', i)) {
          depth++;
          i += 2;
        } else if (src.startsWith('*/', i)) {
          depth--;
          i += 2;
        } else i++;
      } while (depth > 0 && i < n);
      out += ' ';
    } else if ((c === 'r' || (c === 'b' && next === 'r')) && /^b?r#*"/.test(src.slice(i, i + 260)) && !/\w/.test(src[i - 1] ?? '')) {
      // Raw string: r"…", r#"…"#, br"…"
      const m = /^b?r(#*)"/.exec(src.slice(i))!;
      const end = `"${m[1]}`;
      const close = src.indexOf(end, i + m[0].length);
      i = close < 0 ? n : close + end.length;
      out += '""';
    } else if (c === '"') {
      i++;
      while (i < n && src[i] !== '"') i += src[i] === '\\' ? 2 : 1;
      i++;
      out += '""';
    } else if (c === "'") {
      // A char literal ('x', '\n', '\u{1F600}', '"'), or a lifetime ('a) which is code.
      const m = /^'(?:\\(?:u\{[0-9a-fA-F]+\}|x[0-9a-fA-F]{2}|.)|[^\\'])'/u.exec(src.slice(i, i + 16));
      if (m) {
        i += m[0].length;
        out += "' '";
      } else {
        out += c;
        i++;
      }
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

/** The sibling modules a module's code names. */
function referencedModules(code: string, modules: ReadonlySet<string>, nested = 0): Set<string> {
  const found = new Set<string>();
  const add = (name: string | undefined) => {
    if (name && modules.has(name)) found.add(name);
  };
  // `crate::{a, b::{…}, c}`: the first name of each top-level item.
  for (const m of code.matchAll(/(?<![\w$])crate\s*::\s*\{/g)) {
    let depth = 1;
    let j = m.index! + m[0].length;
    let item = '';
    const items: string[] = [];
    while (j < code.length && depth > 0) {
      const ch = code[j]!;
      if (ch === '{') depth++;
      if (ch === '}') depth--;
      if (depth === 1 && ch === ',') {
        items.push(item);
        item = '';
      } else if (depth > 0) item += ch;
      j++;
    }
    items.push(item);
    for (const it of items) add(/^\s*(\w+)/.exec(it)?.[1]);
  }
  for (const m of code.matchAll(/(?<![\w$])crate\s*::\s*(\w+)/g)) add(m[1]);
  // `super::x` names a sibling only from the file's top level; inside `mod tests { … }`
  // one more `super` is needed per nesting level, and one more in a file of a folder module
  // (`nested`: store/writer.rs reaches the crate's modules through `super::super`).
  const depthAt = inlineModuleDepths(code);
  for (const m of code.matchAll(/(?<![\w$:])((?:super\s*::\s*)+)(\w+)/g)) {
    const supers = (m[1]!.match(/super/g) ?? []).length;
    if (supers === depthAt(m.index!) + nested + 1) add(m[2]);
  }
  return found;
}

/** For a position in the code, how many inline `mod name { … }` blocks enclose it. */
function inlineModuleDepths(code: string): (pos: number) => number {
  const spans: [number, number][] = [];
  for (const m of code.matchAll(/(?<!\w)mod\s+\w+\s*\{/g)) {
    let depth = 1;
    let j = m.index! + m[0].length;
    while (j < code.length && depth > 0) {
      if (code[j] === '{') depth++;
      if (code[j] === '}') depth--;
      j++;
    }
    spans.push([m.index!, j]);
  }
  return (pos) => spans.filter(([s, e]) => s <= pos && pos < e).length;
}

/**
 * module -> the modules it names, for every module of engine/src but the crate root: a
 * `name.rs` file, a `name/mod.rs` folder, and the files of a `name/` folder beside either
 * (the module's own submodules, such as its tests: read as part of it, one level down).
 */
function moduleGraph(): Map<string, Set<string>> {
  const sources = new Map<string, { code: string; nested: number }[]>();
  const add = (module: string, file: string, nested: number) => {
    const list = sources.get(module) ?? [];
    list.push({ code: codeOnly(readFileSync(file, 'utf8')), nested });
    sources.set(module, list);
  };
  for (const e of readdirSync(SRC, { withFileTypes: true })) {
    if (e.isFile() && e.name.endsWith('.rs') && e.name !== `${ROOT}.rs`) add(e.name.slice(0, -3), join(SRC, e.name), 0);
    if (!e.isDirectory()) continue;
    for (const f of readdirSync(join(SRC, e.name)).filter((name) => name.endsWith('.rs'))) {
      add(e.name, join(SRC, e.name, f), f === 'mod.rs' ? 0 : 1);
    }
  }
  const modules = new Set(sources.keys());
  const graph = new Map<string, Set<string>>();
  for (const [m, files] of sources) {
    const refs = new Set<string>();
    for (const { code, nested } of files) for (const r of referencedModules(code, modules, nested)) refs.add(r);
    refs.delete(m);
    graph.set(m, refs);
  }
  return graph;
}

/** A cycle of the graph as a path (first = last), or null. */
function findCycle(graph: ReadonlyMap<string, ReadonlySet<string>>): string[] | null {
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (m: string): string[] | null => {
    if (state.get(m) === 'done') return null;
    if (state.get(m) === 'open') return [...path.slice(path.indexOf(m)), m];
    state.set(m, 'open');
    path.push(m);
    for (const r of graph.get(m) ?? []) {
      const c = visit(r);
      if (c) return c;
    }
    path.pop();
    state.set(m, 'done');
    return null;
  };
  for (const m of [...graph.keys()].sort()) {
    const c = visit(m);
    if (c) return c;
  }
  return null;
}

test('the reader finds references in code only, at the right module depth', () => {
  const modules = new Set(['fields', 'segment', 'engine', 'postings']);
  const code = codeOnly(`
    //! See crate::engine for readers.
    use crate::{fields::{FIELDS, normalize}, segment::Segment};
    fn f() { let s = "crate::engine"; let c = '"'; let r = r#"crate::engine "quoted""#; postings_of(); }
    fn g<'a>(x: &'a str) -> &'a str { let _ = super::postings::encode; x }
    /* crate::engine */
    #[cfg(test)]
    mod tests { use super::*; use super::super::engine::Engine; }
  `);
  assert.deepEqual([...referencedModules(code, modules)].sort(), ['engine', 'fields', 'postings', 'segment']);
  assert.deepEqual([...referencedModules(codeOnly('mod tests { use super::fields; } // crate::engine'), modules)], []);
  // In a file of a folder module, `super::x` is the folder's own; `super::super::x` a crate module.
  assert.deepEqual([...referencedModules(codeOnly('use super::postings; use super::super::fields;'), modules, 1)], ['fields']);
  assert.deepEqual(findCycle(new Map([['a', new Set(['b'])], ['b', new Set(['c'])], ['c', new Set(['a'])]])), ['a', 'b', 'c', 'a']);
  assert.equal(findCycle(new Map([['a', new Set(['b'])], ['b', new Set<string>()]])), null);
});

test('engine modules: no cycle, and each names only lower layers', () => {
  const graph = moduleGraph();
  assert.equal(findCycle(graph)?.join(' -> ') ?? null, null, 'the engine modules have a cycle');
  const layerOf = new Map<string, number>();
  LAYERS.forEach((layer, i) => layer.forEach((m) => layerOf.set(m, i)));
  assert.deepEqual([...graph.keys()].filter((m) => !layerOf.has(m)).sort(), [], 'modules missing from LAYERS');
  assert.deepEqual([...layerOf.keys()].filter((m) => !graph.has(m)).sort(), [], 'LAYERS names modules that do not exist');
  const upward: string[] = [];
  for (const [m, refs] of graph) {
    for (const r of refs) {
      if (layerOf.get(r)! >= layerOf.get(m)!) upward.push(`${m} names ${r}`);
    }
  }
  assert.deepEqual(upward.sort(), [], 'a module names one of its own or a higher layer');
});
