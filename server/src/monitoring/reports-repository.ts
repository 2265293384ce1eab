/** SQL of monitoring reports as their owner reads them (README "Report"). */
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import type { TaskKind } from '../common/monitoring-rules';

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
export async function listReports(db: Db, userId: string, limit: number, offset: number): Promise<{ rows: ReportRow[]; total: number }> {
  const [rows, count] = await Promise.all([
    db
      .selectFrom('monitor_reports')
      .select(['id', 'created', 'well_name', 'results'])
      .where('user_id', '=', userId)
      .orderBy('created', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .offset(offset)
      .execute(),
    db.selectFrom('monitor_reports').select((eb) => eb.fn.countAll<number>().as('n')).where('user_id', '=', userId).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.n) };
}

/** The tasks of these reports (without their record ids), in a stable order. */
export async function reportTasks(db: Db, reportIds: string[]): Promise<ReportTaskRow[]> {
  if (reportIds.length === 0) return [];
  const rows = await db
    .selectFrom('monitor_report_tasks')
    .select(['report_id', 'task_id', 'task_kind', 'task_value', 'results_count'])
    .where('report_id', 'in', reportIds)
    .orderBy('report_id')
    .orderBy('task_kind')
    .orderBy('task_value')
    .execute();
  return rows.map((r) => ({ ...r, task_id: r.task_id === null ? null : String(r.task_id) }));
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
  const tasks = await db
    .selectFrom('monitor_report_tasks')
    .select(['task_id', 'task_kind', 'task_value', 'results_count', 'record_ids'])
    .where('report_id', '=', reportId)
    .orderBy('task_kind')
    .orderBy('task_value')
    .execute();
  return { ...report, tasks: tasks.map((t) => ({ ...t, task_id: t.task_id === null ? null : String(t.task_id) })) };
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
