/**
 * The monitoring documentation's samples run as pasted (web/src/features/monitoring-docs):
 * - the webhook receivers (Node.js always, Python when python3 is here, Go when go is
 *   here) accept a delivery signed by an independent Standard Webhooks signer
 *   (`standardwebhooks`) and by the page's own shell signer (openssl + curl), and refuse
 *   a changed body, a wrong secret, an old timestamp and a missing header; a retry with the
 *   same webhook-id is handled once;
 * - every /v2/monitoring call of the docs, in each language (Node.js and cURL always, Python
 *   with `requests`, Go when go is here), sent by its sample to a test server with a real
 *   key, answers with exactly the documented shape (ids swapped for the user's own where a
 *   call names one); the same for every Monitor API V1 call (bearer key).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';
import { type CallSpec, type Language, type SampleContext } from '../../../web/src/lib/api-samples';
import { V1_CALLS } from '../../../web/src/features/monitoring-docs/lib/v1-calls';
import { V2_CALLS, type DocCall } from '../../../web/src/features/monitoring-docs/lib/v2-calls';
import { webhookSample } from '../../../web/src/features/monitoring-docs/lib/webhook-samples';
import { recordSegment } from '../../src/monitoring/matching-repository';
import { eventually, startTestServer, type TestServer } from '../support/harness';
import { has, run, sampleRunner } from '../support/doc-samples';
import { freePort } from '../support/ports';

const HAS_PYTHON = has('python3', ['--version']);
const HAS_GO = has('go', ['version']);
const HAS_OPENSSL = has('openssl', ['version']) && has('curl', ['--version']);
const HAS_REQUESTS = has('python3', ['-c', 'import requests']);

interface Receiver {
  url: string;
  output(): string;
  stop(): Promise<void>;
}

/** Starts a sample receiver program and waits until it answers. */
async function startReceiver(command: string, args: string[], secret: string, cwd: string, port?: number): Promise<Receiver> {
  port ??= await freePort();
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

/** The search-entry arrays: their entries vary by record, so only their frame is checked. */
const ENTRY_ARRAYS = new Set(['results', 'entries']);

/** `actual` has the documented shape: the same keys, the same JSON types (null stands for "null or a value"). */
function assertShape(actual: unknown, documented: unknown, where: string): void {
  if (documented === null) return;
  if (Array.isArray(documented)) {
    assert.ok(Array.isArray(actual), `${where} is an array`);
    for (const [index, item] of actual.entries()) {
      const problems = documented.map((option) => {
        try {
          assertShape(item, option, `${where}[${index}]`);
          return null;
        } catch (error) {
          return error;
        }
      });
      if (problems.every(Boolean)) throw problems[0];
    }
    return;
  }
  if (typeof documented === 'object') {
    assert.ok(actual !== null && typeof actual === 'object' && !Array.isArray(actual), `${where} is an object: ${JSON.stringify(actual)}`);
    assert.deepEqual(Object.keys(actual).sort(), Object.keys(documented).sort(), `${where}'s fields`);
    for (const [key, value] of Object.entries(documented as Record<string, unknown>)) {
      const got: unknown = (actual as Record<string, unknown>)[key];
      if (ENTRY_ARRAYS.has(key) && Array.isArray(value)) {
        assert.ok(Array.isArray(got), `${where}.${key} is an array`);
        for (const entry of got as Record<string, unknown>[]) {
          assert.equal(typeof entry.id, 'string', `${where}.${key}[].id`);
          assert.equal(typeof entry.database_name, 'string', `${where}.${key}[].database_name`);
        }
      } else {
        assertShape(got, value, `${where}.${key}`);
      }
    }
    return;
  }
  assert.equal(typeof actual, typeof documented, `${where}: ${JSON.stringify(actual)}`);
}

const LANGUAGES: { language: Language; skip: string | false }[] = [
  { language: 'nodejs', skip: false },
  { language: 'curl', skip: has('curl', ['--version']) ? false : 'curl is missing' },
  { language: 'python', skip: HAS_REQUESTS ? false : 'python3 with requests is not installed' },
  { language: 'golang', skip: HAS_GO ? false : 'go is not installed' },
];

const runNamed = sampleRunner();
/** Runs one sample, named after the last part of its path. */
const runSample = (dir: string, language: Language, context: SampleContext, call: CallSpec) => runNamed(dir, language, context, call, call.path.split('/').pop()!);

const v2 = (name: string): DocCall => {
  const found = V2_CALLS.find((c) => c.path === `/v2/monitoring/${name}`);
  assert.ok(found, name);
  return found;
};

const v1 = (name: string): DocCall => {
  const found = V1_CALLS.find((c) => c.path === `/monitor-api/v1/${name}`);
  assert.ok(found, name);
  return found;
};

describe('v2 and V1 monitoring samples against a server', () => {
  let server: TestServer;
  let dir: string;
  type SampleUser = { id: string; key: string; taskId?: string; reportId?: string };
  const users = new Map<Language, SampleUser>();
  const v1Users = new Map<Language, SampleUser>();
  const context = (language: Language): SampleContext => ({
    baseUrl: server.url,
    header: server.runtime.config.apiKeyHeader,
    key: users.get(language)!.key,
  });
  const v1Context = (language: Language): SampleContext => ({ baseUrl: server.url, header: 'Authorization', key: `Bearer ${v1Users.get(language)!.key}` });

  before(async () => {
    // Private webhook URLs allowed: the docs' receiver listens on loopback.
    server = await startTestServer({ env: { TRUSTED_PROXIES: '127.0.0.1', WEBHOOK_ALLOW_PRIVATE: 'true' } });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lw-monitoring-samples-'));
    for (const { language } of LANGUAGES) {
      const user = await server.createUser({ enterprise: true, searchDays: 30, apiKey: true });
      users.set(language, { id: user.id, key: user.apiKey! });
      const v1User = await server.createUser({ enterprise: true, searchDays: 30, apiKey: true });
      v1Users.set(language, { id: v1User.id, key: v1User.apiKey! });
    }
  });
  after(async () => {
    fs.rmSync(dir, { recursive: true, force: true });
    await server.close();
  });

  for (const { language, skip } of LANGUAGES) {
    test(`${language}: create-task, get-tasks, get-task`, { skip }, async () => {
      const user = users.get(language)!;
      const created = (await runSample(dir, language, context(language), v2('create-task'))) as { id: string };
      assertShape(created, v2('create-task').response, 'create-task');
      user.taskId = created.id;
      const list = (await runSample(dir, language, context(language), v2('get-tasks'))) as { tasks: { id: string; value: string }[]; total: number };
      assertShape(list, v2('get-tasks').response, 'get-tasks');
      assert.deepEqual(list.tasks.map((t) => [t.id, t.value]), [[created.id, 'name@example.com']]);
      const one = await runSample(dir, language, context(language), { ...v2('get-task'), body: { id: created.id } });
      assertShape(one, v2('get-task').response, 'get-task');
    });

    test(`${language}: V1 create, get-user-info`, { skip }, async () => {
      const user = v1Users.get(language)!;
      const created = (await runSample(dir, language, v1Context(language), v1('create'))) as { id: string };
      assertShape(created, v1('create').response, 'create');
      user.taskId = created.id;
      const info = (await runSample(dir, language, v1Context(language), v1('get-user-info'))) as { tasks: { id: string; value: string }[] };
      assertShape(info, v1('get-user-info').response, 'get-user-info');
      assert.deepEqual(info.tasks.map((t) => [t.id, t.value]), [[created.id, 'name@example.com']]);
    });
  }

  test('a data well holding the watched email makes a report for each user', async () => {
    const records = [{ email: 'Name@Example.com', username: 'docs_sample', password: 'pw' }];
    const segmentId = await server.ingest('Docs Sample Well', records);
    await recordSegment(server.runtime.db, { segmentId, well: 'Docs Sample Well', records: records.length });
    for (const user of [...users.values(), ...v1Users.values()]) {
      if (!user.taskId) continue;
      await eventually(async () => {
        const row = await server.runtime.db.selectFrom('monitor_reports').select('id').where('user_id', '=', user.id).executeTakeFirst();
        return row ? (user.reportId = String(row.id)) : undefined;
      }, 20_000);
    }
  });

  for (const { language, skip } of LANGUAGES) {
    test(`${language}: get-reports, get-report, update-task, delete-task`, { skip }, async () => {
      const user = users.get(language)!;
      const reports = (await runSample(dir, language, context(language), v2('get-reports'))) as { reports: { id: string }[] };
      assertShape(reports, v2('get-reports').response, 'get-reports');
      assert.deepEqual(reports.reports.map((r) => r.id), [user.reportId]);
      const report = (await runSample(dir, language, context(language), { ...v2('get-report'), body: { id: user.reportId } })) as {
        tasks: { id: string; results_count: number; results: { email?: string[] }[] }[];
      };
      assertShape(report, v2('get-report').response, 'get-report');
      assert.equal(report.tasks[0]?.id, user.taskId);
      assert.equal(report.tasks[0]?.results_count, 1);
      assert.deepEqual(report.tasks[0]?.results[0]?.email, ['Name@Example.com']);

      const body = { ...v2('update-task').body, id: user.taskId };
      assertShape(await runSample(dir, language, context(language), { ...v2('update-task'), body }), v2('update-task').response, 'update-task');
      const paused = (await runSample(dir, language, context(language), { ...v2('get-task'), body: { id: user.taskId } })) as { active: boolean };
      assert.equal(paused.active, false);
      assertShape(await runSample(dir, language, context(language), { ...v2('delete-task'), body: { id: user.taskId } }), v2('delete-task').response, 'delete-task');
      const after = (await runSample(dir, language, context(language), v2('get-tasks'))) as { total: number };
      assert.equal(after.total, 0);
    });

    test(`${language}: V1 get-breaches, get-breach-entries, update, delete`, { skip }, async () => {
      const user = v1Users.get(language)!;
      const breaches = (await runSample(dir, language, v1Context(language), v1('get-breaches'))) as { breaches: { breach_id: string }[] };
      assertShape(breaches, v1('get-breaches').response, 'get-breaches');
      assert.deepEqual(breaches.breaches.map((b) => b.breach_id), [user.reportId]);
      const entries = (await runSample(dir, language, v1Context(language), { ...v1('get-breach-entries'), body: { ...v1('get-breach-entries').body, breach_id: user.reportId } })) as {
        entries: { task_value: string; email?: string[] }[];
      };
      assertShape(entries, v1('get-breach-entries').response, 'get-breach-entries');
      assert.deepEqual(entries.entries.map((e) => [e.task_value, e.email]), [['name@example.com', ['Name@Example.com']]]);
      assertShape(await runSample(dir, language, v1Context(language), { ...v1('update'), body: { ...v1('update').body, id: user.taskId } }), v1('update').response, 'update');
      const paused = (await runSample(dir, language, v1Context(language), v1('get-user-info'))) as { tasks: { status: string }[] };
      assert.deepEqual(paused.tasks.map((t) => t.status), ['paused']);
      assertShape(await runSample(dir, language, v1Context(language), { ...v1('delete'), body: { ...v1('delete').body, id: user.taskId } }), v1('delete').response, 'delete');
      const none = (await runSample(dir, language, v1Context(language), v1('get-user-info'))) as { tasks: unknown[] };
      assert.deepEqual(none.tasks, []);
    });

    test(`${language}: channels and domains`, { skip }, async () => {
      assertShape(await runSample(dir, language, context(language), v2('update-channel')), v2('update-channel').response, 'update-channel');
      const channels = (await runSample(dir, language, context(language), v2('get-channels'))) as { channels: { type: string; value: string }[] };
      assertShape(channels, v2('get-channels').response, 'get-channels');
      assert.deepEqual(channels.channels.map((c) => [c.type, c.value]), [['email', 'alerts@example.com']]);
      assertShape(await runSample(dir, language, context(language), v2('delete-channel')), v2('delete-channel').response, 'delete-channel');
      const none = (await runSample(dir, language, context(language), v2('get-channels'))) as { channels: unknown[] };
      assert.deepEqual(none.channels, []);

      // An enterprise account adds a domain without an id; the documented call then sets and clears it by id.
      const { id: _slot, ...withoutId } = v2('update-domain').body!;
      assertShape(await runSample(dir, language, context(language), { ...v2('update-domain'), body: { ...withoutId, domain: 'first.example' } }), v2('update-domain').response, 'update-domain');
      const domains = (await runSample(dir, language, context(language), v2('get-domains'))) as { domains: { id: string; domain: string }[] };
      assertShape(domains, v2('get-domains').response, 'get-domains');
      assert.deepEqual(domains.domains.map((d) => d.domain), ['first.example']);
      const id = domains.domains[0]!.id;
      assertShape(await runSample(dir, language, context(language), { ...v2('update-domain'), body: { ...v2('update-domain').body, id } }), v2('update-domain').response, 'update-domain');
      const renamed = (await runSample(dir, language, context(language), v2('get-domains'))) as { domains: { domain: string }[] };
      assert.deepEqual(renamed.domains.map((d) => d.domain), ['example.com']);
      assertShape(await runSample(dir, language, context(language), { ...v2('clear-domain'), body: { id } }), v2('clear-domain').response, 'clear-domain');
      const cleared = (await runSample(dir, language, context(language), v2('get-domains'))) as { domains: unknown[] };
      assert.deepEqual(cleared.domains, []);
    });
  }

  test('the Node.js receiver of the docs verifies a real delivery of this server', async () => {
    const user = await server.createUser({ enterprise: true, searchDays: 30, apiKey: true });
    const header = server.runtime.config.apiKeyHeader;
    const post = async (name: string, body: object) => {
      const response = await fetch(`${server.url}/v2/monitoring/${name}`, {
        method: 'POST',
        headers: { [header]: user.apiKey!, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const answer = (await response.json()) as Record<string, unknown>;
      assert.equal(response.status, 200, JSON.stringify(answer));
      return answer;
    };
    const port = await freePort();
    const { secret } = (await post('update-channel', { type: 'webhook', value: `http://127.0.0.1:${port}/hooks` })) as { secret: string };
    assert.match(secret, /^whsec_/);
    server.markSecret(secret);
    await post('create-task', { type: 'email', value: 'hook.receiver@example.com' });
    const hookDir = path.join(dir, 'hook');
    fs.mkdirSync(hookDir, { recursive: true });
    fs.writeFileSync(path.join(hookDir, 'receiver.mjs'), webhookSample('nodejs'));
    const receiver = await startReceiver(process.execPath, ['receiver.mjs'], secret, hookDir, port);
    try {
      const records = [{ email: 'hook.receiver@example.com', password: 'pw' }];
      const segmentId = await server.ingest('Docs Webhook Well', records);
      await recordSegment(server.runtime.db, { segmentId, well: 'Docs Webhook Well', records: records.length });
      const printed = await eventually(async () => /new report (\S+)/.exec(receiver.output())?.[1], 20_000);
      const { reports } = (await post('get-reports', {})) as { reports: { id: string }[] };
      assert.deepEqual(reports.map((r) => r.id), [printed]);
      // The receiver answered 204: the delivery is recorded as sent.
      await eventually(async () => {
        const row = await server.runtime.db
          .selectFrom('deliveries')
          .select('status')
          .where('report_id', '=', printed)
          .where('kind', '=', 'webhook')
          .executeTakeFirst();
        return row?.status === 'sent';
      });
    } finally {
      await receiver.stop();
    }
  });

  test('every documented call was run', () => {
    assert.deepEqual(V1_CALLS.map((c) => c.path.split('/').pop()).sort(), ['create', 'delete', 'get-breach-entries', 'get-breaches', 'get-user-info', 'update']);
    assert.deepEqual(
      V2_CALLS.map((c) => c.path.split('/').pop()).sort(),
      ['clear-domain', 'create-task', 'delete-channel', 'delete-task', 'get-channels', 'get-domains', 'get-report', 'get-reports', 'get-task', 'get-tasks', 'update-channel', 'update-domain', 'update-task'],
    );
  });
});
