/**
 * One typed contract for background jobs: queue names and their payloads. BullMQ runs on
 * PostgreSQL by default (its PostgreSQL backend) and on Redis when REDIS_URL is set.
 * Jobs carry deterministic ids so enqueuing twice is harmless; retries live only here
 * (attempts + exponential backoff, or a queue's own schedule: see RetrySchedule).
 */
import { Queue, Worker, createPostgresBackend, withBackend, type JobsOptions } from 'bullmq';
import { Redis } from 'ioredis';
import { SafeClient } from './database';

export interface JobPayloads {
  /** Deliver one outbox row (mail). */
  mail: { outboxId: string };
  /** Apply one stored payment provider event (payment_events row). */
  'payment-event': { eventRowId: string };
  /** The sandbox card provider delivering a signed event to our own webhook ingress. */
  'sandbox-webhook': { body: string; headers: Record<string, string> };
  /** Match every active monitoring task against one published segment (jobId `match-{segmentId}`). */
  'monitor-match': { segmentId: string };
  /** Deliver one alert (a deliveries row) to its channel (jobId `deliver-{deliveryId}`). */
  deliver: { deliveryId: string };
  /** The daily expiry and low-credit notices (jobId `daily-{YYYYMMDD}`). */
  'monitor-daily': { day: string };
  /** One run of a periodic task, made by its job scheduler (see Schedule). */
  maintenance: { task: MaintenanceTask };
}
export type QueueName = keyof JobPayloads;
export const QUEUE_NAMES: QueueName[] = ['mail', 'payment-event', 'sandbox-webhook', 'monitor-match', 'deliver', 'monitor-daily', 'maintenance'];

/**
 * The periodic tasks. Each runs on one instance per period however many serve (a BullMQ job
 * scheduler on the `maintenance` queue), and shows in the queue like any job. Timers that
 * watch one process's own state (the search meter's usage flush, the sockets' session
 * check) stay timers.
 */
export type MaintenanceTask = 'mail-purge' | 'monitor-daily' | 'monitor-sweep' | 'whois-sweep' | 'payment-expiry';

export interface Schedule {
  task: MaintenanceTask;
  everyMs: number;
}

/** The scheduler id of a task in the queue (what `schedule` upserts and lists). */
export const schedulerId = (task: MaintenanceTask) => `every-${task}`;

export type Processors = { [N in QueueName]: (data: JobPayloads[N], attempt: number) => Promise<void> };

export interface QueueSystem {
  backend: 'postgres' | 'redis';
  enqueue<N extends QueueName>(name: N, data: JobPayloads[N], jobId: string): Promise<void>;
  /** Many jobs of one queue in one round trip (BullMQ addBulk); the same ids rule. */
  enqueueMany<N extends QueueName>(name: N, jobs: { data: JobPayloads[N]; jobId: string }[]): Promise<void>;
  startWorkers(processors: Processors, onFailed?: (name: QueueName, error: Error) => void): void;
  /**
   * Makes the queue's job schedulers exactly `schedules` (each task's first run is now) and
   * removes those of tasks no longer scheduled. Every instance calls it at start; the
   * schedulers are shared, so each period runs once.
   */
  schedule(schedules: Schedule[]): Promise<void>;
  /** The job schedulers in the queue: task, period and next run. */
  schedules(): Promise<{ task: string; everyMs: number; next?: number }[]>;
  /**
   * Opens every queue and, on PostgreSQL, waits until it and every started worker reached
   * the database. That backend remembers a failed first connection for good (the queue's
   * calls fail from then on; a worker spins on the failure and starves the event loop),
   * so a process whose queues did not come up must not start: this throws instead.
   */
  ready(): Promise<void>;
  /** Jobs per queue by state (waiting, active, delayed, failed), for the metrics. */
  counts(): Promise<Record<QueueName, Record<string, number>>>;
  /** Closes workers first (they finish the job in hand), then queues. */
  close(): Promise<void>;
}

/** How long closing waits for the workers (their jobs in hand) before cutting their connections; below server.ts's 20 s. */
const WORKER_CLOSE_GRACE_MS = 10_000;

const DEFAULT_JOB_OPTIONS: JobsOptions = {
  attempts: 6,
  backoff: { type: 'exponential', delay: 2000 },
  removeOnComplete: { count: 1000 },
  removeOnFail: { count: 5000 },
};

export interface QueueConnection {
  /** PostgreSQL connection string (used when no redisUrl). */
  connectionString: string;
  redisUrl?: string;
  /** Redis key prefix / PostgreSQL schema, so tests and deployments stay apart (see NAMESPACE_PATTERN). */
  namespace?: string;
  /** Queues retried on a schedule of their own instead of the default exponential backoff. */
  retrySchedules?: Partial<Record<QueueName, RetrySchedule>>;
}

