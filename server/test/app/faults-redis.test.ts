/**
 * Redis restarted during rate limiting and jobs, on a redis-server of the test's own
 * (the shared one is never touched). Rate limits fail safe: while Redis is away they
 * keep applying from the process's memory (never unlimited, never a 500, never a wait
 * for Redis), and are shared in Redis again once it is back. Jobs: the workers
 * reconnect by themselves; a job enqueued while Redis restarts is delivered once it is
 * back, and after a crash that lost Redis's data new jobs run again.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Redis } from 'ioredis';
import { startTestServer, type TestServer } from '../support/harness';
import { FAST_DELIVERY_ENV, createAlert, queueClient, settled, startReceiver, type Receiver } from '../support/delivery-fixtures';
import { startPrivateRedis, timedFetch, type PrivateRedis } from '../support/fault-tools';
import type { QueueSystem } from '../../src/infra/queues';

const RATE = 5;

let redis: PrivateRedis;
let server: TestServer;
let receiver: Receiver;
let queues: QueueSystem | undefined;

before(async () => {
  redis = await startPrivateRedis();
  receiver = await startReceiver();
  server = await startTestServer({
    redis: true,
    env: { REDIS_URL: redis.url, API_RATE_PER_SECOND: String(RATE), API_RATE_BURST: String(RATE), ...FAST_DELIVERY_ENV },
  });
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** 20 API requests at once with a fresh key: how many passed, every status, the slowest. */
async function burst() {
  const { apiKey } = await server.createUser({ searchDays: 30, searchCredits: 1000, apiKey: true });
  const replies = await Promise.all(
    Array.from({ length: 20 }, () =>
      timedFetch(`${server.url}/v2/search`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', [server.runtime.config.apiKeyHeader]: apiKey! },
        body: JSON.stringify({ query: 'email:"nobody@example.com"' }),
        timeoutMs: 10_000,
      }),
    ),
  );
  return {
    passed: replies.filter((r) => r.status === 200).length,
    statuses: [...new Set(replies.map((r) => r.status))].sort(),
    slowest: Math.round(Math.max(...replies.map((r) => r.ms))),
  };
}

async function bucketsInRedis(): Promise<number> {
  const client = new Redis(redis.url, { maxRetriesPerRequest: 1 });
  try {
    return (await client.keys(`${server.namespace}:rl:*`)).length;
  } finally {
    client.disconnect();
  }
}

describe('Redis restarted during rate limiting and jobs', () => {
  // In the suite (not at the root, which runs once the event loop is idle): the private
  // redis-server is a child process that would keep it busy for ever.
  after(async () => {
    // A cleanup step that never ends (a connection that lived through the restarts) must not
    // hold the suite for ever: the process leaves after 30 s whatever happens.
    setTimeout(() => {
      console.log('# cleanup did not finish in 30 s: exiting');
      process.exit();
    }, 30_000).unref();
    if (redis && !redis.running()) await redis.start();
    await queues?.close();
    await server?.close();
    await receiver?.close();
    await redis?.close();
    // BullMQ: an idle worker's close may never end after Redis restarted (queues.ts goes on
    // without it after a grace period); what it holds would keep this process alive.
    setTimeout(() => process.exit(), 3000).unref();
  });

  test('rate limits fail safe while Redis is down and are shared in Redis again when it is back', async () => {
    const up = await burst();
    assert.deepEqual(up.statuses, [200, 429]);
    assert.ok(up.passed >= 1 && up.passed <= RATE + 1, `with Redis: ${up.passed} of 20 passed`);
    assert.ok((await bucketsInRedis()) > 0, 'the buckets live in Redis');

    await redis.stop();
    await sleep(1500); // the address bucket drains meanwhile
    const down = await burst();
    assert.deepEqual(down.statuses, [200, 429], `without Redis: only 200 and 429 (got ${down.statuses.join(', ')})`);
    assert.ok(down.passed >= 1 && down.passed <= RATE + 1, `without Redis: ${down.passed} of 20 passed, never unlimited`);
    assert.ok(down.slowest < 2000, `without Redis no request waits for it (slowest ${down.slowest} ms)`);
    assert.equal((await timedFetch(`${server.url}/livez`)).status, 200);

    await redis.start();
    assert.equal(await bucketsInRedis(), 0, 'a crashed Redis comes back empty');
    // ioredis reconnects on its own (backoff up to 2 s): the buckets are in Redis again.
    const deadline = Date.now() + 10_000;
    let again = await burst();
    while ((await bucketsInRedis()) === 0) {
      assert.ok(Date.now() < deadline, 'the limiter went back to Redis');
      await sleep(500);
      again = await burst();
    }
    assert.ok(again.passed >= 1 && again.passed <= RATE + 1, `Redis back: ${again.passed} of 20 passed`);
    console.log(`# passed of 20: Redis up ${up.passed}, down ${down.passed} (slowest ${down.slowest} ms), back ${again.passed}`);
  });

  test('jobs: one enqueued while Redis restarts is delivered once it is back; after a crash new jobs run', async () => {
    queues = queueClient(server);
    const first = await createAlert(server, queues, { kind: 'webhook', value: receiver.url });
    assert.equal((await settled(server, first.deliveryId)).status, 'sent');

    // A graceful restart (data saved): the enqueue waits for Redis, then the job runs.
    await redis.stop({ save: true });
    const during = createAlert(server, queues, { kind: 'webhook', value: receiver.url });
    await sleep(1500);
    await redis.start();
    const second = await during;
    assert.equal((await settled(server, second.deliveryId, 20_000)).status, 'sent');

    // A crash (data lost): the workers reconnect to an empty Redis and take new jobs.
    await redis.stop();
    await sleep(1000);
    await redis.start();
    const third = await createAlert(server, queues, { kind: 'webhook', value: receiver.url });
    assert.equal((await settled(server, third.deliveryId, 20_000)).status, 'sent');
    const delivered = new Set(receiver.requests.map((r) => r.headers['webhook-id']));
    for (const alert of [first, second, third]) assert.ok(delivered.has(alert.deliveryId), `delivery ${alert.deliveryId} arrived`);
    assert.equal((await timedFetch(`${server.url}/livez`)).status, 200);

    // And it still shuts down: workers whose connections lived through the restarts close.
    await queues.close();
    queues = undefined;
    const closing = Date.now();
    await server.close();
    const closeMs = Date.now() - closing;
    assert.ok(closeMs < 15_000, `closed in ${closeMs} ms`);
    console.log(`# closed after the restarts in ${closeMs} ms`);
  });
});
