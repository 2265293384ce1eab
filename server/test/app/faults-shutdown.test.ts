/**
 * Reliability test 35: SIGTERM under load, on the real server process (server.ts, as
 * `npm start` runs it) with a steady stream of requests, slow uploads in flight and
 * webhook deliveries queued behind a slow receiver. In-flight requests finish with their
 * real answers, later ones get 503 or a refused connection (never a 500, never a hang),
 * the process exits 0 well within its grace period, and the jobs it had not run yet are
 * not lost: a second process on the same database (and Redis) delivers them. On both job
 * backends (Redis: a redis-server of the test's own).
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { Kysely, PostgresDialect } from 'kysely';
import { loadConfig } from '../../src/config';
import type { Database } from '../../src/db/schema';
import { createPool } from '../../src/infra/database';
import { hashPassword } from '../../src/auth/passwords';
import { insertUser } from '../../src/users/user-repository';
import { packLogin } from '../../src/common/obfuscation';
import { TEST_PASSWORD, createTestDatabase, eventually, startServerProcess } from '../support/harness';
import { FAST_DELIVERY_ENV, createAlert, queueClient, startReceiver } from '../support/delivery-fixtures';
import { startPrivateRedis, timedFetch, type PrivateRedis, type Timed } from '../support/fault-tools';

const GRACE_MS = 20_000; // server.ts gives up (exit 1) after this
const ALERTS = 24;
const RECEIVER_DELAY_MS = 1000;

/**
 * A login whose body arrives slowly: the headers and half the body now, the rest when
 * `finish` is called. Resolves with the status and body of the answer, or the error.
 */
function slowLogin(url: string, email: string) {
  const body = Buffer.from(JSON.stringify(packLogin({ email, password: TEST_PASSWORD, remember: false })));
  const half = Math.floor(body.length / 2);
  const target = new URL('/authentication/login', url);
  let finish = () => {};
  const answer = new Promise<{ status: number; body: string; error?: string }>((resolve) => {
    const request = http.request(
      { host: target.hostname, port: target.port, path: target.pathname, method: 'POST', agent: false, headers: { 'content-type': 'application/json', 'content-length': body.length } },
      (response) => {
        let text = '';
        response.on('data', (chunk: Buffer) => (text += chunk.toString()));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text }));
        response.on('error', (error: NodeJS.ErrnoException) => resolve({ status: 0, body: text, error: error.code ?? error.message }));
      },
    );
    request.on('error', (error: NodeJS.ErrnoException) => resolve({ status: 0, body: '', error: error.code ?? error.message }));
    request.write(body.subarray(0, half));
    finish = () => request.end(body.subarray(half));
  });
  return { answer, finish: () => finish() };
}

const BACKENDS = ['postgres', 'redis'] as const;

