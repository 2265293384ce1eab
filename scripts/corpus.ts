// Seeded generator of realistic, synthetic breach records (benchmark.md, "Corpus").
//
//   npm run corpus -- --records N --seed S --out DIR
//
//   npm run corpus -- --formats --records N --out DIR   (one file per ingest format, below)
//
// Writes 42 sources of different shapes (combolists, CSV/TSV with headers, JSON lines)
// under DIR/sources, ~7% exact duplicates across sources of the same shape, and
// DIR/corpus.json (sources, counts). Word lists come from @faker-js/faker (offline);
// no real leaked data. Emails: ~70% at the 15 largest free-mail domains, the rest at a
// Zipf-distributed long tail of company domains; passwords follow a Zipf law (s = 0.8).

import { createHash } from 'node:crypto';
import { createWriteStream, mkdirSync, writeFileSync, type WriteStream } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { faker } from '@faker-js/faker';
import { rng } from './lib/random';

export const FREE_MAIL = [
  'gmail.com', 'yahoo.com', 'hotmail.com', 'outlook.com', 'aol.com', 'icloud.com', 'mail.ru', 'yandex.ru',
  'gmx.de', 'web.de', 'orange.fr', 'hotmail.co.uk', 'live.com', 'qq.com', 'protonmail.com',
];
const FREE_WEIGHTS = [30, 12, 10, 7, 4, 4, 4, 3, 3, 3, 3, 2, 2, 2, 1];

