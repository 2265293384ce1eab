/**
 * The processors of the app's own queues, assembled from what each feature plugin registers
 * (`app.jobs.register('deliver', …)` in delivery's plugin). The runtime reads the table
 * once the app is ready; a queue nobody registered would leave its jobs waiting forever, so
 * building the table refuses it.
 */
import fp from 'fastify-plugin';
import { QUEUE_NAMES, type Processors, type QueueName } from './queues';

/** Every queue but mail, whose processor the runtime owns (the outbox is built before the app). */
export type AppQueueName = Exclude<QueueName, 'mail'>;
export type AppProcessors = Omit<Processors, 'mail'>;

export interface JobRegistry {
  /** The processor of `queue`; one per queue. */
  register<N extends AppQueueName>(queue: N, processor: Processors[N]): void;
  /** The whole table; throws when a queue has no processor. */
  processors(): AppProcessors;
}

declare module 'fastify' {
  interface FastifyInstance {
    jobs: JobRegistry;
  }
}

export function createJobRegistry(): JobRegistry {
  const table: Partial<AppProcessors> = {};
  return {
    register(queue, processor) {
      if (table[queue]) throw new Error(`queue ${queue} already has a processor`);
      table[queue] = processor as never;
    },
    processors() {
      const missing = QUEUE_NAMES.filter((name): name is AppQueueName => name !== 'mail' && !table[name]);
      if (missing.length) throw new Error(`no processor registered for the queue(s) ${missing.join(', ')}`);
      return table as AppProcessors;
    },
  };
}

export const jobsPlugin = fp(
  async (app) => {
    app.decorate('jobs', createJobRegistry());
  },
  { name: 'jobs', fastify: '5.x' },
);
