/**
 * `npm run ingest -- --samples`, the built command as an operator runs it, into a temporary
 * index and a fresh database: every well of samples/breaches/wells.json lands in the
 * catalogue with its date, records and data types, the stealer log is marked one by the
 * ingest, the searches samples/breaches/README.md suggests find what it says, and a second
 * run ingests nothing. Also without the catalogue, and the usage errors.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { openEngine } from '../../engine/index';
import { createTestDatabase } from '../../server/test/support/harness';
import { cliArgs } from '../lib/cli-command';
import { publishedSegments } from '../ingest';
import { readSampleWells } from '../lib/ingest-samples';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const SAMPLES = path.join(ROOT, 'samples', 'breaches');
const WELLS = readSampleWells(SAMPLES);

/** What each sample file holds (its records and the fields they have). */
const EXPECTED: Record<string, { records: number; types: string[] }> = {
  'Pixelboard Forum': { records: 120, types: ['email', 'hashed_password', 'ip_address', 'username'] },
  'Bramble Books': { records: 100, types: ['address', 'email', 'name', 'password', 'phone'] },
  Quillmate: { records: 150, types: ['dob', 'email', 'hashed_password', 'ip_address', 'username'] },
  'Tidewater Fitness': { records: 80, types: ['address', 'dob', 'email', 'name', 'phone'] },
  'Harbor Combolist': { records: 200, types: ['email', 'password'] },
  'Lumen Dating': { records: 80, types: ['dob', 'email', 'hashed_password', 'ip_address', 'name', 'username'] },
  'Cobalt Cloud': { records: 100, types: ['company', 'email', 'hashed_password', 'ip_address', 'name'] },
  'Nightjar Stealer Logs': { records: 192, types: ['email', 'password', 'url', 'username'] },
  'Orbit Rides': { records: 60, types: ['address', 'email', 'license_plate', 'name', 'phone'] },
  'Unsorted Paste': { records: 60, types: ['email', 'password', 'username'] },
};

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'lw-ingest-samples-'));
let database: { url: string; drop(): Promise<void> };

