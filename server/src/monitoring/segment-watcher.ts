/**
 * Puts new segments into the `monitor-match` queue (docs/monitoring.md "Segment"): LISTEN on a
 * connection of its own for the ingest's `NOTIFY monitor_segments`, and a sweep of every
 * segment still `pending` and every delivery left pending for over a minute, so a lost
 * notify, a crash or a Redis restart only delays an alert. Each server sweeps when it starts
 * listening (at start, after each reconnect: what was published meanwhile); the periodic
 * task `monitor-sweep` sweeps every MONITOR_SWEEP_MS on one of them. BullMQ keeps one job
 * per id. The listening connection is segment-listener.ts.
 */
import type { Kysely } from 'kysely';
import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../db/schema';
import type { QueueSystem } from '../infra/queues';
import * as repo from './matching-repository';
import { listenForSegments } from './segment-listener';

const SWEEP_LIMIT = 1000;
/** A delivery still pending after this long is queued again (its job was lost, or never made). */
export const STALE_DELIVERY_MS = 60_000;

export const matchJobId = (segmentId: string) => `match-${segmentId}`;

export interface SegmentWatcher {
  /** One sweep now. */
  sweep(): Promise<void>;
  close(): Promise<void>;
}

/** Every segment still `pending` into the match queue, every stale pending delivery into the deliver queue (the `monitor-sweep` task). */
export async function sweepPending(db: Kysely<Database>, queues: QueueSystem): Promise<void> {
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

export function startSegmentWatcher(deps: {
  connectionString: string;
  db: Kysely<Database>;
  queues: QueueSystem;
  log: FastifyBaseLogger;
}): SegmentWatcher {
  const { db, queues, log } = deps;

  const enqueueMatch = (segmentId: string) => queues.enqueue('monitor-match', { segmentId }, matchJobId(segmentId));

  let sweeping: Promise<void> | undefined;
  const sweepLogged = () => {
    // One sweep at a time: a reconnect during one joins it.
    sweeping ??= sweepPending(db, queues)
      .catch((error: Error) => log.warn({ err: { message: error.message } }, 'monitoring sweep failed'))
      .finally(() => (sweeping = undefined));
    return sweeping;
  };

  const listener = listenForSegments({
    connectionString: deps.connectionString,
    log,
    onSegment: (segmentId) => {
      enqueueMatch(segmentId).catch((error: Error) => log.warn({ err: { message: error.message } }, 'queueing a segment match failed'));
    },
    // Whatever was published while we were not listening.
    onListening: sweepLogged,
  });

  return {
    sweep: sweepLogged,
    async close() {
      await listener.close();
      await sweeping;
    },
  };
}
