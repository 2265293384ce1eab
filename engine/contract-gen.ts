// Writes engine/contract.generated.ts, the TypeScript twin of the engine's boundary types
// (engine/crates/contract/src/: requests, replies and ops as serde-derived Rust), so that the
// wrapper (index.ts) is compiled against the definitions the engine decodes and encodes.
// engine/test/contract.test.ts fails when the committed file and this output differ.
//
// It reads the restricted Rust that crates/contract/src/lib.rs describes: `pub struct`s with named
// fields, `pub enum`s of unit variants (string unions, with a `…_VALUES` array) or, under
// `untagged`, of one-value variants (unions of their types), `pub type` aliases (a `ts:` doc
// line gives the TypeScript type of an opaque one), integer `pub const`s, and the serde
// attributes `rename_all`, `rename`, `deny_unknown_fields`, `untagged`, `default` and
// `skip_serializing_if`. Anything else it does not know is an error, not a guess.
//
// CLI: node --import tsx engine/contract-gen.ts [--check]   (npm run gen:engine-contract)

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { engineDir } from './addon';

export const CONTRACT_DIR = join(engineDir, 'crates', 'contract', 'src');
export const GENERATED_PATH = join(engineDir, 'contract.generated.ts');

export class ContractError extends Error {
  override name = 'ContractError';
}

// ---- Tokens ----

type Token =
  | { kind: 'doc'; text: string }
  | { kind: 'attr'; text: string }
  | { kind: 'ident'; text: string }
  | { kind: 'string'; text: string }
  | { kind: 'number'; text: string }
  | { kind: 'punct'; text: string };