for (const backend of BACKENDS) {
  describe(`test 35: SIGTERM under load, jobs on ${backend}`, () => {
    const cleanups: (() => Promise<unknown>)[] = [];
    after(async () => {
      while (cleanups.length) await cleanups.pop()!().catch((error: Error) => console.error(`cleanup: ${error.message}`));
    });

    test('in-flight requests finish, new ones get 503 or refused, exit 0, queued jobs run on the next process', async () => {
      const database = await createTestDatabase();
      cleanups.push(database.drop);
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lw-test-sigterm-'));
      cleanups.push(async () => fs.rmSync(dataDir, { recursive: true, force: true }));
      let redis: PrivateRedis | undefined;
      if (backend === 'redis') {
        redis = await startPrivateRedis();
        cleanups.push(() => redis!.close());
      }
      const receiver = await startReceiver(() => ({ status: 200, delayMs: RECEIVER_DELAY_MS }));
      cleanups.push(() => receiver.close());
      const env: Record<string, string> = {
        NODE_ENV: 'test',
        DATABASE_URL: database.url,
        DATA_DIR: dataDir,
        LOG_LEVEL: 'warn',
        ...(redis ? { REDIS_URL: redis.url } : {}),
        ...FAST_DELIVERY_ENV,
        WEBHOOK_TIMEOUT_MS: '5000',
      };

      const first = await startServerProcess(env);
      const processes = [first];
      cleanups.push(async () => {
        for (const p of processes) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
      });

      // The test's own handle on the database and the queues (server.ts's namespace).
      const config = loadConfig(env);
      const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: createPool(database.url, { max: 2 }) }) });
      cleanups.push(() => db.destroy());
      const runtime = { db, config, connectionString: database.url };
      const email = `sigterm-${randomBytes(4).toString('hex')}@example.com`;
      const userId = (await insertUser(db, { email, passwordHash: await hashPassword(TEST_PASSWORD), verified: true }))!;
      const target = { runtime, createUser: async () => ({ id: userId, email, password: TEST_PASSWORD }) };
      const queues = queueClient({ runtime: runtime as never, namespace: 'leakwell' });
      cleanups.push(() => queues.close());

      // Alerts queued behind a slow receiver: 4 run at a time, the rest wait in the queue.
      const alerts: Awaited<ReturnType<typeof createAlert>>[] = [];
      for (let i = 0; i < ALERTS; i++) alerts.push(await createAlert(target as never, queues, { kind: 'webhook', value: receiver.url }));
      await eventually(async () => receiver.requests.length >= 1, 20_000);

      // A steady stream of requests, and slow uploads whose headers are in.
      const token = await (async () => {
        const response = await fetch(`${first.url}/authentication/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(packLogin({ email, password: TEST_PASSWORD, remember: false })),
        });
        assert.equal(response.status, 200);
        return ((await response.json()) as { auth_token: string }).auth_token;
      })();
      const stream: (Timed & { sentAt: number })[] = [];
      let streaming = true;
      const loops = Array.from({ length: 4 }, async (_, i) => {
        while (streaming) {
          const sentAt = Date.now();
          const reply = await timedFetch(i % 2 ? `${first.url}/user/info` : `${first.url}/readyz`, {
            headers: { authorization: `Bearer ${token}`, connection: 'close' },
            timeoutMs: GRACE_MS,
          });
          stream.push({ ...reply, sentAt });
          await new Promise((r) => setTimeout(r, 25));
        }
      });
      const uploads = Array.from({ length: 4 }, () => slowLogin(first.url, email));
      await new Promise((r) => setTimeout(r, 700));

      const signalAt = Date.now();
      first.child.kill('SIGTERM');
      // The uploads complete after the signal: their requests were in flight.
      setTimeout(() => uploads.forEach((u) => u.finish()), 1000);
      const exit = await first.exited;
      streaming = false;
      await Promise.all(loops);
      const exitMs = exit.at - signalAt;
      const output = first.output();
      assert.equal(exit.code, 0, `exit 0 (${exit.code} ${exit.signal}): ${output.slice(-2000)}`);
      assert.ok(exitMs < GRACE_MS, `exited within the grace period (${exitMs} ms)`);

      const answered = await Promise.all(uploads.map((u) => u.answer));
      for (const a of answered) assert.equal(a.status, 200, `an upload in flight got its real answer: ${a.status} ${a.error ?? ''} ${a.body.slice(0, 200)}`);

      const before = stream.filter((s) => s.sentAt < signalAt - 300);
      const around = stream.filter((s) => s.sentAt >= signalAt - 300);
      assert.ok(before.length >= 8, `a steady stream before the signal (${before.length})`);
      for (const s of before) assert.equal(s.status, 200, `sent before the signal: ${s.status} ${s.error ?? ''}`);
      for (const s of around) {
        assert.ok(
          s.status === 200 || s.status === 503 || s.error === 'ECONNREFUSED' || s.error === 'ECONNRESET' || s.error === 'UND_ERR_SOCKET',
          `around and after the signal: 200, 503 or no connection, got ${s.status} ${s.error ?? ''} ${s.body.slice(0, 200)}`,
        );
      }
      assert.ok(!/"statusCode":5\d\d/.test(output.replace(/"statusCode":503/g, '')), 'no 5xx but 503 in the log');

      // Jobs: some were still queued when the process left; none is lost.
      const statuses = async () => db.selectFrom('deliveries').select(['id', 'status']).where('id', 'in', alerts.map((a) => a.deliveryId)).execute();
      const pendingAtExit = (await statuses()).filter((r) => r.status === 'pending').length;
      assert.ok(pendingAtExit > 0, `the shutdown left jobs in the queue (else this test proves nothing): exit after ${exitMs} ms, ${receiver.requests.length} received`);
      const second = await startServerProcess(env);
      processes.push(second);
      await eventually(async () => (await statuses()).every((r) => r.status === 'sent'), 30_000);
      const delivered = new Set(receiver.requests.map((r) => r.headers['webhook-id']));
      for (const alert of alerts) assert.ok(delivered.has(alert.deliveryId), `alert ${alert.deliveryId} delivered`);
      second.child.kill('SIGTERM');
      const secondExit = await second.exited;
      assert.equal(secondExit.code, 0, second.output().slice(-2000));
      const around503 = around.filter((s) => s.status === 503).length;
      const refused = around.filter((s) => s.status === 0).length;
      console.log(
        `# ${backend}: exit 0 in ${exitMs} ms; ${before.length} requests before the signal all 200; after: ${around.length} (${around503} × 503, ${refused} refused); uploads 4 × 200; ${pendingAtExit} of ${ALERTS} jobs left queued, all delivered by the next process`,
      );
    });
  });
}
