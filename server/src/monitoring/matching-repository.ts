/**
 * SQL of monitoring's matching (docs/monitoring.md "Segment", "Report"): the segments the ingest
 * records, the active tasks matched against them, one report per user and segment with
 * its notice and deliveries, and the sweeps that put what is still pending into the queues.
 */
import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema';
import type { TaskKind } from '../common/monitoring-rules';

type Db = Kysely<Database>;

/** The channel of `NOTIFY` the ingest sends a new segment's id on (servers LISTEN). */
export const SEGMENT_CHANNEL = 'monitor_segments';

export interface PublishedSegment {
  segmentId: string;
  well: string;
  records: number;
}

/**
 * Records a published ingest segment for matching and tells the servers (NOTIFY, sent when
 * the caller's transaction commits). A segment recorded before (a replay, a baseline) is
 * left as it is, so it is never matched twice. True when it was new.
 */
export async function recordSegment(db: Db, segment: PublishedSegment): Promise<boolean> {
  const row = await db
    .insertInto('monitor_segments')
    .values({ segment_id: segment.segmentId, well_name: segment.well, records: segment.records })
    .onConflict((oc) => oc.column('segment_id').doNothing())
    .returning('segment_id')
    .executeTakeFirst();
  if (!row) return false;
  await sql`select pg_notify(${SEGMENT_CHANNEL}, ${segment.segmentId})`.execute(db);
  return true;
}

export async function findSegment(db: Db, segmentId: string) {
  return db
    .selectFrom('monitor_segments')
    .select(['segment_id', 'well_name', 'status'])
    .where('segment_id', '=', segmentId)
    .executeTakeFirst();
}

/** Segments not matched yet, oldest first. */
export async function pendingSegmentIds(db: Db, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('monitor_segments')
    .select('segment_id')
    .where('status', '=', 'pending')
    .orderBy('published_at')
    .limit(limit)
    .execute();
  return rows.map((r) => r.segment_id);
}

export async function markSegmentMatched(db: Db, segmentId: string, tasksMatched: number): Promise<void> {
  await db
    .updateTable('monitor_segments')
    .set({ status: 'matched', matched_at: sql`now()`, tasks_matched: tasksMatched })
    .where('segment_id', '=', segmentId)
    .where('status', '<>', 'baseline')
    .execute();
}

/** The active tasks of open (not suspended) accounts as the engine needs them: per kind, the ids and normalised values (same order). */
export interface WatchedTasks {
  kind: TaskKind;
  ids: string[];
  values: string[];
}

/**
 * Every active task of an open account, only what matching needs (id, kind, match_value),
 * in one query that answers one row per kind: the ids as one comma-separated text and the
 * values as one JSON array (parsed by JSON.parse: far cheaper than 100,000 rows through
 * the driver). Both aggregates of a group are fed the same rows in the same order.
 */
export async function watchedTasks(db: Db): Promise<WatchedTasks[]> {
  const { rows } = await sql<{ kind: TaskKind; ids: string; vals: string }>`
    select t.kind, string_agg(t.id::text, ',') as ids, json_agg(t.match_value)::text as vals
      from monitor_tasks t
      join users u on u.id = t.user_id
     where t.active and u.closed_at is null and u.suspended_at is null
     group by t.kind`.execute(db);
  return rows.map((r) => {
    const ids = r.ids.split(',');
    const values = JSON.parse(r.vals) as string[];
    if (ids.length !== values.length) throw new Error('watchedTasks: ids and values differ in length');
    return { kind: r.kind, ids, values };
  });
}

export interface MatchedTask {
  id: string;
  user_id: string;
  kind: TaskKind;
  value: string;
}

/** The owner and value (as entered) of the given tasks, those still active in an open account. */
export async function matchedTaskDetails(db: Db, ids: string[]): Promise<MatchedTask[]> {
  if (ids.length === 0) return [];
  const { rows } = await sql<MatchedTask>`
    select t.id::text as id, t.user_id, t.kind, t.value
      from monitor_tasks t
      join users u on u.id = t.user_id
     where t.id = any(${ids}::bigint[]) and t.active and u.closed_at is null and u.suspended_at is null`.execute(db);
  return rows;
}

