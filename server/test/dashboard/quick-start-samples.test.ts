/**
 * The Quick Start's samples run as pasted: the generator the page uses
 * (web/src/features/docs/lib/quick-start-samples.ts) renders them for a test server and a
 * subscribed user's real key; Node.js always, Python when python3 is here (its sample uses
 * only the standard library). Each must print the total of a search over ingested records.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { quickStartSample } from '../../../web/src/features/docs/lib/quick-start-samples';
import { startTestServer, type TestServer } from '../support/harness';

const run = promisify(execFile);

function hasPython(): boolean {
  try {
    execFileSync('python3', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

describe('Quick Start samples', () => {
  let server: TestServer;
  let key: string;
  let dir: string;

  before(async () => {
    // Trusted proxy: each run counts against its own address, not the suite's.
    server = await startTestServer({ env: { TRUSTED_PROXIES: '127.0.0.1' } });
    // The samples search email:"name@example.com": two sources hold it.
    await server.ingest('Quick Start Well', [{ email: 'name@example.com', username: 'quick_start_user' }]);
    await server.ingest('Quick Start Other', [{ email: 'Name@Example.com', username: 'quick_start_other' }]);
    const user = await server.createUser({ searchDays: 30, searchCredits: 5, apiKey: true });
    key = user.apiKey!;
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lw-quick-start-'));
  });
  after(async () => {
    fs.rmSync(dir, { recursive: true, force: true });
    await server.close();
  });

  const sample = (language: 'nodejs' | 'python') =>
    quickStartSample(language, { baseUrl: server.url, header: server.runtime.config.apiKeyHeader, key });

  test('the Node.js sample prints the total', async () => {
    const file = path.join(dir, 'search.mjs');
    fs.writeFileSync(file, sample('nodejs'));
    const { stdout } = await run(process.execPath, [file], { timeout: 30_000 });
    assert.match(stdout, /^Total: 2 \(took \S+, 4 credits left\)$/m, stdout);
    assert.match(stdout, /Quick Start Well \[ 'name@example\.com' \] \[ 'quick_start_user' \]/);
  });

  test('the Python sample prints the total', { skip: hasPython() ? false : 'python3 is not installed' }, async () => {
    const file = path.join(dir, 'search.py');
    fs.writeFileSync(file, sample('python'));
    const { stdout } = await run('python3', [file], { timeout: 30_000 });
    assert.match(stdout, /^Total: 2 \(took \S+, 3 credits left\)$/m, stdout);
    assert.match(stdout, /Quick Start Well \['name@example\.com'\] \['quick_start_user'\]/);
  });

  test('a wrong key is reported with the server\'s error, not a stack trace', async () => {
    const file = path.join(dir, 'wrong.mjs');
    fs.writeFileSync(file, quickStartSample('nodejs', { baseUrl: server.url, header: server.runtime.config.apiKeyHeader, key: '0'.repeat(48) }));
    await assert.rejects(run(process.execPath, [file], { timeout: 30_000 }), (error: { code?: number; stderr?: string }) => {
      assert.equal(error.code, 1);
      assert.match(error.stderr ?? '', /^400: /);
      return true;
    });
  });
});
