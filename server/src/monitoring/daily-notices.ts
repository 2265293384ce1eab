/**
 * The daily notices (docs/monitoring.md "Notification"): plans about to end without renewing and low
 * credits, once per user, kind and day (dedupe key `kind:user:YYYYMMDD`), each only when
 * the user's setting (users.notify_*) allows it. An in-process timer enqueues the
 * `monitor-daily` job with jobId `daily-YYYYMMDD` at start and every hour, so every server
 * may do so and the day's job still runs once (a rerun writes nothing new either).
 */
import type { Kysely } from 'kysely';
import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../db/schema';
import type { QueueSystem } from '../infra/queues';
import * as repo from './daily-notices-repository';
import type { DailyNoticeKind, DailyNoticeSettings } from './daily-notices-repository';

const TICK_MS = 3_600_000;

/** The UTC day as YYYYMMDD. */
export function dayKey(date = new Date()): string {
  return date.toISOString().slice(0, 10).replaceAll('-', '');
}

export type { DailyNoticeKind, DailyNoticeSettings } from './daily-notices-repository';
/** Writes the notices of `day` (YYYYMMDD); returns how many of each were new (a rerun writes none). */
export async function writeDailyNotices(db: Kysely<Database>, day: string, settings: DailyNoticeSettings): Promise<Record<DailyNoticeKind, number>> {
  if (!/^\d{8}$/.test(day)) throw new Error(`bad day ${day}`);
  return repo.insertDailyNotices(db, day, settings);
}

/** Enqueues today's job now and every hour (the day's job id keeps it to one run a day). */
export function startDailyNotices(deps: { queues: QueueSystem; log: FastifyBaseLogger }): { close(): void } {
  const enqueue = () => {
    const day = dayKey();
    deps.queues.enqueue('monitor-daily', { day }, `daily-${day}`).catch((error: Error) => deps.log.warn({ err: { message: error.message } }, 'queueing the daily notices failed'));
  };
  enqueue();
  const timer = setInterval(enqueue, TICK_MS);
  timer.unref();
  return { close: () => clearInterval(timer) };
}
