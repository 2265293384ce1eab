/**
 * Backup and restore (server/src/backup): `npm run admin -- backup` against a running
 * server under search traffic and a concurrent ingest, `restore` into a fresh database and
 * index folder, a second server on the restored data: same accounts, credit ledger,
 * monitoring tasks, catalogue and search totals; the same API key and password still work.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { createTestDatabase, startTestServer, type TestServer } from '../support/harness';
import { callV2, type Reply } from '../support/helpers';
import { cliArgs } from '../../../scripts/lib/cli-command';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

function admin(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...cliArgs('admin'), ...args], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

async function tableCounts(url: string): Promise<Record<string, number>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const out: Record<string, number> = {};
    for (const table of ['users', 'credit_ledger', 'monitor_tasks', 'data_wells', 'sessions', 'products']) {
      out[table] = Number((await client.query(`select count(*) as n from ${table}`)).rows[0].n);
    }
    out.credits = Number((await client.query('select coalesce(sum(search_credits), 0) as n from users')).rows[0].n);
    out.records = Number((await client.query('select coalesce(sum(records), 0) as n from data_wells')).rows[0].n);
    return out;
  } finally {
    await client.end();
  }
}

let server: TestServer;
let restored: TestServer | undefined;
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'lw-backup-'));
const targetIndex = path.join(scratch, 'restored-index');
let target: Awaited<ReturnType<typeof createTestDatabase>>;

before(async () => {
  server = await startTestServer({ env: { API_RATE_PER_SECOND: '1000', API_RATE_BURST: '1000' } });
  target = await createTestDatabase();
});

after(async () => {
  await restored?.close();
  await server.close();
  await target.drop();
  fs.rmSync(scratch, { recursive: true, force: true });
});

test('a backup taken under search traffic and an ingest restores to the same counts, records and credentials', async () => {
  const users = [];
  for (let i = 0; i < 3; i++) users.push(await server.createUser({ searchDays: 30, searchCredits: 1000 + i, apiKey: true }));
  const db = server.runtime.db;
  await db.insertInto('monitor_tasks').values(users.map((u, i) => ({ user_id: u.id, kind: 'email' as const, value: `watch${i}@example.com`, match_value: `watch${i}@example.com` }))).execute();
  await server.ingest('Backup Alpha', Array.from({ length: 200 }, (_, i) => ({ email: `alpha${i}@backup.example`, password: `pw${i}` })));
  await server.ingest('Backup Beta', Array.from({ length: 50 }, (_, i) => ({ email: `beta${i}@backup.example`, username: `beta${i}` })));
  await server.login(users[0]!.email);
  // An opt-out: its suppression and key travel with the index, or a restore would bring the address back.
  await server.runtime.engine.suppress('beta3@backup.example');

  // Search traffic (charging credits: the credit ledger moves) during the backup, and an ingest.
  let stop = false;
  let searches = 0;
  const traffic = Promise.all(
    users.map(async (user) => {
      while (!stop) {
        const reply = await callV2(server, user.apiKey, { query: 'email:"alpha7@backup.example"' });
        assert.equal(reply.status, 200, JSON.stringify(reply.body));
        searches++;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }),
  );
  const out = path.join(scratch, 'backup');
  const env = { DATABASE_URL: server.runtime.config.DATABASE_URL!, INDEX_DIR: server.runtime.config.indexDir, DATA_DIR: server.runtime.config.dataDir };
  const concurrentIngest = server.ingest('Backup Gamma', Array.from({ length: 30 }, (_, i) => ({ email: `gamma${i}@backup.example` })));
  const backup = await admin(['backup', '--out', out, '--json', '--operator', 'backup-test'], env);
  await concurrentIngest;
  stop = true;
  await traffic;
  assert.equal(backup.code, 0, backup.stderr);
  assert.ok(searches > 0);
  const manifest = JSON.parse(backup.stdout);
  assert.equal(manifest.counts.accounts, 3);
  assert.equal(manifest.counts.monitor_tasks, 3);
  assert.ok(manifest.index.segments >= 2);
  assert.ok(manifest.index.linked_files > 0, 'segments are hard-linked');
  // The snapshot holds the concurrent ingest whole or not at all, in the index and the catalogue alike.
  assert.ok([2, 3].includes(manifest.counts.data_wells), String(manifest.counts.data_wells));
  assert.equal(manifest.index.records, manifest.counts.catalogue_records);
  assert.deepEqual(manifest.index.uncatalogued_segments, []);
  const audit = await db.selectFrom('audit_log').selectAll().where('action', '=', 'backup').execute();
  assert.equal(audit.length, 1);
  assert.equal(audit[0]!.operator, 'backup-test');

  // Refusals: an existing backup folder, a non-empty target, a folder that is no backup.
  const again = await admin(['backup', '--out', out], env);
  assert.equal(again.code, 1);
  assert.match(again.stderr, /is not empty/);
  const busy = await admin(['restore', '--from', out], env);
  assert.equal(busy.code, 1);
  assert.match(busy.stderr, /not empty/);
  const notBackup = await admin(['restore', '--from', scratch], { DATABASE_URL: target.url, INDEX_DIR: targetIndex, DATA_DIR: path.join(scratch, 'data2') });
  assert.equal(notBackup.code, 1);
  assert.match(notBackup.stderr, /no complete backup/);

  const restore = await admin(['restore', '--from', out, '--json'], { DATABASE_URL: target.url, INDEX_DIR: targetIndex, DATA_DIR: path.join(scratch, 'data2') });
  assert.equal(restore.code, 0, restore.stderr);
  assert.deepEqual(JSON.parse(restore.stdout).restored, manifest.counts);

  const expected = await tableCounts(server.runtime.config.DATABASE_URL!);
  const got = await tableCounts(target.url);
  assert.equal(got.users, expected.users);
  assert.equal(got.monitor_tasks, expected.monitor_tasks);
  assert.equal(got.sessions, expected.sessions);
  assert.equal(got.products, expected.products);
  assert.equal(got.credit_ledger, manifest.counts.credit_ledger);
  assert.equal(got.records, manifest.counts.catalogue_records);

  // A server on the restored data: the same key searches the same records, the password signs in.
  restored = await startTestServer({ env: { DATABASE_URL: target.url, INDEX_DIR: targetIndex } });
  for (const query of ['email:"alpha7@backup.example"', 'email:*@backup.example', 'username:beta*']) {
    const original: Reply = await callV2(server, users[1]!.apiKey, { query, size: 1 });
    const copy: Reply = await callV2(restored!, users[1]!.apiKey, { query, size: 1 });
    assert.equal(copy.status, 200, JSON.stringify(copy.body));
    const gammaIn = manifest.counts.data_wells === 3 ? 0 : 30;
    const expectedTotal: number = query === 'email:*@backup.example' ? original.body.total - gammaIn : original.body.total;
    assert.equal(copy.body.total, expectedTotal, query);
  }
  assert.equal((await restored.login(users[2]!.email)).status, 200);
  // The opt-out holds on the restored index, for a well ingested there later too.
  assert.equal((await callV2(restored!, users[1]!.apiKey, { query: 'email:"beta3@backup.example"' })).body.total, 0);
  await restored.ingest('After Restore', [{ email: 'BETA3@backup.example', password: 'after-restore' }, { email: 'new@backup.example' }]);
  assert.equal((await callV2(restored!, users[1]!.apiKey, { query: 'email:"beta3@backup.example"' })).body.total, 0);
  assert.equal((await callV2(restored!, users[1]!.apiKey, { query: 'email:"new@backup.example"' })).body.total, 1);
  assert.equal(fs.statSync(path.join(targetIndex, 'suppression.key')).mode & 0o777, 0o600);
  const restoredEntries = await restored.runtime.db.selectFrom('audit_log').select(['action', 'operator']).orderBy('id').execute();
  assert.deepEqual(restoredEntries.at(-1), { action: 'restore', operator: os.userInfo().username });
  // New rows continue after the restored ones (sequences were moved past them).
  await restored.createUser({ searchCredits: 5 });
});
