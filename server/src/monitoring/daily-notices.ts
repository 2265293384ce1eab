/**
 * The daily notices (docs/monitoring.md "Notification"): plans about to end without renewing and low
 * credits, once per user, kind and day (dedupe key `kind:user:YYYYMMDD`), each only when
 * the user's setting (users.notify_*) allows it. The periodic `monitor-daily` task enqueues
 * the `monitor-daily` job with jobId `daily-YYYYMMDD` every hour, so the day's job runs once
 * however often it is asked for (a rerun writes nothing new either).
 */
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import type { QueueSystem } from '../infra/queues';
import * as repo from './daily-notices-repository';
import type { DailyNoticeKind, DailyNoticeSettings } from './daily-notices-repository';

/** How often the day's job is asked for: a day begins within an hour of its first notice. */
export const DAILY_NOTICES_EVERY_MS = 3_600_000;

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

/** Enqueues today's job (the `monitor-daily` task's run; the day's job id keeps it to one run a day). */
export async function enqueueDailyNotices(queues: QueueSystem): Promise<void> {
  const day = dayKey();
  await queues.enqueue('monitor-daily', { day }, `daily-${day}`);
}
