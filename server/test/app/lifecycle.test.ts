/**
 * The process as `npm start` runs it, on the embedded defaults: embedded PostgreSQL under
 * DATA_DIR, jobs on PostgreSQL, mail to the outbox. SIGTERM stops it cleanly and a restart
 * keeps the data. The operator CLI works while it runs and after it stopped.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { packLogin } from '../../src/common/obfuscation';
import { TEST_PASSWORD } from '../support/harness';
import { freePort } from '../support/ports';
import { cliArgs } from '../../../scripts/lib/cli-command';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lw-lifecycle-'));
fs.chmodSync(dataDir, 0o755);

const ports = { http: await freePort(), pg: await freePort() };
// The embedded defaults: nothing external configured.
const env = {
  PATH: process.env.PATH ?? '',
  HOME: process.env.HOME ?? '/root',
  DATA_DIR: dataDir,
  PORT: String(ports.http),
  EMBEDDED_PG_PORT: String(ports.pg),
};

function startServer(): Promise<{ child: ChildProcess; output: () => string }> {
  const child = spawn(process.execPath, cliArgs('server'), { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), 60_000);
    const check = () => {
      if (output.includes('is running at http://localhost:')) {
        clearTimeout(timer);
        resolve({ child, output: () => output });
      }
    };
    child.stdout!.on('data', check);
    child.on('exit', (code) => reject(new Error(`server exited with ${code}:\n${output}`)));
  });
}

function stop(child: ChildProcess, signal: NodeJS.Signals): Promise<number | null> {
  return new Promise((resolve) => {
    child.removeAllListeners('exit');
    child.on('exit', (code) => resolve(code));
    child.kill(signal);
  });
}

function admin(...args: string[]) {
  return spawnSync(process.execPath, [...cliArgs('admin'), ...args], { cwd: ROOT, env, encoding: 'utf8' });
}

async function login(email: string) {
  const response = await fetch(`http://127.0.0.1:${ports.http}/authentication/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(packLogin({ email, password: TEST_PASSWORD, remember: true })),
  });
  return response.status;
}

after(() => fs.rmSync(dataDir, { recursive: true, force: true }));

test('embedded start, operator CLI while running, graceful stop, restart keeps the account', { timeout: 180_000 }, async () => {
  const first = await startServer();
  assert.match(first.output(), /PostgreSQL: embedded/);
  assert.match(first.output(), /jobs: PostgreSQL/);

  const created = admin('user:create', '--email', 'owner@example.com', '--password', TEST_PASSWORD, '--verified', '--search-days', '7', '--json');
  assert.equal(created.status, 0, created.stderr);
  assert.equal(JSON.parse(created.stdout).email, 'owner@example.com');
  assert.equal(await login('owner@example.com'), 200);

  assert.equal(await stop(first.child, 'SIGTERM'), 0, 'SIGTERM shuts down with exit 0');
  assert.ok(!fs.existsSync(path.join(dataDir, 'postgres', 'postmaster.pid')), 'embedded PostgreSQL stopped cleanly');

  // With the server stopped, the CLI starts the embedded database itself.
  const granted = admin('user:grant', '--email', 'owner@example.com', '--whois-credits', '3', '--json');
  assert.equal(granted.status, 0, granted.stderr);

  const second = await startServer();
  try {
    assert.equal(await login('owner@example.com'), 200, 'the account survived the restart');
    const logs = second.output();
    assert.ok(!logs.includes(TEST_PASSWORD));
  } finally {
    assert.equal(await stop(second.child, 'SIGINT'), 0, 'SIGINT shuts down with exit 0');
  }
  assert.equal(admin('user:create', '--email', 'bad').status, 2, 'bad usage exits 2');
});