export interface ReportTaskInput {
  taskId: string;
  kind: TaskKind;
  value: string;
  resultsCount: number;
  recordIds: string[];
}

/** Where a report's notice points; the report id follows. */
export const REPORT_LINK_PREFIX = '/monitoring/reports/';

export interface UserReportInput {
  userId: string;
  tasks: ReportTaskInput[];
}

/**
 * Several users' reports of one segment in one statement (one transaction, one round trip):
 * per user the report (unique per user and segment), its tasks, the inbox notice (its link
 * names the report) and a delivery per active channel with a value. Only reports this
 * statement inserted get tasks, a notice and deliveries: a user whose report exists already
 * (a job run twice) gets nothing new. Answers the number of reports written.
 */
export async function writeReports(
  db: Db,
  input: { segmentId: string; well: string; reports: UserReportInput[]; notice: (results: number) => string },
): Promise<number> {
  if (input.reports.length === 0) return 0;
  const reports = JSON.stringify(
    input.reports.map((r) => {
      const results = r.tasks.reduce((sum, t) => sum + t.resultsCount, 0);
      return {
        user_id: r.userId,
        results,
        notice: input.notice(results),
        tasks: r.tasks.map((t) => ({ task_id: t.taskId, kind: t.kind, value: t.value, results_count: t.resultsCount, record_ids: t.recordIds })),
      };
    }),
  );
  const { rows } = await sql<{ written: string }>`
    with input as (
      select i.user_id, i.results, i.notice, i.tasks
        from jsonb_to_recordset(${reports}::jsonb) as i(user_id uuid, results integer, notice text, tasks jsonb)
    ), report as (
      insert into monitor_reports (user_id, segment_id, well_name, results)
      select i.user_id, ${input.segmentId}::text, ${input.well}::text, i.results from input i order by i.user_id
      on conflict (user_id, segment_id) do nothing
      returning id, user_id
    ), tasks as (
      insert into monitor_report_tasks (report_id, task_id, task_kind, task_value, results_count, record_ids)
      select report.id, t.task_id, t.kind, t.value, t.results_count, array(select jsonb_array_elements_text(t.record_ids))
        from report
        join input i on i.user_id = report.user_id
        cross join lateral jsonb_to_recordset(i.tasks) as t(task_id bigint, kind text, value text, results_count integer, record_ids jsonb)
      on conflict do nothing
    ), notice as (
      insert into notifications (user_id, type, data, link)
      select report.user_id, 'report', i.notice, ${REPORT_LINK_PREFIX}::text || report.id::text
        from report join input i on i.user_id = report.user_id
    ), delivered as (
      insert into deliveries (user_id, report_id, channel_id, kind, target)
      select c.user_id, report.id, c.id, c.kind, c.value
        from report join notification_channels c on c.user_id = report.user_id
       where c.active and c.value <> ''
      on conflict (report_id, channel_id) do nothing
    )
    select count(*)::text as written from report`.execute(db);
  return Number(rows[0]?.written ?? 0);
}

/** The pending deliveries of one segment's reports (delivery ids). */
export async function pendingDeliveriesOfSegment(db: Db, segmentId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('deliveries as d')
    .innerJoin('monitor_reports as r', 'r.id', 'd.report_id')
    .select('d.id')
    .where('r.segment_id', '=', segmentId)
    .where('d.status', '=', 'pending')
    .execute();
  return rows.map((r) => r.id);
}

/** Pending deliveries created more than `olderThanMs` ago (not queued or lost), oldest first. */
export async function stalePendingDeliveries(db: Db, olderThanMs: number, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('deliveries')
    .select('id')
    .where('status', '=', 'pending')
    .where('created', '<', sql<Date>`now() - make_interval(secs => ${olderThanMs / 1000})`)
    .orderBy('created')
    .limit(limit)
    .execute();
  return rows.map((r) => r.id);
}
