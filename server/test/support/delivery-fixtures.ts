/**
 * Shared by the delivery tests: an alert written straight into the tables (user, channel,
 * report, delivery) and put on the `deliver` queue as the match job does, a loopback
 * webhook receiver whose answers each test scripts, and the job backends to run on.
 */
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { createQueueSystem, type QueueSystem } from '../../src/infra/queues';
import { webhookRetryDelays } from '../../src/delivery/deliver';
import { eventually, type TestServer } from './harness';

/** PostgreSQL always; Redis too when the run has one (CI does). */
export const BACKENDS: ('postgres' | 'redis')[] = process.env.TEST_REDIS_URL ? ['postgres', 'redis'] : ['postgres'];

/** Fast schedule for tests: three attempts, the retries 50 and 100 ms apart. */
export const FAST_DELIVERY_ENV = {
  WEBHOOK_RETRY_DELAYS_MS: '0,50,100',
  WEBHOOK_TIMEOUT_MS: '1000',
  WEBHOOK_ALLOW_PRIVATE: 'true',
};

export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** A queue client of the test server's own queues (same database or Redis, same namespace). */
export function queueClient(server: Pick<TestServer, 'runtime' | 'namespace'>): QueueSystem {
  const config = server.runtime.config;
  return createQueueSystem({
    connectionString: server.runtime.connectionString,
    redisUrl: config.REDIS_URL,
    namespace: server.namespace,
    retrySchedules: { deliver: { delaysMs: webhookRetryDelays(config) } },
  });
}

export interface Alert {
  userId: string;
  userEmail: string;
  channelId: string;
  reportId: string;
  deliveryId: string;
}

/** What createAlert needs of a server: its database and a way to open an account. */
export type AlertTarget = Pick<TestServer, 'runtime' | 'createUser'>;

/** A user (or the given one) with one channel, a report and its pending delivery, queued. */
export async function createAlert(
  server: AlertTarget,
  queues: QueueSystem,
  channel: { kind: 'webhook' | 'email' | 'phone'; value: string; secret?: string },
  user?: { id: string; email: string },
): Promise<Alert> {
  const db = server.runtime.db;
  const owner = user ?? (await server.createUser());
  const row = await db
    .insertInto('notification_channels')
    // An email channel confirmed already (channel confirmation has tests of its own).
    .values({ user_id: owner.id, kind: channel.kind, value: channel.value, secret: channel.secret ?? null, verified_at: channel.kind === 'email' ? new Date() : null })
    .returning('id')
    .executeTakeFirstOrThrow();
  const report = await db
    .insertInto('monitor_reports')
    .values({ user_id: owner.id, segment_id: `seg-${randomBytes(4).toString('hex')}`, well_name: 'Example Breach 2026', results: 3 })
    .returning('id')
    .executeTakeFirstOrThrow();
  const delivery = await db
    .insertInto('deliveries')
    .values({ user_id: owner.id, report_id: report.id, channel_id: String(row.id), kind: channel.kind, target: channel.value })
    .returning('id')
    .executeTakeFirstOrThrow();
  await queues.enqueue('deliver', { deliveryId: delivery.id }, `deliver-${delivery.id}`);
  return { userId: owner.id, userEmail: owner.email, channelId: String(row.id), reportId: report.id, deliveryId: delivery.id };
}

/** A report for an existing channel of `userId`, and its pending delivery, queued. */
export async function alertTo(server: Pick<TestServer, 'runtime'>, queues: QueueSystem, userId: string, channel: { id: string; kind: string; value: string }) {
  const db = server.runtime.db;
  const report = await db
    .insertInto('monitor_reports')
    .values({ user_id: userId, segment_id: `seg-${randomBytes(4).toString('hex')}`, well_name: 'Example Breach 2026', results: 3 })
    .returning('id')
    .executeTakeFirstOrThrow();
  const delivery = await db
    .insertInto('deliveries')
    .values({ user_id: userId, report_id: report.id, channel_id: channel.id, kind: channel.kind as 'email', target: channel.value })
    .returning('id')
    .executeTakeFirstOrThrow();
  await queues.enqueue('deliver', { deliveryId: delivery.id }, `deliver-${delivery.id}`);
  return { reportId: report.id, deliveryId: delivery.id };
}

export async function deliveryRow(server: Pick<TestServer, 'runtime'>, deliveryId: string) {
  return server.runtime.db.selectFrom('deliveries').selectAll().where('id', '=', deliveryId).executeTakeFirstOrThrow();
}

export async function attemptsOf(server: Pick<TestServer, 'runtime'>, deliveryId: string) {
  return server.runtime.db.selectFrom('delivery_attempts').selectAll().where('delivery_id', '=', deliveryId).orderBy('n').execute();
}

/** Waits until the delivery leaves `pending`; returns its row. */
export async function settled(server: Pick<TestServer, 'runtime'>, deliveryId: string, timeoutMs = 15_000) {
  return eventually(async () => {
    const row = await deliveryRow(server, deliveryId);
    return row.status !== 'pending' ? row : undefined;
  }, timeoutMs);
}

export interface ReceivedRequest {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  at: number;
}

/** What the receiver does with its n-th request (from 0): answer, or hold it. */
export type ReceiverAction = {
  status: number;
  body?: string | Buffer;
  headers?: Record<string, string>;
  delayMs?: number;
  /** Never answers (until closed). */
  hang?: boolean;
  /** Sends the status, then body bytes without end (until the client goes away). */
  endless?: boolean;
};

export interface Receiver {
  url: string;
  port: number;
  requests: ReceivedRequest[];
  close(): Promise<void>;
}

export async function startReceiver(answer: (n: number, request: ReceivedRequest) => ReceiverAction = () => ({ status: 200 })): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  const held: http.ServerResponse[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const received = { path: req.url ?? '/', headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
      const n = requests.push(received) - 1;
      const action = answer(n, received);
      if (action.hang) {
        held.push(res);
        return;
      }
      if (action.endless) {
        res.writeHead(action.status, { 'content-type': 'application/octet-stream' });
        const chunk = Buffer.alloc(64 * 1024, 120);
        const pump = () => {
          while (!res.destroyed && res.write(chunk));
          if (!res.destroyed) res.once('drain', pump);
        };
        res.on('close', () => res.removeAllListeners('drain'));
        pump();
        return;
      }
      const respond = () => {
        res.writeHead(action.status, action.headers ?? {});
        res.end(action.body ?? '');
      };
      if (action.delayMs) setTimeout(respond, action.delayMs);
      else respond();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    port,
    requests,
    async close() {
      for (const res of held) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