function ingest(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const run = spawnSync(process.execPath, cliArgs('ingest', args), {
    encoding: 'utf8',
    env: { ...process.env, DATABASE_URL: database.url, DATA_DIR: scratch, INDEX_DIR: path.join(scratch, 'unused-index') },
    timeout: 300_000,
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

async function query<T>(text: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    return (await client.query(text)).rows as T[];
  } finally {
    await client.end();
  }
}

interface WellRow {
  name: string;
  date: string | null;
  description: string;
  records: number;
  data_types: string[];
  is_sensitive: boolean;
  is_stealer_log: boolean;
}
const catalogue = () =>
  query<WellRow>("select name, to_char(date, 'YYYY-MM-DD') as date, description, records::int, data_types, is_sensitive, is_stealer_log from data_wells order by name");

/** The README's "What to search for" rows: the search, its number of wells, the wells it names. */
function documentedSearches(): { search: string; wells: number; names: string[] }[] {
  const readme = fs.readFileSync(path.join(SAMPLES, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## What to search for'));
  return [...section.matchAll(/^\| `([^`]+)` \| (\d+) \| (.*) \|$/gm)].map(([, search, wells, which]) => {
    const named = WELLS.map((w) => w.name).filter((name) => which!.includes(name));
    return { search: search!, wells: Number(wells), names: named.length > 0 ? named : WELLS.map((w) => w.name) };
  });
}

before(async () => {
  database = await createTestDatabase();
});
after(async () => {
  await database?.drop();
  fs.rmSync(scratch, { recursive: true, force: true });
});

test('the manifest names every sample file once, and every file is in it', () => {
  const files = fs.readdirSync(SAMPLES).filter((f) => f !== 'wells.json' && f !== 'README.md').sort();
  assert.deepEqual(WELLS.map((w) => w.file).sort(), files);
  assert.deepEqual(WELLS.map((w) => w.name).sort(), Object.keys(EXPECTED).sort());
  const size = files.reduce((n, f) => n + fs.statSync(path.join(SAMPLES, f)).size, 0);
  assert.ok(size < 200_000, `the samples stay small: ${size} bytes`);
});

test('--samples refuses a FILE, a --well and the options of one well', () => {
  for (const args of [['--samples', path.join(SAMPLES, 'harbor-combolist-2018.txt')], ['--samples', '--well', 'X'], ['--samples', '--date', '2020-01-01']]) {
    const run = ingest(args);
    assert.equal(run.status, 2, `${args.join(' ')}: ${run.stderr}`);
    assert.match(run.stderr, /^ingest: --samples takes no (FILE|--well|--date): /m);
    assert.match(run.stderr, /npm run ingest -- --samples \[--index-dir DIR\] \[--no-catalogue\]/, 'the usage lists --samples');
  }
});

describe('into an index and its catalogue', { concurrency: false }, () => {
  const indexDir = path.join(scratch, 'index');

  test('every sample well, with its date, records, data types and flags', async () => {
    const run = ingest(['--samples', '--index-dir', indexDir]);
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /^samples: 10 wells ingested \(1,142 records\), 0 already there$/m);
    assert.match(run.stdout, /^Unsorted Paste \(no date\): 60 records, combo; /m);
    const rows = await catalogue();
    assert.deepEqual(
      rows,
      WELLS.map((w) => ({
        name: w.name,
        date: w.date,
        description: w.description,
        records: EXPECTED[w.name]!.records,
        data_types: EXPECTED[w.name]!.types,
        is_sensitive: w.sensitive,
        is_stealer_log: w.name === 'Nightjar Stealer Logs',
      })).sort((a, b) => (a.name < b.name ? -1 : 1)),
    );
    assert.equal(rows.find((r) => r.name === 'Unsorted Paste')?.date, null, 'the undated well has no date');
    assert.deepEqual(rows.filter((r) => r.is_sensitive).map((r) => r.name), ['Lumen Dating']);
    assert.equal(new Set(WELLS.filter((w) => w.date).map((w) => w.date!.slice(0, 4))).size, 8, 'two wells share a year');
  });

  test("the README's searches find the wells it names", async () => {
    const searches = documentedSearches();
    assert.ok(searches.some((s) => s.search === 'alice@example.com' && s.wells >= 3), 'the README documents a recurring address');
    const engine = await openEngine(indexDir);
    try {
      for (const s of searches) {
        const found = await engine.wellCounts({ query: s.search });
        const wells = found.wells.map((w) => w.well).sort();
        assert.equal(wells.length, s.wells, `${s.search}: ${wells.join(', ')}`);
        assert.deepEqual(wells, [...s.names].sort(), s.search);
      }
    } finally {
      await engine.close();
    }
  });

  test('a second run ingests nothing', async () => {
    const before = { rows: await catalogue(), segments: publishedSegments(indexDir).length };
    const run = ingest(['--samples', '--index-dir', indexDir]);
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /^samples: 0 wells ingested \(0 records\), 10 already there$/m);
    assert.match(run.stdout, /^Quillmate: skipped, the catalogue or the index has a well of that name already$/m);
    assert.deepEqual({ rows: await catalogue(), segments: publishedSegments(indexDir).length }, before);
  });
});

test('without the catalogue, the index tells which wells are there', async () => {
  const indexDir = path.join(scratch, 'index-alone');
  const first = ingest(['--samples', '--index-dir', indexDir, '--no-catalogue']);
  assert.equal(first.status, 0, first.stderr);
  assert.match(first.stdout, /^samples: 10 wells ingested \(1,142 records\), 0 already there$/m);
  const second = ingest(['--samples', '--index-dir', indexDir, '--no-catalogue']);
  assert.equal(second.status, 0, second.stderr);
  assert.match(second.stdout, /^samples: 0 wells ingested \(0 records\), 10 already there$/m);
  assert.match(second.stdout, /^Orbit Rides: skipped, the index has a well of that name already$/m);
  assert.deepEqual(publishedSegments(indexDir).map((s) => s.well).sort(), WELLS.map((w) => w.name).sort());
});
