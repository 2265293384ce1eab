/**
 * Reliability test 29: the runtime (its queue workers with it) stops while an alert is
 * being delivered and a new one starts on the same database and queues. The alert
 * arrives at least once; the duplicate a receiver may get carries the same webhook-id
 * and a valid signature, so receivers can drop it. On both job backends.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { Webhook } from 'standardwebhooks';
import { loadConfig } from '../../src/config';
import { startRuntime, type Runtime } from '../../src/runtime';
import { insertUser } from '../../src/users/user-repository';
import { createTestDatabase, eventually, findLeaks } from '../support/harness';
import { BACKENDS, FAST_DELIVERY_ENV, attemptsOf, createAlert, newWebhookSecret, queueClient, settled, startReceiver, type Receiver } from '../support/delivery-fixtures';

for (const backend of BACKENDS) {
  describe(`a restart mid-delivery, on ${backend}`, () => {
    const cleanups: (() => Promise<void>)[] = [];
    after(async () => {
      while (cleanups.length) await cleanups.pop()!();
    });

    test('stopped while the receiver holds the alert, started again: delivered, the duplicate has the same webhook-id', async () => {
      const database = await createTestDatabase();
      cleanups.push(database.drop);
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lw-test-restart-'));
      cleanups.push(async () => fs.rmSync(dataDir, { recursive: true, force: true }));
      const namespace = `lwt${randomBytes(4).toString('hex')}`;
      const redisUrl = backend === 'redis' ? (process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379') : undefined;
      if (redisUrl) {
        cleanups.push(async () => {
          const { Redis } = await import('ioredis');
          const redis = new Redis(redisUrl);
          const keys = await redis.keys(`${namespace}*`);
          if (keys.length) await redis.del(...keys);
          await redis.quit();
        });
      }
      const config = loadConfig({
        NODE_ENV: 'test',
        DATABASE_URL: database.url,
        DATA_DIR: dataDir,
        LOG_LEVEL: 'info',
        ...(redisUrl ? { REDIS_URL: redisUrl } : {}),
        ...FAST_DELIVERY_ENV,
        WEBHOOK_TIMEOUT_MS: '1500',
      });
      let logText = '';
      const logStream = new Writable({
        write(chunk, _encoding, callback) {
          logText += chunk.toString();
          callback();
        },
      });
      const start = () => startRuntime(config, { logStream, mailConsole: null, namespace });

      // The first request is taken in and answered only after the sender gave up on it
      // (the receiver did process it: a real duplicate follows); later ones at once.
      const hook: Receiver = await startReceiver((n) => (n === 0 ? { status: 200, delayMs: 3000 } : { status: 200 }));
      cleanups.push(() => hook.close());
      const secret = newWebhookSecret();

      let runtime: Runtime = await start();
      let closed = false;
      cleanups.push(async () => {
        if (!closed) await runtime.close();
      });
      const target = {
        runtime,
        createUser: async () => {
          const email = `restart-${randomBytes(4).toString('hex')}@example.com`;
          const id = await insertUser(runtime.db, { email, passwordHash: 'x', verified: true });
          return { id: id!, email, password: '' };
        },
      };
      const queues = queueClient({ runtime, namespace });
      const alert = await createAlert(target, queues, { kind: 'webhook', value: hook.url, secret });
      await queues.close();

      // Mid-delivery: the receiver holds the alert; stop everything (workers finish the job in hand).
      await eventually(async () => hook.requests.length === 1);
      closed = true;
      await runtime.close();
      assert.equal(hook.requests.length, 1);

      runtime = await start();
      closed = false;
      const row = await settled({ runtime }, alert.deliveryId, 20_000);
      assert.equal(row.status, 'sent');
      assert.ok(hook.requests.length >= 2, 'at least once after the first was lost');
      const verifier = new Webhook(secret);
      for (const request of hook.requests) {
        assert.equal(request.headers['webhook-id'], alert.deliveryId, 'every copy carries the same webhook-id');
        const payload = verifier.verify(request.body, {
          'webhook-id': String(request.headers['webhook-id']),
          'webhook-timestamp': String(request.headers['webhook-timestamp']),
          'webhook-signature': String(request.headers['webhook-signature']),
        }) as { id: string };
        assert.equal(payload.id, alert.reportId);
      }
      const attempts = await attemptsOf({ runtime }, alert.deliveryId);
      assert.equal(attempts[0]!.error, 'timeout after 1500 ms');
      assert.equal(attempts.at(-1)!.http_status, 200);
      closed = true;
      await runtime.close();
      assert.deepEqual(findLeaks(logText, [secret]), []);
    });
  });
}
