// Where an engine index's bytes go: the size of every file kind of its parts (`.terms`,
// `.post`, `store.dat`, …, see engine/FORMAT.md), summed over segments and parts, with
// bytes per record and the share of the index. Used for engine/BENCHMARKS.md (the index size target).
//
//   node --import tsx scripts/index-size.ts INDEX_DIR [--raw BYTES]
//
// `--raw` (the corpus' raw bytes) adds the index / raw ratio of every row.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({ options: { raw: { type: 'string' } }, allowPositionals: true });
const dir = positionals[0];
if (!dir) {
  process.stderr.write('usage: index-size.ts INDEX_DIR [--raw BYTES]\n');
  process.exit(2);
}
const raw = values.raw ? Number(values.raw) : 0;

/** The row a part file counts under: its extension for field files, else its name. */
function kind(name: string): string {
  if (name.startsWith('password_sha')) return `password_sha*${name.slice(name.lastIndexOf('.'))}`;
  if (name.startsWith('email_local.')) return `email_local${name.slice(name.lastIndexOf('.'))}`;
  if (name.startsWith('store.')) return name;
  const dot = name.lastIndexOf('.');
  return dot > 0 && !name.endsWith('.dat') && !name.endsWith('.idx') && !name.endsWith('.json') ? name.slice(dot) : name;
}

const sizes = new Map<string, number>();
const byField = new Map<string, number>();
let records = 0;
let total = 0;
for (const seg of readdirSync(dir).filter((d) => d.startsWith('seg-'))) {
  const segDir = join(dir, seg);
  for (const part of readdirSync(segDir).filter((d) => d.startsWith('part-'))) {
    const partDir = join(segDir, part);
    records += (JSON.parse(readFileSync(join(partDir, 'part.json'), 'utf8')) as { docs: number }).docs;
    for (const f of readdirSync(partDir)) {
      const b = statSync(join(partDir, f)).size;
      total += b;
      const k = kind(f);
      sizes.set(k, (sizes.get(k) ?? 0) + b);
      const dot = f.lastIndexOf('.');
      if (dot > 0 && !f.startsWith('store.') && !f.endsWith('.dat') && !f.endsWith('.json')) byField.set(f.slice(0, dot), (byField.get(f.slice(0, dot)) ?? 0) + b);
    }
  }
}

function table(title: string, m: Map<string, number>): void {
  process.stdout.write(`\n| ${title} | MB | bytes / record | share |${raw ? ' / raw |' : ''}\n|---|---|---|---|${raw ? '---|' : ''}\n`);
  for (const [k, b] of [...m].sort((a, c) => c[1] - a[1])) {
    const cells = [k, (b / 1e6).toFixed(1), (b / records).toFixed(1), `${((100 * b) / total).toFixed(1)}%`];
    if (raw) cells.push((b / raw).toFixed(3));
    process.stdout.write(`| ${cells.join(' | ')} |\n`);
  }
}

process.stdout.write(`${dir}: ${records.toLocaleString('en-US')} records, ${(total / 1e6).toFixed(1)} MB in parts, ${(total / records).toFixed(1)} bytes / record${raw ? `, ${(total / raw).toFixed(3)}× raw` : ''}\n`);
table('file kind', sizes);
table('field (all its files)', byField);
