/**
 * The processors of the app's own queues, assembled from what each feature plugin registers
 * (`app.jobs.register('deliver', …)` in delivery's plugin), and the periodic tasks
 * (`app.jobs.every('whois-sweep', …)`), which run as jobs of the `maintenance` queue. The
 * runtime reads the table once the app is ready; a queue nobody registered would leave its
 * jobs waiting forever, so building the table refuses it.
 */
import fp from 'fastify-plugin';
import { UnrecoverableError } from 'bullmq';
import { QUEUE_NAMES, type MaintenanceTask, type Processors, type QueueName, type Schedule } from './queues';

/** Every queue but mail, whose processor the runtime owns (the outbox is built before the app), and maintenance, made from the tasks. */
export type AppQueueName = Exclude<QueueName, 'mail' | 'maintenance'>;
export type AppProcessors = Omit<Processors, 'mail'>;

export interface JobRegistry {
  /** The processor of `queue`; one per queue. */
  register<N extends AppQueueName>(queue: N, processor: Processors[N]): void;
  /** A task run every `everyMs` by one instance (its job scheduler); one registration per task. */
  every(task: MaintenanceTask, everyMs: number, run: () => Promise<unknown>): void;
  /** The whole table; throws when a queue has no processor. */
  processors(): AppProcessors;
  /** The registered tasks and their periods, for QueueSystem.schedule. */
  schedules(): Schedule[];
}

declare module 'fastify' {
  interface FastifyInstance {
    jobs: JobRegistry;
  }
}

export function createJobRegistry(): JobRegistry {
  const table: Partial<AppProcessors> = {};
  const tasks = new Map<MaintenanceTask, { everyMs: number; run: () => Promise<unknown> }>();
  const maintenance: Processors['maintenance'] = async ({ task }) => {
    const entry = tasks.get(task);
    // A scheduler left by another version of the app: nothing here can run it, and retrying will not help.
    if (!entry) throw new UnrecoverableError(`no periodic task ${task}`);
    await entry.run();
  };
  return {
    register(queue, processor) {
      if (table[queue]) throw new Error(`queue ${queue} already has a processor`);
      table[queue] = processor as never;
    },
    every(task, everyMs, run) {
      if (tasks.has(task)) throw new Error(`periodic task ${task} is already registered`);
      tasks.set(task, { everyMs, run });
    },
    processors() {
      const missing = QUEUE_NAMES.filter((name): name is AppQueueName => name !== 'mail' && name !== 'maintenance' && !table[name as AppQueueName]);
      if (missing.length) throw new Error(`no processor registered for the queue(s) ${missing.join(', ')}`);
      return { ...table, maintenance } as AppProcessors;
    },
    schedules: () => [...tasks].map(([task, { everyMs }]) => ({ task, everyMs })),
  };
}

export const jobsPlugin = fp(
  async (app) => {
    app.decorate('jobs', createJobRegistry());
  },
  { name: 'jobs', fastify: '5.x' },
);
