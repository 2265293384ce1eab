/** SQL of monitoring reports as their owner reads them (docs/monitoring.md "Report"). */
import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema';
import type { TaskKind } from '../common/monitoring-rules';
import { newestFirstPage } from './user-pages-repository';

type Db = Kysely<Database>;

export interface ReportRow {
  id: string;
  created: Date;
  well_name: string;
  results: number;
}

export interface ReportTaskRow {
  report_id: string;
  task_id: string | null;
  task_kind: TaskKind;
  task_value: string;
  results_count: number;
}

/** A page of the user's reports, newest first, with the whole count. */
export function listReports(db: Db, userId: string, limit: number, offset: number): Promise<{ rows: ReportRow[]; total: number }> {
  return newestFirstPage(db, 'monitor_reports', userId, (q) => q.select(['id', 'created', 'well_name', 'results']), { limit, offset });
}

/** The query of these reports' tasks in a stable order (by report, kind, value); record ids only when the caller selects them. */
function tasksQuery(db: Db, reportIds: string[]) {
  return db
    .selectFrom('monitor_report_tasks')
    .select(['report_id', 'task_id', 'task_kind', 'task_value', 'results_count'])
    .where('report_id', 'in', reportIds)
    .orderBy('report_id')
    .orderBy('task_kind')
    .orderBy('task_value');
}

/** A task's id as text; null once the task is deleted. */
function withTextTaskId<T extends { task_id: string | null }>(row: T): T {
  return { ...row, task_id: row.task_id === null ? null : String(row.task_id) };
}

/** The tasks of these reports (without their record ids), in a stable order. */
export async function reportTasks(db: Db, reportIds: string[]): Promise<ReportTaskRow[]> {
  if (reportIds.length === 0) return [];
  return (await tasksQuery(db, reportIds).execute()).map(withTextTaskId);
}

/** One report of this user (undefined for another user's or an unknown id), with its tasks and their record ids. */
export async function findReport(db: Db, userId: string, reportId: string) {
  const report = await db
    .selectFrom('monitor_reports')
    .select(['id', 'created', 'well_name', 'results'])
    .where('id', '=', reportId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  if (!report) return undefined;
  const tasks = await tasksQuery(db, [reportId]).select('record_ids').execute();
  return { ...report, tasks: tasks.map(withTextTaskId) };
}

/** What decides how entries are shown to this user (search access, law enforcement). */
export async function viewerAccount(db: Db, userId: string) {
  return db
    .selectFrom('users')
    .select(['elevated', 'search_subscribed_until', 'law_enforcement'])
    .where('id', '=', userId)
    .where('closed_at', 'is', null)
    .executeTakeFirst();
}

/**
 * The user's reports per UTC day of their `created`, over the `days` days ending today (UTC),
 * oldest first, a day without a report at 0: the matches (the reports' `results`, every
 * task counted) and the reports. Read through the (user_id, created) index.
 */
export async function reportsPerDay(db: Db, userId: string, days: number): Promise<{ day: string; matches: number; reports: number }[]> {
  const { rows } = await sql<{ day: string; matches: string; reports: string }>`
    with period as (
      select generate_series(timezone('UTC', now())::date - ${days - 1}::int, timezone('UTC', now())::date, interval '1 day')::date as day
    ), per_day as (
      select timezone('UTC', created)::date as day, sum(results) as matches, count(*) as reports
      from monitor_reports
      where user_id = ${userId} and created >= (timezone('UTC', now())::date - ${days - 1}::int)::timestamp at time zone 'UTC'
      group by 1
    )
    select to_char(period.day, 'YYYY-MM-DD') as day, coalesce(per_day.matches, 0) as matches, coalesce(per_day.reports, 0) as reports
    from period left join per_day on per_day.day = period.day
    order by period.day`.execute(db);
  return rows.map((r) => ({ day: r.day, matches: Number(r.matches), reports: Number(r.reports) }));
}