/**
 * A fixed retry schedule: `delaysMs[n]` is the wait before attempt n + 1 (the first entry
 * delays the first attempt), so a job has `delaysMs.length` attempts; each wait gets up to
 * 10% of jitter. A processor that knows better (an HTTP `Retry-After`) throws an error
 * carrying `retryAfterMs`, which is waited instead when longer. A processor that must not
 * be retried throws BullMQ's UnrecoverableError.
 */
export interface RetrySchedule {
  delaysMs: number[];
}

/** Retry-After waits longer than this are cut to it (a receiver cannot park a delivery for days). */
const MAX_RETRY_AFTER_MS = 24 * 3600_000;

export function scheduledDelay(schedule: RetrySchedule, attemptsMade: number, error?: Error, random: () => number = Math.random): number {
  const base = schedule.delaysMs[Math.min(attemptsMade, schedule.delaysMs.length - 1)] ?? 0;
  const withJitter = Math.round(base * (1 + 0.1 * random()));
  const retryAfter = (error as { retryAfterMs?: unknown } | undefined)?.retryAfterMs;
  return typeof retryAfter === 'number' && retryAfter > withJitter ? Math.min(retryAfter, MAX_RETRY_AFTER_MS) : withJitter;
}

const SCHEDULE_BACKOFF = 'schedule';

function jobOptionsFor(schedule: RetrySchedule | undefined): JobsOptions {
  if (!schedule) return {};
  const first = schedule.delaysMs[0] ?? 0;
  return { attempts: Math.max(1, schedule.delaysMs.length), backoff: { type: SCHEDULE_BACKOFF }, ...(first > 0 ? { delay: first } : {}) };
}

function workerSettings(schedule: RetrySchedule | undefined) {
  if (!schedule) return {};
  return { settings: { backoffStrategy: (attemptsMade: number, _type?: string, error?: Error) => scheduledDelay(schedule, attemptsMade, error) } };
}

/**
 * A namespace is a Redis key prefix with REDIS_URL and a PostgreSQL schema name without it:
 * only what both take (BullMQ's PostgreSQL backend refuses anything but a simple identifier),
 * checked on both backends so a name that works with Redis cannot break the embedded default.
 */
export const NAMESPACE_PATTERN = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

export function assertNamespace(namespace: string): void {
  if (!NAMESPACE_PATTERN.test(namespace)) {
    throw new Error(
      `queue namespace ${JSON.stringify(namespace)} must be a letter or underscore, then letters, digits or underscores (at most 63): ` +
        'without REDIS_URL it is a PostgreSQL schema name',
    );
  }
}

/** A periodic task's run: one attempt (the next period is its retry), a short history. */
const MAINTENANCE_JOB_OPTIONS: JobsOptions = { attempts: 1, removeOnComplete: { count: 100 }, removeOnFail: { count: 100 } };

type JobFn = (job: { data: any; attemptsMade: number }) => Promise<void>;
interface QueueHandle {
  add: Queue['add'];
  addBulk: Queue['addBulk'];
  upsertJobScheduler: Queue['upsertJobScheduler'];
  removeJobScheduler(id: string): Promise<unknown>;
  getJobSchedulers(): Promise<{ key: string; every?: number | string | null; next?: number | null }[]>;
  getJobCounts(...states: string[]): Promise<Record<string, number>>;
  waitUntilReady(): Promise<unknown>;
  close(): Promise<void>;
}
interface WorkerHandle {
  on(event: 'failed' | 'error', fn: (...args: any[]) => void): void;
  waitUntilReady(): Promise<unknown>;
  close(): Promise<void>;
}
interface QueueClasses {
  queue(name: QueueName): QueueHandle;
  worker(name: QueueName, fn: JobFn): WorkerHandle;
}

function redisClasses(redisUrl: string, namespace: string, schedules: QueueConnection['retrySchedules'] & object, clients: Redis[]): QueueClasses {
  const connect = () => {
    const client = new Redis(redisUrl, { maxRetriesPerRequest: null, lazyConnect: false });
    clients.push(client);
    return client;
  };
  return {
    queue: (name) => new Queue(name, { connection: connect(), prefix: namespace, defaultJobOptions: DEFAULT_JOB_OPTIONS }) as unknown as QueueHandle,
    worker: (name, fn) => new Worker(name, fn, { connection: connect(), prefix: namespace, concurrency: 4, ...workerSettings(schedules[name]) }) as unknown as WorkerHandle,
  };
}

function postgresClasses(connectionString: string, namespace: string, schedules: QueueConnection['retrySchedules'] & object): QueueClasses {
  const pg = withBackend(createPostgresBackend);
  // SafeClient: a connection lost mid-query fails that query instead of ending the process.
  const connection = { connectionString, schema: namespace, migrate: true, max: 4, Client: SafeClient };
  return {
    queue: (name) => new pg.Queue(name, { connection, defaultJobOptions: DEFAULT_JOB_OPTIONS }) as unknown as QueueHandle,
    worker: (name, fn) => new pg.Worker(name, fn, { connection, concurrency: 4, ...workerSettings(schedules[name]) }) as unknown as WorkerHandle,
  };
}

