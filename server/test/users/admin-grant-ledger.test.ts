/**
 * `npm run admin -- user:create / user:grant`: every credit the operator
 * adds is a credit_ledger row (reason admin-grant), written in the same transaction as the
 * balance, so the ledger of an account sums to its balances.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { createTestDatabase, TEST_PASSWORD } from '../support/harness';
import { cliArgs } from '../../../scripts/lib/cli-command';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
let database: { url: string; drop(): Promise<void> };
let dataDir: string;

before(async () => {
  database = await createTestDatabase();
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lw-admin-grant-'));
});
after(async () => {
  await database.drop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

function admin(...args: string[]) {
  const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root', DATA_DIR: dataDir, DATABASE_URL: database.url };
  return spawnSync(process.execPath, [...cliArgs('admin'), ...args], { cwd: ROOT, env, encoding: 'utf8' });
}

test('user:create and user:grant credit through the ledger: its rows sum to the balances', { timeout: 120_000 }, async () => {
  const email = 'granted@example.com';
  const created = admin('user:create', '--email', email, '--password', TEST_PASSWORD, '--verified', '--search-credits', '2', '--json');
  assert.equal(created.status, 0, created.stderr);
  const { id } = JSON.parse(created.stdout) as { id: string };
  const granted = admin('user:grant', '--email', email, '--search-credits', '5', '--whois-credits', '3', '--json');
  assert.equal(granted.status, 0, granted.stderr);
  const again = admin('user:grant', '--email', email, '--search-credits', '5');
  assert.equal(again.status, 0, again.stderr);

  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    const user = (await client.query('select search_credits, whois_credits from users where id = $1', [id])).rows[0];
    assert.deepEqual(user, { search_credits: 12, whois_credits: 3 });
    const ledger = (
      await client.query<{ kind: string; delta: number; balance_after: number; reason: string; reference: string | null }>(
        'select kind, delta, balance_after, reason, reference from credit_ledger where user_id = $1 order by id',
        [id],
      )
    ).rows;
    const sum = (kind: string) => ledger.filter((row) => row.kind === kind).reduce((n, row) => n + row.delta, 0);
    assert.equal(sum('search'), user.search_credits, 'search ledger sums to the balance');
    assert.equal(sum('whois'), user.whois_credits, 'whois ledger sums to the balance');
    assert.deepEqual(
      ledger.map((row) => [row.kind, row.delta, row.balance_after, row.reason]),
      [
        ['search', 2, 2, 'admin-grant'],
        ['search', 5, 7, 'admin-grant'],
        ['whois', 3, 3, 'admin-grant'],
        ['search', 5, 12, 'admin-grant'],
      ],
    );
    assert.equal(new Set(ledger.map((row) => row.reference)).size, ledger.length, 'each grant has a reference of its own');
  } finally {
    await client.end();
  }
});
