/**
 * How a published message reaches every server instance's sockets. With Redis (REDIS_URL),
 * one pub/sub topic per namespace: each instance subscribes once and delivers what arrives
 * to its own sockets, so a payment applied by a worker on instance B reaches the browser
 * connected to instance A. Without Redis there is one instance: delivered in process.
 */
import { Redis } from 'ioredis';

export type Deliver = (channel: string, data: unknown) => void;

export interface RealtimeBus {
  publish(channel: string, data: unknown): Promise<void>;
  close(): Promise<void>;
}

export function createInProcessBus(deliver: Deliver): RealtimeBus {
  return {
    async publish(channel, data) {
      deliver(channel, data);
    },
    async close() {},
  };
}

export async function createRedisBus(options: { redisUrl: string; namespace: string; deliver: Deliver; onError(error: Error): void }): Promise<RealtimeBus> {
  const topic = `${options.namespace}:realtime`;
  const publisher = new Redis(options.redisUrl, { maxRetriesPerRequest: 2 });
  // A subscribed connection can do nothing else: a second one, resubscribed on reconnect by ioredis.
  const subscriber = new Redis(options.redisUrl, { maxRetriesPerRequest: null });
  publisher.on('error', options.onError);
  subscriber.on('error', options.onError);
  subscriber.on('message', (_topic: string, text: string) => {
    try {
      const { channel, data } = JSON.parse(text) as { channel: string; data: unknown };
      options.deliver(channel, data);
    } catch (error) {
      options.onError(error as Error);
    }
  });
  await subscriber.subscribe(topic);
  return {
    async publish(channel, data) {
      await publisher.publish(topic, JSON.stringify({ channel, data }));
    },
    async close() {
      await Promise.all([publisher, subscriber].map((client) => client.quit().catch(() => client.disconnect())));
    },
  };
}
