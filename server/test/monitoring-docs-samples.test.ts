/**
 * The monitoring documentation's samples run as pasted (web/src/features/monitoring-docs):
 * - the webhook receivers (Node.js always, Python when python3 is here, Go when go is
 *   here) accept a delivery signed by an independent Standard Webhooks signer
 *   (`standardwebhooks`) and by the page's own shell signer (openssl + curl), and refuse
 *   a changed body, a wrong secret, an old timestamp and a missing header; a retry with the
 *   same webhook-id is handled once.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Webhook } from 'standardwebhooks';
import { webhookSample } from '../../web/src/features/monitoring-docs/lib/webhook-samples';

const run = promisify(execFile);

function has(command: string, args: string[]): boolean {
  try {
    execFileSync(command, args, { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
const HAS_PYTHON = has('python3', ['--version']);
const HAS_GO = has('go', ['version']);
const HAS_OPENSSL = has('openssl', ['version']) && has('curl', ['--version']);

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

interface Receiver {
  url: string;
  output(): string;
  stop(): Promise<void>;
}

/** Starts a sample receiver program and waits until it answers. */
async function startReceiver(command: string, args: string[], secret: string, cwd: string): Promise<Receiver> {
  const port = await freePort();
  const child: ChildProcess = spawn(command, args, {
    cwd,
    env: { ...process.env, WEBHOOK_SECRET: secret, PORT: String(port), GOFLAGS: '-mod=mod' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const url = `http://127.0.0.1:${port}/`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      await fetch(url, { method: 'POST', body: '{}' });
      break;
    } catch {
      if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the receiver did not start: ${err}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  return {
    url,
    output: () => out,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill();
      }),
  };
}

const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

/** Posts a delivery signed by the reference library. */
async function deliver(
  url: string,
  secret: string,
  { id, body, at = new Date(), tamper, drop }: { id: string; body: string; at?: Date; tamper?: string; drop?: string },
): Promise<number> {
  const signature = new Webhook(secret).sign(id, at, body);
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    // Two signatures, as during a key rotation: an unknown one first, then the real one.
    'webhook-signature': `v1,${randomBytes(32).toString('base64')} ${signature}`,
  };
  if (drop) delete headers[drop];
  const response = await fetch(url, { method: 'POST', headers, body: tamper ?? body });
  await response.arrayBuffer();
  return response.status;
}