function startQueueWorkers(classes: QueueClasses, processors: Processors, onFailed?: (name: QueueName, error: Error) => void): WorkerHandle[] {
  return QUEUE_NAMES.map((name) => {
    const processor = processors[name] as (data: unknown, attempt: number) => Promise<void>;
    const worker = classes.worker(name, (job) => processor(job.data, job.attemptsMade + 1));
    worker.on('failed', (_job: unknown, error: Error) => onFailed?.(name, error));
    // Connection trouble is retried by BullMQ; an unhandled 'error' event would crash us.
    worker.on('error', (error: Error) => onFailed?.(name, error));
    return worker;
  });
}

async function applySchedules(queue: QueueHandle, schedules: Schedule[]): Promise<void> {
  const wanted = new Set(schedules.map(({ task }) => schedulerId(task)));
  for (const { task, everyMs } of schedules) {
    await queue.upsertJobScheduler(schedulerId(task), { every: everyMs }, { name: 'maintenance', data: { task }, opts: MAINTENANCE_JOB_OPTIONS });
  }
  for (const { key } of await queue.getJobSchedulers()) {
    if (!wanted.has(key)) await queue.removeJobScheduler(key);
  }
}

/** Workers first (they finish the job in hand, within the grace period), then queues, then Redis. */
async function closeAll(workers: WorkerHandle[], queues: QueueHandle[], redisClients: Redis[]): Promise<void> {
  // After Redis restarted, an idle worker's close can wait for ever (BullMQ; close(true)
  // returns that same promise, and cutting its connections makes it spin). Past the
  // grace period closing goes on without it: the process is about to exit, and a job
  // still in hand is retried elsewhere (at least once).
  let timer: NodeJS.Timeout | undefined;
  const graceOver = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, WORKER_CLOSE_GRACE_MS);
    timer.unref();
  });
  await Promise.race([Promise.all(workers.map((w) => w.close())), graceOver]);
  clearTimeout(timer);
  await Promise.all(queues.map((q) => q.close()));
  await Promise.all(redisClients.map((c) => c.quit().catch(() => c.disconnect())));
}

export function createQueueSystem(connection: QueueConnection): QueueSystem {
  const namespace = connection.namespace ?? 'bullmq';
  assertNamespace(namespace);
  const retrySchedules = connection.retrySchedules ?? {};
  const redisClients: Redis[] = [];
  const classes = connection.redisUrl
    ? redisClasses(connection.redisUrl, namespace, retrySchedules, redisClients)
    : postgresClasses(connection.connectionString, namespace, retrySchedules);
  const queues = new Map<QueueName, QueueHandle>();
  const workers: WorkerHandle[] = [];
  const queueFor = (name: QueueName) => {
    let queue = queues.get(name);
    if (!queue) {
      queue = classes.queue(name);
      queues.set(name, queue);
    }
    return queue;
  };
  return {
    backend: connection.redisUrl ? 'redis' : 'postgres',
    async enqueue(name, data, jobId) {
      await queueFor(name).add(name, data, { jobId, ...jobOptionsFor(retrySchedules[name]) });
    },
    async enqueueMany(name, jobs) {
      if (jobs.length === 0) return;
      await queueFor(name).addBulk(jobs.map(({ data, jobId }) => ({ name, data, opts: { jobId, ...jobOptionsFor(retrySchedules[name]) } })));
    },
    startWorkers(processors, onFailed) {
      workers.push(...startQueueWorkers(classes, processors, onFailed));
    },
    schedule: (schedules) => applySchedules(queueFor('maintenance'), schedules),
    async schedules() {
      const found = await queueFor('maintenance').getJobSchedulers();
      return found.map(({ key, every, next }) => ({ task: key.replace(/^every-/, ''), everyMs: Number(every), ...(next ? { next } : {}) }));
    },
    async counts() {
      const entries = await Promise.all(QUEUE_NAMES.map(async (name) => [name, await queueFor(name).getJobCounts('waiting', 'active', 'delayed', 'failed')] as const));
      return Object.fromEntries(entries) as Record<QueueName, Record<string, number>>;
    },
    async ready() {
      // On Redis, ioredis reconnects by itself and BullMQ follows: nothing to wait for here
      // (a Redis still down must not keep the server from starting).
      if (!connection.redisUrl) await Promise.all([...QUEUE_NAMES.map(queueFor), ...workers].map((handle) => handle.waitUntilReady()));
    },
    close: () => closeAll(workers, [...queues.values()], redisClients),
  };
}