/** Sample ranks 0..n-1 with P(k) ∝ 1/(k+1)^s, by binary search over the CDF. */
function zipf(n: number, s: number, r: () => number): () => number {
  const cdf = new Float64Array(n);
  let acc = 0;
  for (let k = 0; k < n; k++) cdf[k] = acc += 1 / Math.pow(k + 1, s);
  return () => {
    const x = r() * acc;
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((cdf[mid] as number) < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

function weighted(weights: number[], r: () => number): () => number {
  const total = weights.reduce((a, b) => a + b, 0);
  return () => {
    let x = r() * total;
    for (let i = 0; i < weights.length; i++) {
      x -= weights[i] as number;
      if (x <= 0) return i;
    }
    return weights.length - 1;
  };
}

type Rec = Record<string, string>;

type Shape = {
  name: string;
  ext: 'txt' | 'csv' | 'tsv' | 'jsonl';
  header?: string[]; // output column names
  fields: string[]; // record keys, aligned with header (or the combo/jsonl keys)
  sep?: string;
};

const SHAPES: Shape[] = [
  { name: 'combo-email', ext: 'txt', fields: ['email', 'password'], sep: ':' },
  { name: 'combo-user', ext: 'txt', fields: ['username', 'password'], sep: ';' },
  { name: 'combo-tab', ext: 'txt', fields: ['email', 'password'], sep: '\t' },
  { name: 'forum-csv', ext: 'csv', header: ['email', 'username', 'password', 'ip'], fields: ['email', 'username', 'password', 'ip_address'], sep: ',' },
  { name: 'shop-csv', ext: 'csv', header: ['Mail', 'Login', 'Hash', 'Phone_Number', 'Full Name'], fields: ['email', 'username', 'hashed_password', 'phone', 'name'], sep: ';' },
  { name: 'game-tsv', ext: 'tsv', header: ['user', 'pass', 'ip_address', 'dob'], fields: ['username', 'password', 'ip_address', 'dob'], sep: '\t' },
  { name: 'crm-csv', ext: 'csv', header: ['full_name', 'address', 'phone', 'vin', 'license_plate', 'email', 'company'], fields: ['name', 'address', 'phone', 'vin', 'license_plate', 'email', 'company'], sep: ',' },
  { name: 'saas-jsonl', ext: 'jsonl', fields: ['email', 'username', 'hashed_password', 'ip_address', 'name'] },
  { name: 'social-jsonl', ext: 'jsonl', fields: ['email', 'password', 'phone', 'address', 'dob', 'url', 'social'] },
];

export interface CorpusSource {
  file: string;
  well: string;
  shape: string;
  records: number;
}

export interface CorpusInfo {
  records: number;
  seed: number;
  sources: CorpusSource[];
  bytes: number;
  duplicates: number;
}

function csvCell(v: string, sep: string): string {
  return v.includes(sep) || v.includes('"') ? `"${v.replace(/"/g, '""')}"` : v;
}

/** Columns of DIR/flat.tsv (written with `flat`): what the benchmark's peers load. */
export const FLAT_COLUMNS = ['source', 'email', 'username', 'password', 'hashed_password', 'ip_address', 'name', 'phone'] as const;

export async function generateCorpus(records: number, seed: number, out: string, log = (s: string) => console.error(s), flat = false): Promise<CorpusInfo> {
  const r = rng(seed);
  faker.seed(seed);
  const d = faker.definitions;
  const first = [...new Set([...(d.person.first_name as { generic?: string[]; female?: string[]; male?: string[] }).female ?? [], ...((d.person.first_name as { male?: string[] }).male ?? [])])];
  const last = [...new Set((d.person.last_name as { generic?: string[] }).generic ?? [])];
  const words = [...new Set([...(d.word?.adjective ?? []), ...(d.word?.noun ?? []), ...(d.lorem.word as string[])])].filter((w) => /^[a-z]+$/.test(w));
  const cities = d.location.city_name as string[];
  const common = ['123456', 'password', '123456789', '12345678', '12345', 'qwerty', 'abc123', 'password1', '111111', 'iloveyou', '1234567', 'dragon', 'monkey', 'letmein', 'football', 'sunshine', 'princess', 'admin', 'welcome', 'shadow'];
  // Password vocabulary: common ones first (Zipf head), then word+digits mutations.
  const pwVocab: string[] = [...common];
  const pr = rng(seed ^ 0x5bd1e995);
  while (pwVocab.length < 200_000) {
    const w = words[Math.floor(pr() * words.length)] as string;
    const k = pr();
    pwVocab.push(k < 0.4 ? w + Math.floor(pr() * 1000) : k < 0.6 ? w[0]?.toUpperCase() + w.slice(1) + Math.floor(pr() * 100) + '!' : k < 0.8 ? w + (words[Math.floor(pr() * words.length)] as string) : w + (1950 + Math.floor(pr() * 70)));
  }
  const pwRank = zipf(pwVocab.length, 0.8, r);
  const companyDomains: string[] = [];
  for (let i = 0; i < 20_000; i++) companyDomains.push(`${words[Math.floor(r() * words.length)]}${i % 7 === 0 ? '-' : ''}${words[Math.floor(r() * words.length)]}.${['com', 'net', 'org', 'io', 'de', 'fr', 'co.uk'][i % 7]}`);
  const companyRank = zipf(companyDomains.length, 1.0, r);
  const freeIdx = weighted(FREE_WEIGHTS, r);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
  const hex = (n: number) => {
    let s = '';
    for (let i = 0; i < n; i++) s += '0123456789abcdef'[Math.floor(r() * 16)];
    return s;
  };

  const makeRecord = (): Rec => {
    const fn = pick(first);
    const ln = pick(last);
    const f = fn.toLowerCase().replace(/[^a-z]/g, '') || 'x';
    const l = ln.toLowerCase().replace(/[^a-z]/g, '') || 'y';
    const n = Math.floor(r() * 10000);
    const style = r();
    const local = style < 0.3 ? `${f}.${l}` : style < 0.5 ? `${f}${l}${n % 100}` : style < 0.7 ? `${f[0]}${l}${n}` : style < 0.85 ? `${f}_${n}` : `${l}.${f}${n % 10}`;
    const domain = r() < 0.7 ? (FREE_MAIL[freeIdx()] as string) : (companyDomains[companyRank()] as string);
    const password = pwVocab[pwRank()] as string;
    const h = r();
    const hashed = h < 0.4 ? createHash('md5').update(password).digest('hex') : h < 0.65 ? createHash('sha1').update(password).digest('hex') : h < 0.85 ? createHash('sha256').update(password + n).digest('hex') : `$2y$10$${hex(22)}${hex(31)}`;
    const ip = r() < 0.85 ? `${1 + Math.floor(r() * 223)}.${Math.floor(r() * 256)}.${Math.floor(r() * 256)}.${Math.floor(r() * 256)}` : `2001:db8:${hex(4)}:${hex(4)}::${hex(3)}`;
    return {
      email: r() < 0.1 ? `${local}@${domain}`.replace(/^./, (c) => c.toUpperCase()) : `${local}@${domain}`,
      username: style < 0.5 ? `${f}${l[0]}${n % 1000}` : `${l}_${f}${n % 100}`,
      password,
      hashed_password: hashed,
      ip_address: ip,
      name: `${fn} ${ln}`,
      address: `${1 + Math.floor(r() * 999)} ${pick(words)} ${pick(['Street', 'Road', 'Avenue', 'Lane', 'Way'])}, ${pick(cities)}`,
      phone: `+${1 + Math.floor(r() * 98)} ${100 + Math.floor(r() * 900)} ${1000000 + Math.floor(r() * 9000000)}`,
      vin: `${hex(3).toUpperCase()}${Math.floor(r() * 1e13).toString(36).toUpperCase().padStart(9, '0')}${hex(5).toUpperCase()}`.slice(0, 17),
      license_plate: `${pick(['AB', 'XY', 'KL', 'MN'])}-${Math.floor(r() * 1000)}-${pick(['C', 'D', 'E'])}`,
      dob: `${1940 + Math.floor(r() * 65)}-${String(1 + Math.floor(r() * 12)).padStart(2, '0')}-${String(1 + Math.floor(r() * 28)).padStart(2, '0')}`,
      company: `${pick(words)} ${pick(['Inc', 'LLC', 'GmbH', 'Ltd', 'SA'])}`,
      url: `https://${pick(companyDomains)}/u/${f}${n}`,
      social: `@${f}${l}${n % 100}`,
    };
  };

  mkdirSync(join(out, 'sources'), { recursive: true });
  const nSources = 42;
  const weights = Array.from({ length: nSources }, () => 0.2 + r() * r() * 3);
  const pickSource = weighted(weights, r);
  const sources: (CorpusSource & { shapeDef: Shape; stream: WriteStream; buf: string[] })[] = [];
  for (let i = 0; i < nSources; i++) {
    const shapeDef = SHAPES[i % SHAPES.length] as Shape;
    const file = join(out, 'sources', `${String(i).padStart(2, '0')}-${shapeDef.name}.${shapeDef.ext}`);
    const stream = createWriteStream(file);
    const src = { file, well: `${faker.company.name().replace(/[^A-Za-z0-9 ]/g, '').trim()} ${2015 + (i % 10)}`, shape: shapeDef.name, records: 0, shapeDef, stream, buf: [] as string[] };
    if (shapeDef.header) src.buf.push(shapeDef.header.join(shapeDef.sep));
    sources.push(src);
  }
  const flatStream = flat ? createWriteStream(join(out, 'flat.tsv')) : undefined;
  let flatBuf: string[] = [];
  const recent = new Map<string, Rec[]>();
  let duplicates = 0;
  let bytes = 0;
  const flush = async (s: (typeof sources)[number]) => {
    const chunk = s.buf.join('\n') + '\n';
    s.buf = [];
    bytes += Buffer.byteLength(chunk);
    if (!s.stream.write(chunk)) await new Promise<void>((res) => s.stream.once('drain', () => res()));
  };
  const t0 = Date.now();
  for (let i = 0; i < records; i++) {
    const s = sources[pickSource()] as (typeof sources)[number];
    const shape = s.shapeDef;
    const pool = recent.get(shape.name) ?? [];
    let rec: Rec;
    if (pool.length > 100 && r() < 0.07) {
      rec = pool[Math.floor(r() * pool.length)] as Rec;
      duplicates++;
    } else {
      rec = makeRecord();
      if (pool.length < 5000) pool.push(rec);
      else pool[Math.floor(r() * pool.length)] = rec;
      recent.set(shape.name, pool);
    }
    const vals = shape.fields.map((f) => rec[f] ?? '');
    if (shape.ext === 'jsonl') {
      const o: Rec = {};
      shape.fields.forEach((f, k) => (o[f] = vals[k] as string));
      s.buf.push(JSON.stringify(o));
    } else if (shape.header) {
      s.buf.push(vals.map((v) => csvCell(v, shape.sep ?? ',')).join(shape.sep));
    } else {
      s.buf.push(vals.join(shape.sep));
    }
    s.records++;
    if (flatStream) {
      const present = new Set(shape.fields);
      flatBuf.push(FLAT_COLUMNS.map((c) => (c === 'source' ? String(sources.indexOf(s)) : present.has(c) ? (c === 'email' ? (rec[c] ?? '').toLowerCase() : (rec[c] ?? '')) : '')).join('\t'));
      if (flatBuf.length >= 5000) {
        if (!flatStream.write(flatBuf.join('\n') + '\n')) await new Promise<void>((res) => flatStream.once('drain', () => res()));
        flatBuf = [];
      }
    }
    if (s.buf.length >= 2000) await flush(s);
    if (i > 0 && i % 1_000_000 === 0) log(`corpus: ${i.toLocaleString('en-US')} records (${Math.round(i / ((Date.now() - t0) / 1000)).toLocaleString('en-US')}/s)`);
  }
  if (flatStream) {
    if (flatBuf.length) flatStream.write(flatBuf.join('\n') + '\n');
    await new Promise((res) => flatStream.end(res));
  }
  for (const s of sources) {
    if (s.buf.length) await flush(s);
    await new Promise((res) => s.stream.end(res));
  }
  const info: CorpusInfo = {
    records,
    seed,
    bytes,
    duplicates,
    sources: sources.filter((s) => s.records > 0).map(({ file, well, shape, records: n }) => ({ file, well, shape, records: n })),
  };
  writeFileSync(join(out, 'corpus.json'), JSON.stringify(info, null, 2));
  return info;
}

/** The shapes of `generateFormatFiles`: one file each, the same records in every one. */
export const INGEST_FORMATS = ['jsonl', 'json-array', 'csv', 'combo', 'stealer', 'mysql', 'pg'] as const;
export type IngestFormatName = (typeof INGEST_FORMATS)[number];

/** `s` as a MySQL string literal (mysqldump's escaping). */
function mysqlString(s: string): string {
  // eslint-disable-next-line no-control-regex -- mysqldump escapes NUL and ^Z
  return `'${s.replace(/[\\'"\0\n\r\x1a]/g, (c) => ({ '\\': '\\\\', "'": "\\'", '"': '\\"', '\0': '\\0', '\n': '\\n', '\r': '\\r', '\x1a': '\\Z' })[c] as string)}'`;
}

/**
 * The same `records` synthetic user rows written once per ingest format (INGEST_FORMATS)
 * under OUT: JSON lines, one JSON array, CSV, a combolist, a stealer log, a mysqldump with
 * extended INSERTs of 1,000 rows (a WordPress-like users table, phpass hashes for 1 row in
 * 4) and a pg_dump COPY block: what the benchmark's per-format ingest rows read.
 */
export async function generateFormatFiles(records: number, seed: number, out: string): Promise<{ format: IngestFormatName; file: string; records: number; bytes: number }[]> {
  const r = rng(seed ^ 0x2c1b3c6d);
  faker.seed(seed);
  const words = [...new Set(faker.definitions.lorem.word as string[])].filter((w) => /^[a-z]+$/.test(w));
  const pick = (xs: readonly string[]) => xs[Math.floor(r() * xs.length)] as string;
  const itoa64 = './0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
  const rows = (i: number) => {
    const user = `${pick(words)}${pick(words)}${i % 997}`;
    const hashed = i % 4 === 0;
    return {
      id: String(i + 1),
      user_login: user,
      user_email: `${user}@${pick(FREE_MAIL)}`,
      user_pass: hashed ? `$P$B${Array.from({ length: 30 }, () => itoa64[Math.floor(r() * 64)]).join('')}` : `${pick(words)}${Math.floor(r() * 10000)}`,
      display_name: `${pick(words)} ${pick(words)}`,
      user_ip: `${10 + Math.floor(r() * 200)}.${Math.floor(r() * 256)}.${Math.floor(r() * 256)}.${Math.floor(r() * 256)}`,
    };
  };
  mkdirSync(out, { recursive: true });
  const cols = ['id', 'user_login', 'user_email', 'user_pass', 'display_name', 'user_ip'] as const;
  const files = INGEST_FORMATS.map((format) => {
    const ext = { jsonl: 'jsonl', 'json-array': 'json', csv: 'csv', combo: 'txt', stealer: 'log', mysql: 'sql', pg: 'sql' }[format];
    return { format, file: join(out, `users-${format}.${ext}`), stream: createWriteStream(join(out, `users-${format}.${ext}`)), buf: [] as string[], bytes: 0 };
  });
  const put = async (f: (typeof files)[number], text: string, force = false) => {
    f.buf.push(text);
    if (f.buf.length >= 2000 || force) {
      const chunk = f.buf.join('');
      f.buf = [];
      f.bytes += Buffer.byteLength(chunk);
      if (!f.stream.write(chunk)) await new Promise<void>((res) => f.stream.once('drain', () => res()));
    }
  };
  const [jsonl, jarr, csv, combo, stealer, mysql, pgf] = files as [(typeof files)[number], (typeof files)[number], (typeof files)[number], (typeof files)[number], (typeof files)[number], (typeof files)[number], (typeof files)[number]];
  await put(jarr, '[\n');
  await put(csv, `${cols.join(',')}\n`);
  await put(mysql, `-- MySQL dump 10.13\n/*!40101 SET NAMES utf8mb4 */;\nDROP TABLE IF EXISTS \`wp_users\`;\nCREATE TABLE \`wp_users\` (\n${cols.map((c) => `  \`${c}\` varchar(255) NOT NULL DEFAULT ''`).join(',\n')},\n  PRIMARY KEY (\`id\`)\n) ENGINE=InnoDB;\nLOCK TABLES \`wp_users\` WRITE;\n`);
  await put(pgf, `--\n-- PostgreSQL database dump\n--\nSET standard_conforming_strings = on;\nCREATE TABLE public.wp_users (\n${cols.map((c) => `    ${c} text`).join(',\n')}\n);\nCOPY public.wp_users (${cols.join(', ')}) FROM stdin;\n`);
  for (let i = 0; i < records; i++) {
    const row = rows(i);
    const vals = cols.map((c) => row[c]);
    const json = JSON.stringify(row);
    await put(jsonl, `${json}\n`);
    await put(jarr, `${i > 0 ? ',\n' : ''}${json}`);
    await put(csv, `${vals.map((v) => csvCell(v, ',')).join(',')}\n`);
    await put(combo, `${row.user_email}:${row.user_pass}\n`);
    await put(stealer, `https://${pick(words)}.example.com:8443/login:${row.user_login}:${row.user_pass}\n`);
    await put(mysql, `${i % 1000 === 0 ? `${i > 0 ? ';\n' : ''}INSERT INTO \`wp_users\` VALUES ` : ','}(${vals.map((v, k) => (k === 0 ? v : mysqlString(v))).join(',')})`);
    await put(pgf, `${vals.join('\t')}\n`);
  }
  await put(jarr, '\n]\n', true);
  await put(mysql, `${records > 0 ? ';\n' : ''}UNLOCK TABLES;\n`, true);
  await put(pgf, '\\.\n', true);
  for (const f of [jsonl, csv, combo, stealer]) await put(f, '', true);
  await Promise.all(files.map((f) => new Promise((res) => f.stream.end(res))));
  return files.map((f) => ({ format: f.format, file: f.file, records, bytes: f.bytes }));
}

/** Runs the command on process.argv (the compiled command's entry, scripts/lib/corpus-launch.ts, calls it). */
export function runCli(): void {
  const { values } = parseArgs({
    options: { records: { type: 'string', default: '1000000' }, seed: { type: 'string', default: '1' }, out: { type: 'string', default: './data/corpus' }, formats: { type: 'boolean', default: false } },
  });
  const t0 = Date.now();
  if (values.formats) {
    generateFormatFiles(Number(values.records), Number(values.seed), values.out as string)
      .then((fs) => console.log(fs.map((f) => `${f.format}: ${f.file} (${(f.bytes / 1e6).toFixed(1)} MB)`).join('\n')))
      .catch((e: unknown) => {
        console.error(e);
        process.exit(1);
      });
  } else {
    generateCorpus(Number(values.records), Number(values.seed), values.out as string)
      .then((info) => console.log(`corpus: ${info.records.toLocaleString('en-US')} records, ${info.sources.length} sources, ${(info.bytes / 1e6).toFixed(1)} MB, ${info.duplicates} duplicates, in ${((Date.now() - t0) / 1000).toFixed(1)} s -> ${values.out}`))
      .catch((e: unknown) => {
        console.error(e);
        process.exit(1);
      });
  }
}

const isMain = process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;
if (isMain) runCli();