describe('webhook receiver samples', () => {
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lw-webhook-samples-'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  const receivers: { name: string; skip: string | false; start: (secret: string) => Promise<Receiver> }[] = [
    {
      name: 'Node.js',
      skip: false,
      start: (secret) => {
        fs.writeFileSync(path.join(dir, 'receiver.mjs'), webhookSample('nodejs'));
        return startReceiver(process.execPath, ['receiver.mjs'], secret, dir);
      },
    },
    {
      name: 'Python',
      skip: HAS_PYTHON ? false : 'python3 is not installed',
      start: (secret) => {
        fs.writeFileSync(path.join(dir, 'receiver.py'), webhookSample('python'));
        return startReceiver('python3', ['-u', 'receiver.py'], secret, dir);
      },
    },
    {
      name: 'Go',
      skip: HAS_GO ? false : 'go is not installed',
      start: async (secret) => {
        const goDir = path.join(dir, 'go');
        fs.mkdirSync(goDir, { recursive: true });
        fs.writeFileSync(path.join(goDir, 'receiver.go'), webhookSample('golang'));
        await run('go', ['vet', 'receiver.go'], { cwd: goDir, timeout: 120_000, env: { ...process.env, GOCACHE: path.join(dir, 'gocache'), GO111MODULE: 'off' } });
        await run('go', ['build', '-o', 'receiver', 'receiver.go'], { cwd: goDir, timeout: 120_000, env: { ...process.env, GOCACHE: path.join(dir, 'gocache'), GO111MODULE: 'off' } });
        return startReceiver(path.join(goDir, 'receiver'), [], secret, goDir);
      },
    },
  ];

  for (const { name, skip, start } of receivers) {
    test(`the ${name} receiver accepts signed deliveries and refuses forged ones`, { skip }, async () => {
      const secret = newSecret();
      const receiver = await start(secret);
      try {
        const body = JSON.stringify({ id: '58211', breach_id: '58211', type: 'report', timestamp: new Date().toISOString() });
        assert.equal(await deliver(receiver.url, secret, { id: 'delivery-1', body }), 204);
        // A retry: same id, answered 2xx, handled once.
        assert.equal(await deliver(receiver.url, secret, { id: 'delivery-1', body }), 204);
        assert.equal(await deliver(receiver.url, secret, { id: 'delivery-1', body, tamper: body.replace('58211', '58212') }), 401);
        assert.equal(await deliver(receiver.url, newSecret(), { id: 'delivery-2', body }), 401);
        assert.equal(await deliver(receiver.url, secret, { id: 'delivery-3', body, at: new Date(Date.now() - 6 * 60_000) }), 401);
        assert.equal(await deliver(receiver.url, secret, { id: 'delivery-4', body, at: new Date(Date.now() + 6 * 60_000) }), 401);
        assert.equal(await deliver(receiver.url, secret, { id: 'delivery-5', body, at: new Date(Date.now() - 4 * 60_000) }), 204);
        assert.equal(await deliver(receiver.url, secret, { id: 'delivery-6', body, drop: 'webhook-signature' }), 401);
        assert.equal(await deliver(receiver.url, secret, { id: 'delivery-7', body, drop: 'webhook-timestamp' }), 401);
        const unsigned = await fetch(receiver.url, { method: 'POST', body });
        assert.equal(unsigned.status, 401);
        await new Promise((resolve) => setTimeout(resolve, 200));
        assert.deepEqual(receiver.output().trim().split('\n'), ['new report 58211', 'new report 58211'], 'delivery-1 once, delivery-5 once');
      } finally {
        await receiver.stop();
      }
    });
  }

  test('the shell signer\'s delivery is accepted by the Node.js receiver, and verifies with the reference library', { skip: HAS_OPENSSL ? false : 'openssl or curl is missing' }, async () => {
    const secret = newSecret();
    fs.writeFileSync(path.join(dir, 'receiver.mjs'), webhookSample('nodejs'));
    const receiver = await startReceiver(process.execPath, ['receiver.mjs'], secret, dir);
    fs.writeFileSync(path.join(dir, 'test-delivery.sh'), webhookSample('curl'));
    try {
      const { stdout } = await run('sh', ['test-delivery.sh', receiver.url], { cwd: dir, env: { ...process.env, WEBHOOK_SECRET: secret }, timeout: 20_000 });
      assert.match(stdout, /^HTTP\/1\.1 204/);
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.equal(receiver.output().trim(), 'new report 58211');
      const wrong = await run('sh', ['test-delivery.sh', receiver.url], { cwd: dir, env: { ...process.env, WEBHOOK_SECRET: newSecret() }, timeout: 20_000 });
      assert.match(wrong.stdout, /^HTTP\/1\.1 401/);
    } finally {
      await receiver.stop();
    }
    // The shell's signature for a fixed id and timestamp is the reference library's.
    const script = webhookSample('curl').replace(/^curl[\s\S]*$/m, 'printf "%s %s %s" "$ID" "$TIMESTAMP" "$SIGNATURE"\n');
    const fixed = script.replace('ID="msg_test_$(date +%s)"', 'ID="msg_fixed"').replace('TIMESTAMP=$(date +%s)', 'TIMESTAMP=1745406161');
    assert.notEqual(fixed, script);
    fs.writeFileSync(path.join(dir, 'sign.sh'), fixed);
    const { stdout } = await run('sh', ['sign.sh'], { cwd: dir, env: { ...process.env, WEBHOOK_SECRET: secret }, timeout: 20_000 });
    const [id, timestamp, signature] = stdout.split(' ');
    const body = JSON.parse(/^BODY='(.*)'$/m.exec(script)![1]!) as object;
    assert.equal(`v1,${signature}`, new Webhook(secret).sign(id!, new Date(Number(timestamp) * 1000), JSON.stringify(body)));
  });
});
