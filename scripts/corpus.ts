// Seeded generator of realistic, synthetic breach records (benchmark.md, "Corpus").
//
//   npm run corpus -- --records N --seed S --out DIR
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

const isMain = process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;
if (isMain) {
  const { values } = parseArgs({
    options: { records: { type: 'string', default: '1000000' }, seed: { type: 'string', default: '1' }, out: { type: 'string', default: './data/corpus' } },
  });
  const t0 = Date.now();
  generateCorpus(Number(values.records), Number(values.seed), values.out as string)
    .then((info) => console.log(`corpus: ${info.records.toLocaleString('en-US')} records, ${info.sources.length} sources, ${(info.bytes / 1e6).toFixed(1)} MB, ${info.duplicates} duplicates, in ${((Date.now() - t0) / 1000).toFixed(1)} s -> ${values.out}`))
    .catch((e: unknown) => {
      console.error(e);
      process.exit(1);
    });
}
