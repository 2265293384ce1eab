/**
 * `npm run admin -- index:upgrade` through the real operator CLI (a process of its own): a
 * format 6 index (engine/test/fixtures/format6) is rewritten in the current format, each
 * segment reported with its formats and records and the run recorded in the audit log; a
 * second run says there is nothing to do and records nothing; an index older than the
 * engine reads (fixtures/format5) is refused with what to do, exit 1. The answers' equality
 * is engine/test/upgrade.test.ts's.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { createTestDatabase } from '../support/harness';
import { cliArgs } from '../../../scripts/lib/cli-command';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const FIXTURES = path.join(ROOT, 'engine', 'test', 'fixtures');

describe('index:upgrade', { timeout: 120_000 }, () => {
  let databaseUrl: string;
  let scratch: string;
  const cleanups: (() => Promise<unknown>)[] = [];

  before(async () => {
    const database = await createTestDatabase();
    cleanups.push(database.drop);
    databaseUrl = database.url;
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'lw-test-upgrade-'));
    cleanups.push(async () => fs.rmSync(scratch, { recursive: true, force: true }));
  });
  after(async () => {
    for (const c of cleanups.reverse()) await c();
  });

  function admin(...args: string[]): Promise<{ code: number | null; out: string; err: string }> {
    const child = spawn(process.execPath, cliArgs('admin', [...args, '--operator', 'upgrade-test']), {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NODE_ENV: 'test', DATABASE_URL: databaseUrl, DATA_DIR: scratch },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
    return new Promise((resolve) => child.once('exit', (code) => resolve({ code, out, err })));
  }

  async function auditRows(): Promise<{ operator: string; target: string | null; details: { format: number; upgraded: { fromFormat: number; toFormat: number; records: number }[] } }[]> {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      return (await client.query(`SELECT operator, target, details FROM audit_log WHERE action = 'index:upgrade' ORDER BY id`)).rows;
    } finally {
      await client.end();
    }
  }

  const copyIndex = (name: string) => {
    const index = path.join(scratch, name);
    fs.cpSync(path.join(FIXTURES, name, 'index'), index, { recursive: true });
    return index;
  };

  test('upgrades a format 6 index, reports each segment, records the run; a second run does nothing', async () => {
    const index = copyIndex('format6');
    const first = await admin('index:upgrade', '--index-dir', index);
    assert.equal(first.code, 0, first.err);
    assert.match(first.out, /^0mwu9jz0hmaywz: format 6 -> 12 as \w+, 404 records$/m);
    assert.match(first.out, /^Upgraded 1 segment\(s\) to format 12 in [\d.]+ s; 1 segment\(s\) in the index\.$/m);
    const manifest = JSON.parse(fs.readFileSync(path.join(index, "MANIFEST"), "utf8")) as { format_version: number };
    assert.equal(manifest.format_version, 12);
    const rows = await auditRows();
    assert.equal(rows.length, 1);
    assert.equal(rows[0]!.operator, 'upgrade-test');
    assert.equal(rows[0]!.target, index);
    assert.equal(rows[0]!.details.format, 12);
    assert.deepEqual(rows[0]!.details.upgraded.map((u) => [u.fromFormat, u.toFormat, u.records]), [[6, 12, 404]]);

    const second = await admin('index:upgrade', '--index-dir', index, '--json');
    assert.equal(second.code, 0, second.err);
    const result = JSON.parse(second.out) as { upgraded: unknown[]; format: number; segments: number };
    assert.deepEqual([result.upgraded, result.format, result.segments], [[], 12, 1]);
    const third = await admin('index:upgrade', '--index-dir', index);
    assert.match(third.out, /^Every segment is in format 12 already: nothing to upgrade \(1 segment\)\.$/m);
    assert.equal((await auditRows()).length, 1, 'a run that changed nothing is not recorded');
  });

  test('refuses an index older than the engine reads, naming what to do', async () => {
    const index = copyIndex('format5');
    const r = await admin('index:upgrade', '--index-dir', index);
    assert.equal(r.code, 1);
    assert.match(r.err, /index format 5, which this engine no longer reads \(it reads formats 6 to 12\): re-ingest its data/);
    assert.equal((JSON.parse(fs.readFileSync(path.join(index, 'MANIFEST'), 'utf8')) as { format_version: number }).format_version, 5);
  });
});
