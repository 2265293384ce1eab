// The operator CLI end to end: `npm run ingest` publishes a segment, records the data well
// in the catalogue (PostgreSQL), replays a catalogue update lost by an earlier run, and a
// running engine serves the new segment without a restart.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { createTestDatabase, stopTestDatabaseServer } from '../../server/test/support/harness';
import { openEngine } from '../index';
import { tempDir } from './helpers';
import { cliArgs } from '../../scripts/lib/cli-command';

const root = fileURLToPath(new URL('../..', import.meta.url));
let dir: string;
let cleanup: () => void;
let db: { url: string; drop(): Promise<void> };

before(async () => {
  ({ dir, cleanup } = tempDir('engine-cli-'));
  db = await createTestDatabase();
});

after(async () => {
  await db?.drop();
  await stopTestDatabaseServer();
  cleanup?.();
});

function ingest(args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...cliArgs('ingest'), '--index-dir', join(dir, 'index'), ...args], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: db.url },
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('exit', (code) => resolve({ code, out, err }));
  });
}

test('npm run ingest publishes a segment and records the data well in the catalogue', async () => {
  writeFileSync(join(dir, 'users.csv'), 'email,user,pass,phone_number\na@x.com,alpha,pw1,+1 555 0100\nb@x.com,beta,pw2,\nbad,row\n');
  writeFileSync(join(dir, 'combo.txt'), 'c@y.org:hunter2\n');
  const engine = await openEngine(join(dir, 'index'));
  try {
    const r = await ingest(['--well', 'CLI Well', '--date', '2024-02-03', '--description', 'A test dump', '--sensitive', join(dir, 'users.csv'), join(dir, 'combo.txt')]);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /records: +3 /);
    assert.match(r.out, /bad lines: +1 \(report: .*bad-lines\.txt\)/);
    assert.match(r.err, /ingest: 100% 3 records/, 'plain progress lines when not on a terminal');
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    try {
      const row = (await c.query("select name, to_char(date, 'YYYY-MM-DD') as date, records, description, data_types, is_sensitive from data_wells where name = 'CLI Well'")).rows[0];
      assert.deepEqual(row, { name: 'CLI Well', date: '2024-02-03', records: 3, description: 'A test dump', data_types: ['email', 'password', 'phone', 'username'], is_sensitive: true });
      // A run that lost its catalogue update (here: skipped on purpose) is repaired by the next run.
      writeFileSync(join(dir, 'more.txt'), 'd@z.net:pw\n');
      assert.equal((await ingest(['--well', 'Lost Well', '--no-catalogue', join(dir, 'more.txt')])).code, 0);
      assert.equal((await c.query("select count(*)::int as n from data_wells where name = 'Lost Well'")).rows[0].n, 0);
      assert.equal((await ingest(['--well', 'CLI Well', join(dir, 'combo.txt')])).code, 0);
      const wells = (await c.query('select name, records from data_wells order by name')).rows;
      assert.deepEqual(wells, [{ name: 'CLI Well', records: 4 }, { name: 'Lost Well', records: 1 }]);
    } finally {
      await c.end();
    }
    await new Promise((res) => setTimeout(res, 1100));
    const s = await engine.search({ query: 'email:d@z.net' });
    assert.equal(s.total, 1, 'the running engine serves the new segments without a restart');
    assert.equal(s.entries[0]?.database_name, 'Lost Well');
  } finally {
    await engine.close();
  }
});

test('npm run ingest refuses bad arguments with the usage text', async () => {
  const r = await ingest(['--format', 'xml', '--well', 'X', join(dir, 'combo.txt')]);
  assert.equal(r.code, 2);
  assert.match(r.err, /--format must be auto, jsonl, json-array, csv, combo or sql/);
  assert.match(r.err, /usage: npm run ingest/);
});
