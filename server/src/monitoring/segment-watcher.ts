/**
 * Puts new segments into the `monitor-match` queue (docs/monitoring.md "Segment"): LISTEN on a
 * connection of its own for the ingest's `NOTIFY monitor_segments`, and a sweep (at start,
 * after each reconnect and every MONITOR_SWEEP_MS) of every segment still `pending` and
 * every delivery left pending for over a minute, so a lost notify, a crash or a Redis
 * restart only delays an alert. Every server does this; BullMQ keeps one job per id.
 */
import pg from 'pg';
import type { Kysely } from 'kysely';
import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../db/schema';
import type { QueueSystem } from '../infra/queues';
import * as repo from './matching-repository';

const RECONNECT_MS = 2000;
const SWEEP_LIMIT = 1000;
/** A delivery still pending after this long is queued again (its job was lost, or never made). */
export const STALE_DELIVERY_MS = 60_000;

export const matchJobId = (segmentId: string) => `match-${segmentId}`;

export interface SegmentWatcher {
  /** One sweep now (also what the timer runs). */
  sweep(): Promise<void>;
  close(): Promise<void>;
}

export function startSegmentWatcher(deps: {
  connectionString: string;
  db: Kysely<Database>;
  queues: QueueSystem;
  sweepMs: number;
  log: FastifyBaseLogger;
}): SegmentWatcher {
  const { db, queues, log } = deps;
  let closed = false;
  let client: pg.Client | undefined;
  let reconnectTimer: NodeJS.Timeout | undefined;

  const enqueueMatch = (segmentId: string) => queues.enqueue('monitor-match', { segmentId }, matchJobId(segmentId));

  async function sweep(): Promise<void> {
    const segments = await repo.pendingSegmentIds(db, SWEEP_LIMIT);
    await queues.enqueueMany(
      'monitor-match',
      segments.map((segmentId) => ({ data: { segmentId }, jobId: matchJobId(segmentId) })),
    );
    const deliveries = await repo.stalePendingDeliveries(db, STALE_DELIVERY_MS, SWEEP_LIMIT);
    await queues.enqueueMany(
      'deliver',
      deliveries.map((deliveryId) => ({ data: { deliveryId }, jobId: `deliver-${deliveryId}` })),
    );
  }

  let sweeping: Promise<void> | undefined;
  const sweepLogged = () => {
    // One sweep at a time; a tick that finds one running skips.
    sweeping ??= sweep()
      .catch((error: Error) => log.warn({ err: { message: error.message } }, 'monitoring sweep failed'))
      .finally(() => (sweeping = undefined));
    return sweeping;
  };

  function scheduleReconnect() {
    if (closed || reconnectTimer) return;
    reconnectTimer = setTimeout(() => {
      reconnectTimer = undefined;
      void connect();
    }, RECONNECT_MS);
    reconnectTimer.unref();
  }

  async function connect(): Promise<void> {
    if (closed) return;
    const next = new pg.Client({ connectionString: deps.connectionString });
    const lost = (error?: Error) => {
      if (client !== next) return;
      client = undefined;
      next.removeAllListeners('notification');
      void next.end().catch(() => {});
      if (!closed) {
        log.warn({ err: { message: error?.message ?? 'connection ended' } }, 'segment listener lost its connection; reconnecting');
        scheduleReconnect();
      }
    };
    next.on('error', lost);
    next.on('end', () => lost());
    next.on('notification', (message) => {
      if (message.channel !== repo.SEGMENT_CHANNEL || !message.payload) return;
      enqueueMatch(message.payload).catch((error: Error) => log.warn({ err: { message: error.message } }, 'queueing a segment match failed'));
    });
    client = next;
    try {
      await next.connect();
      await next.query(`LISTEN ${repo.SEGMENT_CHANNEL}`);
    } catch (error) {
      lost(error as Error);
      return;
    }
    if (closed) {
      await next.end().catch(() => {});
      return;
    }
    // Whatever was published while we were not listening.
    await sweepLogged();
  }

  void connect();
  const timer = setInterval(() => void sweepLogged(), deps.sweepMs);
  timer.unref();

  return {
    sweep: sweepLogged,
    async close() {
      closed = true;
      clearInterval(timer);
      if (reconnectTimer) clearTimeout(reconnectTimer);
      const current = client;
      client = undefined;
      await current?.end().catch(() => {});
      await sweeping;
    },
  };
}