/** The source as tokens; `///` lines are kept (docs), other comments dropped. */
function tokenize(src: string, file: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  const fail = (what: string): never => {
    const line = src.slice(0, i).split('\n').length;
    throw new ContractError(`${file}:${line}: ${what}`);
  };
  while (i < src.length) {
    const c = src[i]!;
    if (/\s/.test(c)) {
      i++;
    } else if (src.startsWith('///', i) && src[i + 3] !== '/') {
      const end = src.indexOf('\n', i);
      const text = src.slice(i + 3, end < 0 ? src.length : end);
      out.push({ kind: 'doc', text: text.startsWith(' ') ? text.slice(1) : text });
      i = end < 0 ? src.length : end;
    } else if (src.startsWith('//', i)) {
      const end = src.indexOf('\n', i);
      i = end < 0 ? src.length : end;
    } else if (src.startsWith('/*', i)) {
      const end = src.indexOf('*/', i);
      if (end < 0) fail('unterminated block comment');
      i = end + 2;
    } else if (src.startsWith('#[', i) || src.startsWith('#![', i)) {
      let depth = 0;
      const start = i;
      for (; i < src.length; i++) {
        if (src[i] === '"') i = skipString(src, i, fail);
        if (src[i] === '[') depth++;
        if (src[i] === ']' && --depth === 0) break;
      }
      if (depth !== 0) fail('unterminated attribute');
      i++;
      const text = src.slice(start, i);
      if (!text.startsWith('#!')) out.push({ kind: 'attr', text: text.slice(2, -1).trim() });
    } else if (c === '"') {
      const end = skipString(src, i, fail);
      out.push({ kind: 'string', text: src.slice(i + 1, end) });
      i = end + 1;
    } else if (/[A-Za-z_]/.test(c)) {
      const m = /^(?:r#)?[A-Za-z_][A-Za-z0-9_]*/.exec(src.slice(i))!;
      out.push({ kind: 'ident', text: m[0].replace(/^r#/, '') });
      i += m[0].length;
    } else if (/[0-9]/.test(c)) {
      const m = /^[0-9][0-9_]*(?:u8|u16|u32|u64|usize|i32|i64)?/.exec(src.slice(i))!;
      out.push({ kind: 'number', text: m[0] });
      i += m[0].length;
    } else if (src.startsWith('::', i) || src.startsWith('->', i) || src.startsWith('=>', i)) {
      out.push({ kind: 'punct', text: src.slice(i, i + 2) });
      i += 2;
    } else if (c === "'") {
      // A lifetime ('a, 'static) or a char literal: neither is part of a boundary type.
      const m = /^'(?:[A-Za-z_][A-Za-z0-9_]*(?!')|\\?.')/.exec(src.slice(i));
      if (!m) fail('unexpected quote');
      out.push({ kind: 'punct', text: "'" });
      i += m![0].length;
    } else {
      out.push({ kind: 'punct', text: c });
      i++;
    }
  }
  return out;
}

/** The index of the closing quote of the string starting at `i`. */
function skipString(src: string, i: number, fail: (what: string) => never): number {
  for (let j = i + 1; j < src.length; j++) {
    if (src[j] === '\\') j++;
    else if (src[j] === '"') return j;
  }
  return fail('unterminated string');
}

// ---- The contract's items ----

/** A Rust type, as much of it as the boundary uses. */
type RustType = { path: string; args: RustType[] } | { tuple: RustType[] };

interface SerdeAttrs {
  renameAll?: string;
  rename?: string;
  denyUnknownFields?: boolean;
  untagged?: boolean;
  default?: boolean;
  skipSerializingIf?: string;
}

interface Field {
  docs: string[];
  name: string;
  type: RustType;
  serde: SerdeAttrs;
}

interface Variant {
  docs: string[];
  name: string;
  value?: RustType;
  serde: SerdeAttrs;
}

type Item =
  | { kind: 'struct'; docs: string[]; name: string; derives: string[]; serde: SerdeAttrs; fields: Field[]; file: string }
  | { kind: 'enum'; docs: string[]; name: string; derives: string[]; serde: SerdeAttrs; variants: Variant[]; file: string }
  | { kind: 'alias'; docs: string[]; name: string; type: RustType; file: string }
  | { kind: 'const'; docs: string[]; name: string; value: string; file: string };

class Parser {
  #i = 0;
  constructor(
    readonly tokens: Token[],
    readonly file: string,
  ) {}

  fail(what: string): never {
    const t = this.tokens[this.#i];
    throw new ContractError(`${this.file}: ${what} (at ${t ? `${t.kind} ${JSON.stringify(t.text)}` : 'the end'})`);
  }

  peek(offset = 0): Token | undefined {
    return this.tokens[this.#i + offset];
  }

  next(): Token {
    const t = this.tokens[this.#i++];
    if (!t) this.fail('unexpected end');
    return t!;
  }

  is(text: string, offset = 0): boolean {
    const t = this.peek(offset);
    return t !== undefined && (t.kind === 'punct' || t.kind === 'ident') && t.text === text;
  }

  expect(text: string): void {
    if (!this.is(text)) this.fail(`expected ${JSON.stringify(text)}`);
    this.#i++;
  }

  ident(): string {
    const t = this.next();
    if (t.kind !== 'ident') this.fail('expected a name');
    return t.text;
  }

  /** Skips a balanced `{ … }` block starting at the next token. */
  skipBlock(): void {
    this.expect('{');
    let depth = 1;
    while (depth > 0) {
      const t = this.next();
      if (t.kind === 'punct' && t.text === '{') depth++;
      if (t.kind === 'punct' && t.text === '}') depth--;
    }
  }

  /** Skips to the end of the current item: its `;`, or its block. */
  skipItem(): void {
    while (!this.is(';') && !this.is('{')) this.next();
    if (this.is(';')) this.next();
    else this.skipBlock();
  }

  /** Skips a `use` declaration, braces included, to its `;`. */
  skipUse(): void {
    let depth = 0;
    for (;;) {
      const t = this.next();
      if (t.kind !== 'punct') continue;
      if (t.text === '{') depth++;
      if (t.text === '}') depth--;
      if (t.text === ';' && depth === 0) return;
    }
  }

  items(): Item[] {
    const items: Item[] = [];
    while (this.peek()) {
      const docs: string[] = [];
      const attrs: string[] = [];
      while (this.peek()?.kind === 'doc' || this.peek()?.kind === 'attr') {
        const t = this.next();
        (t.kind === 'doc' ? docs : attrs).push(t.text);
      }
      if (attrs.some((a) => /^cfg\s*\(\s*test\s*\)$/.test(a))) {
        this.skipItem();
        continue;
      }
      const isPub = this.is('pub');
      if (isPub) {
        this.next();
        if (this.is('(')) this.fail('only plain `pub` items are read');
      }
      const keyword = this.ident();
      if (keyword === 'use') {
        this.skipUse();
        continue;
      }
      if (keyword === 'mod' || keyword === 'impl' || keyword === 'fn') {
        this.skipItem();
        continue;
      }
      if (!isPub) this.fail(`a private ${keyword} in the contract`);
      if (keyword === 'struct') items.push(this.struct(docs, attrs));
      else if (keyword === 'enum') items.push(this.enum(docs, attrs));
      else if (keyword === 'type') items.push(this.alias(docs));
      else if (keyword === 'const') items.push(this.constant(docs));
      else this.fail(`unsupported item ${keyword}`);
    }
    return items;
  }

  struct(docs: string[], attrs: string[]): Item {
    const name = this.ident();
    this.expect('{');
    const fields: Field[] = [];
    while (!this.is('}')) {
      const { docs: fdocs, attrs: fattrs } = this.docsAndAttrs();
      this.expect('pub');
      const fname = this.ident();
      this.expect(':');
      const type = this.type();
      fields.push({ docs: fdocs, name: fname, type, serde: serdeAttrs(fattrs, ['rename', 'default', 'skip_serializing_if'], this) });
      if (!this.is('}')) this.expect(',');
    }
    this.expect('}');
    return { kind: 'struct', docs, name, derives: derives(attrs), serde: serdeAttrs(attrs, ['rename_all', 'deny_unknown_fields'], this), fields, file: this.file };
  }

  enum(docs: string[], attrs: string[]): Item {
    const name = this.ident();
    this.expect('{');
    const variants: Variant[] = [];
    while (!this.is('}')) {
      const { docs: vdocs, attrs: vattrs } = this.docsAndAttrs();
      const vname = this.ident();
      let value: RustType | undefined;
      if (this.is('(')) {
        this.next();
        value = this.type();
        this.expect(')');
      }
      variants.push({ docs: vdocs, name: vname, value, serde: serdeAttrs(vattrs, ['rename'], this) });
      if (!this.is('}')) this.expect(',');
    }
    this.expect('}');
    return { kind: 'enum', docs, name, derives: derives(attrs), serde: serdeAttrs(attrs, ['rename_all', 'untagged'], this), variants, file: this.file };
  }

  alias(docs: string[]): Item {
    const name = this.ident();
    this.expect('=');
    const type = this.type();
    this.expect(';');
    return { kind: 'alias', docs, name, type, file: this.file };
  }

  constant(docs: string[]): Item {
    const name = this.ident();
    this.expect(':');
    this.type();
    this.expect('=');
    const t = this.next();
    if (t.kind !== 'number') this.fail('a contract constant is an integer literal');
    this.expect(';');
    return { kind: 'const', docs, name, value: t.text.replace(/_/g, '').replace(/[ui](8|16|32|64|size)$/, ''), file: this.file };
  }

  docsAndAttrs(): { docs: string[]; attrs: string[] } {
    const docs: string[] = [];
    const attrs: string[] = [];
    while (this.peek()?.kind === 'doc' || this.peek()?.kind === 'attr') {
      const t = this.next();
      (t.kind === 'doc' ? docs : attrs).push(t.text);
    }
    return { docs, attrs };
  }

  type(): RustType {
    if (this.is('&')) {
      this.next();
      if (this.is("'")) {
        this.next();
      }
      return this.type();
    }
    if (this.is('(')) {
      this.next();
      const tuple: RustType[] = [];
      while (!this.is(')')) {
        tuple.push(this.type());
        if (!this.is(')')) this.expect(',');
      }
      this.expect(')');
      return { tuple };
    }
    let path = this.ident();
    while (this.is('::')) {
      this.next();
      path = this.ident(); // the last segment names the type
    }
    const args: RustType[] = [];
    if (this.is('<')) {
      this.next();
      while (!this.is('>')) {
        args.push(this.type());
        if (!this.is('>')) this.expect(',');
      }
      this.expect('>');
    }
    return { path, args };
  }
}

function derives(attrs: string[]): string[] {
  return attrs.flatMap((a) => /^derive\s*\((.*)\)$/s.exec(a)?.[1]?.split(',').map((d) => d.trim().split('::').pop()!) ?? []);
}

/** The serde attributes of an item, a field or a variant; `allowed` are the ones it may carry. */
function serdeAttrs(attrs: string[], allowed: string[], p: Parser): SerdeAttrs {
  const out: SerdeAttrs = {};
  for (const a of attrs) {
    const inner = /^serde\s*\((.*)\)$/s.exec(a)?.[1];
    if (inner === undefined) {
      if (!/^(derive|allow|doc)\b/.test(a)) p.fail(`unsupported attribute #[${a}]`);
      continue;
    }
    for (const part of inner.split(',').map((s) => s.trim()).filter(Boolean)) {
      const m = /^([a-z_]+)\s*(?:=\s*"([^"]*)")?$/.exec(part);
      const key = m?.[1];
      if (!m || !key || !allowed.includes(key)) p.fail(`unsupported serde attribute ${part}`);
      const value = m![2];
      if (key === 'rename_all') out.renameAll = value;
      else if (key === 'rename') out.rename = value;
      else if (key === 'deny_unknown_fields') out.denyUnknownFields = true;
      else if (key === 'untagged') out.untagged = true;
      else if (key === 'default') out.default = true;
      else if (key === 'skip_serializing_if') out.skipSerializingIf = value;
    }
  }
  return out;
}

// ---- Names as serde spells them ----

function words(name: string): string[] {
  return name.includes('_') ? name.split('_').filter(Boolean) : name.split(/(?=[A-Z])/);
}

function renamed(name: string, rule: string | undefined, p: { fail(what: string): never }): string {
  if (rule === undefined) return name;
  const w = words(name).map((x) => x.toLowerCase());
  switch (rule) {
    case 'camelCase':
      return w.map((x, i) => (i === 0 ? x : x[0]!.toUpperCase() + x.slice(1))).join('');
    case 'snake_case':
      return w.join('_');
    case 'kebab-case':
      return w.join('-');
    case 'lowercase':
      return name.toLowerCase();
    case 'SCREAMING_SNAKE_CASE':
      return w.join('_').toUpperCase();
    default:
      return p.fail(`unsupported rename_all rule ${rule}`);
  }
}

const screaming = (name: string) => words(name).join('_').toUpperCase();

// ---- TypeScript ----

const NUMBERS = new Set(['u8', 'u16', 'u32', 'u64', 'usize', 'i8', 'i16', 'i32', 'i64', 'isize', 'f32', 'f64']);
const STRINGS = new Set(['String', 'str', 'PathBuf']);

class Writer {
  readonly #names: Map<string, Item>;
  constructor(readonly items: Item[]) {
    this.#names = new Map(items.map((i) => [i.name, i]));
  }

  fail(what: string): never {
    throw new ContractError(what);
  }

  /** The TypeScript of a Rust type (`context` names it in errors). */
  ts(t: RustType, context: string): string {
    if ('tuple' in t) return `[${t.tuple.map((x) => this.ts(x, context)).join(', ')}]`;
    const arg = (n: number) => t.args[n] ?? this.fail(`${context}: ${t.path} without its type argument`);
    if (NUMBERS.has(t.path)) return 'number';
    if (STRINGS.has(t.path)) return 'string';
    if (t.path === 'bool') return 'boolean';
    if (t.path === 'Value') return 'unknown';
    if (t.path === 'Option') return `${this.ts(arg(0), context)} | null`;
    if (t.path === 'Vec') {
      const inner = this.ts(arg(0), context);
      return /[|&]/.test(inner) ? `(${inner})[]` : `${inner}[]`;
    }
    if (t.path === 'Box' || t.path === 'Arc') return this.ts(arg(0), context);
    if (t.path === 'BTreeMap' || t.path === 'HashMap') {
      const key = arg(0);
      const value = this.ts(arg(1), context);
      if ('path' in key && STRINGS.has(key.path)) return `Record<string, ${value}>`;
      const item = 'path' in key ? this.#names.get(key.path) : undefined;
      if (item?.kind === 'enum' && !item.serde.untagged) return `Partial<Record<${item.name}, ${value}>>`;
      return this.fail(`${context}: map keys are strings or a string enum`);
    }
    if (t.args.length === 0 && this.#names.has(t.path)) return t.path;
    return this.fail(`${context}: no TypeScript for the Rust type ${t.path}`);
  }

  item(item: Item): string {
    switch (item.kind) {
      case 'const':
        return `${jsdoc(item.docs, '')}export const ${item.name} = ${item.value};\n`;
      case 'alias': {
        const tsLine = item.docs.find((d) => d.startsWith('ts: '));
        const docs = item.docs.filter((d) => d !== tsLine);
        return `${jsdoc(docs, '')}export type ${item.name} = ${tsLine ? tsLine.slice(4) : this.ts(item.type, item.name)};\n`;
      }
      case 'enum':
        return this.enumeration(item);
      case 'struct':
        return this.struct(item);
    }
  }

  enumeration(item: Extract<Item, { kind: 'enum' }>): string {
    if (item.serde.untagged) {
      const types = item.variants.map((v) => (v.value ? this.ts(v.value, `${item.name}::${v.name}`) : this.fail(`${item.name}::${v.name}: an untagged variant holds one value`)));
      return `${jsdoc(item.docs, '')}export type ${item.name} = ${types.join(' | ')};\n`;
    }
    const names = item.variants.map((v) => {
      if (v.value) this.fail(`${item.name}::${v.name}: only untagged enums hold values`);
      return v.serde.rename ?? renamed(v.name, item.serde.renameAll, this);
    });
    const values = `${screaming(item.name)}_VALUES`;
    const documented = item.variants.some((v) => v.docs.length > 0);
    const list = documented
      ? `[\n${item.variants.map((v, i) => `${jsdoc(v.docs, '  ')}  '${names[i]}',\n`).join('')}]`
      : `[${names.map((n) => `'${n}'`).join(', ')}]`;
    return `${jsdoc(item.docs, '')}export const ${values} = ${list} as const;\nexport type ${item.name} = (typeof ${values})[number];\n`;
  }

  struct(item: Extract<Item, { kind: 'struct' }>): string {
    const reads = item.derives.includes('Deserialize');
    const writes = item.derives.includes('Serialize');
    if (!reads && !writes) this.fail(`${item.name}: derives neither Serialize nor Deserialize`);
    if (reads && !item.serde.denyUnknownFields) this.fail(`${item.name}: a request refuses unknown fields (deny_unknown_fields)`);
    const lines = item.fields.map((f) => {
      const context = `${item.name}.${f.name}`;
      const isOption = 'path' in f.type && f.type.path === 'Option';
      // Read: serde fills an absent Option with None, and a field with `default`.
      const optionalIn = reads && (f.serde.default === true || isOption);
      // Written: only a skipped field may be absent.
      const optionalOut = f.serde.skipSerializingIf !== undefined;
      if (reads && writes && (optionalIn || optionalOut)) this.fail(`${context}: a type both read and written has no optional fields`);
      if (!reads && f.serde.default) this.fail(`${context}: default on a reply`);
      if (!writes && f.serde.skipSerializingIf) this.fail(`${context}: skip_serializing_if on a request`);
      const skippedNone = f.serde.skipSerializingIf === 'Option::is_none' && isOption && 'path' in f.type;
      const type = skippedNone ? this.ts((f.type as { args: RustType[] }).args[0]!, context) : this.ts(f.type, context);
      const name = f.serde.rename ?? renamed(f.name, item.serde.renameAll, this);
      return `${jsdoc(f.docs, '  ')}  ${name}${optionalIn || optionalOut ? '?' : ''}: ${type};\n`;
    });
    return `${jsdoc(item.docs, '')}export interface ${item.name} {\n${lines.join('')}}\n`;
  }
}

function jsdoc(docs: string[], indent: string): string {
  const lines = docs.map((d) => d.trimEnd());
  while (lines.length && lines[lines.length - 1] === '') lines.pop();
  if (lines.length === 0) return '';
  if (lines.some((l) => l.includes('*/'))) throw new ContractError(`a doc comment holds "*/": ${lines.join(' ')}`);
  if (lines.length === 1) return `${indent}/** ${lines[0]} */\n`;
  return `${indent}/**\n${lines.map((l) => `${indent} *${l ? ` ${l}` : ''}\n`).join('')}${indent} */\n`;
}

const HEADER = `// Generated by engine/contract-gen.ts from engine/crates/contract/src/ (the engine's requests,
// replies and ops, serde-derived Rust): do not edit. Regenerate with
// \`npm run gen:engine-contract\`; engine/test/contract.test.ts fails when this file and the
// Rust definitions differ.
`;

/** The contract crate's files: `lib.rs`, then its modules by name (as rustfmt orders them). */
export function contractSources(dir = CONTRACT_DIR): { file: string; text: string }[] {
  const root = readFileSync(join(dir, 'lib.rs'), 'utf8');
  const subs = [...root.matchAll(/^\s*mod\s+(\w+)\s*;/gm)].map((m) => m[1]!).sort();
  return [{ file: 'lib.rs', text: root }, ...subs.map((s) => ({ file: `${s}.rs`, text: readFileSync(join(dir, `${s}.rs`), 'utf8') }))];
}

/** The TypeScript of Rust contract sources. */
export function generateFrom(sources: { file: string; text: string }[]): string {
  const parsed = sources.map(({ file, text }) => ({ file, items: new Parser(tokenize(text, file), file).items() }));
  const writer = new Writer(parsed.flatMap((p) => p.items));
  const seen = new Set<string>();
  const sections = parsed
    .filter((p) => p.items.length > 0)
    .map((p) => {
      for (const i of p.items) {
        if (seen.has(i.name)) throw new ContractError(`${p.file}: ${i.name} is defined twice`);
        seen.add(i.name);
      }
      return `// crates/contract/src/${p.file}\n\n${p.items.map((i) => writer.item(i)).join('\n')}`;
    });
  return `${HEADER}\n${sections.join('\n')}`;
}

/** The generated file's text as the contract's sources give it now. */
export function generateContract(): string {
  return generateFrom(contractSources());
}

const isMain = process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1];
if (isMain) {
  const text = generateContract();
  if (process.argv.includes('--check')) {
    const current = readFileSync(GENERATED_PATH, 'utf8');
    if (current !== text) {
      console.error(`${GENERATED_PATH} differs from engine/crates/contract/src/: run npm run gen:engine-contract`);
      process.exit(1);
    }
  } else {
    writeFileSync(GENERATED_PATH, text);
    console.log(GENERATED_PATH);
  }
}
