/**
 * The newcomer's flow across processes: the server runs, an operator ingests a dump with
 * the CLI (another process, same database and index), and the running server serves the
 * new records and lists the new data well without a restart.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { eventually, startTestServer, type TestServer } from '../support/harness';
import { call } from '../support/helpers';
import { cliArgs } from '../../../scripts/lib/cli-command';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
let server: TestServer;
before(async () => {
  server = await startTestServer();
});
after(() => server.close());

test('a CLI ingest is served by the running server without a restart', { timeout: 120_000 }, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lw-ingest-flow-'));
  try {
    const csv = path.join(dir, 'dump.csv');
    fs.writeFileSync(csv, 'mail,user,pass\nnew.person@example.net,newperson,Sup3r\n=HYPERLINK("x"),evil,pw\n');
    const result = spawnSync(
      process.execPath,
      [...cliArgs('ingest'), '--well', 'Fresh Dump', '--date', '2026-11-01', '--description', 'A test dump', '--sensitive', csv],
      {
        cwd: ROOT,
        encoding: 'utf8',
        env: { ...process.env, DATABASE_URL: server.runtime.config.DATABASE_URL, INDEX_DIR: server.runtime.config.indexDir, DATA_DIR: dir },
      },
    );
    assert.equal(result.status, 0, result.stderr + result.stdout);

    const user = await server.createUser({ searchDays: 30, searchCredits: 500, apiKey: true });
    // The last reply is kept for the failure message: a refusal (429, 402) reads differently from a miss.
    let last: unknown;
    const found = await eventually(async () => {
      const reply = await call(server.url, 'POST', '/v2/search', { body: { query: 'email:new.person@example.net' }, headers: { [server.runtime.config.apiKeyHeader]: user.apiKey! } });
      last = { status: reply.status, body: reply.body };
      return reply.body.total === 1 ? reply.body : undefined;
    }, 30_000).catch((e: Error) => {
      throw new Error(`${e.message}; the last reply: ${JSON.stringify(last)}`);
    });
    assert.equal(found.entries[0].database_name, 'Fresh Dump');
    assert.deepEqual(found.entries[0].username, ['newperson']);

    const wells = await call(server.url, 'GET', '/datawells?page=1&count=20');
    const well = wells.body.data_wells.find((w: { name: string }) => w.name === 'Fresh Dump');
    assert.ok(well, 'the data well is in the catalogue');
    assert.equal(well.records, 2);
    assert.equal(well.date, '2026-11-01');
    assert.equal(well.description, 'A test dump');
    assert.equal(well.is_sensitive, true);
    assert.match(well.data, /email/);
    assert.match(well.data, /password/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
