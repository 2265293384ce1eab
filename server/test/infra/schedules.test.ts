/**
 * The periodic tasks run as BullMQ job schedulers on the `maintenance` queue: a server
 * schedules every task it registered, two instances on one queue run each period once,
 * and a task no longer registered loses its scheduler.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createQueueSystem, type QueueSystem } from '../../src/infra/queues';
import { createJobRegistry } from '../../src/infra/jobs';
import { createTestDatabase, eventually, startTestServer } from '../support/harness';
import { BACKENDS, queueClient } from '../support/delivery-fixtures';

const noJobs = () => async () => {};

/** An instance's queues with every processor but `maintenance` idle, and a registry of one task. */
function instance(connectionString: string, backend: 'postgres' | 'redis', namespace: string, onRun: () => void) {
  const registry = createJobRegistry();
  for (const name of ['payment-event', 'sandbox-webhook', 'monitor-match', 'deliver', 'monitor-daily'] as const) registry.register(name, noJobs());
  registry.every('whois-sweep', 400, async () => onRun());
  const queues = createQueueSystem({
    connectionString,
    redisUrl: backend === 'redis' ? (process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379') : undefined,
    namespace,
  });
  queues.startWorkers({ mail: noJobs(), ...registry.processors() });
  return { queues, registry };
}

async function dropRedisKeys(namespace: string) {
  const { Redis } = await import('ioredis');
  const redis = new Redis(process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379');
  const keys = await redis.keys(`${namespace}*`);
  if (keys.length) await redis.del(...keys);
  await redis.quit();
}

for (const backend of BACKENDS) {
  describe(`periodic tasks on ${backend}`, () => {
    const cleanups: (() => Promise<unknown>)[] = [];
    after(async () => {
      for (const cleanup of cleanups.reverse()) await cleanup();
    });

    test('two instances run each period of a task once, and an unregistered task loses its scheduler', async () => {
      const database = await createTestDatabase();
      const namespace = `lwsched${randomBytes(4).toString('hex')}`;
      cleanups.push(() => database.drop());
      if (backend === 'redis') cleanups.push(() => dropRedisKeys(namespace));
      let runs = 0;
      const instances = [instance(database.url, backend, namespace, () => runs++), instance(database.url, backend, namespace, () => runs++)];
      const queues: QueueSystem[] = instances.map((i) => i.queues);
      cleanups.push(() => Promise.all(queues.map((q) => q.close())));
      await Promise.all(queues.map((q) => q.ready()));

      const started = Date.now();
      // Both instances schedule at start, as the runtime does: one scheduler, not two.
      await Promise.all(instances.map(({ queues: q, registry }) => q.schedule(registry.schedules())));
      const listed = await queues[0]!.schedules();
      assert.deepEqual(
        listed.map(({ task, everyMs }) => ({ task, everyMs })),
        [{ task: 'whois-sweep', everyMs: 400 }],
      );

      await eventually(async () => runs >= 6, 20_000);
      const periods = (Date.now() - started) / 400;
      // The first run is at once, then one per period: two instances each running every
      // period would be about twice this.
      assert.ok(runs <= Math.floor(periods) + 2, `${runs} runs in ${periods.toFixed(1)} periods`);

      await queues[0]!.schedule([]);
      assert.deepEqual(await queues[1]!.schedules(), []);
    });
  });
}

describe('a server schedules its periodic tasks', () => {
  test('the mail purge, daily notices, monitoring sweep, WHOIS sweep and payment expiry are job schedulers of the maintenance queue', async (t) => {
    const server = await startTestServer();
    t.after(() => server.close());
    const queues = queueClient(server);
    t.after(() => queues.close());
    const schedules = await queues.schedules();
    const periods = Object.fromEntries(schedules.map(({ task, everyMs }) => [task, everyMs]));
    assert.deepEqual(periods, {
      'mail-purge': 3_600_000,
      'monitor-daily': 3_600_000,
      'monitor-sweep': 30_000,
      'whois-sweep': 60_000,
      'payment-expiry': 30_000,
    });
    assert.ok(schedules.every(({ next }) => typeof next === 'number' && next > Date.now() - 60_000), JSON.stringify(schedules));
  });
});
