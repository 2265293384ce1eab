/**
 * Monitoring reports as their owner reads them (docs/monitoring.md "Report"), for the dashboard, /v2
 * and the Monitor API V1. A report keeps record ids only: entries are read from the engine
 * when shown, so an entry removed since (entry removal) never appears. Entries follow the
 * reader's search rules, through the same functions as search: without search access no
 * values are shown (the counts are), `raw_record` only for law enforcement. A domain task's
 * entries are shown only while its owner has the domain verified (docs/monitoring.md "Domain
 * verification"): checked here, on every read, for every API.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import { Errors } from '../infra/errors';
import type { Engine, Entry } from '../../../engine/index';
import type { TaskKind } from '../common/monitoring-rules';
import type { ReportsPage } from '../common/monitoring-wire';
import { REPORT_CHART_DAYS, type ReportChart } from '../common/report-chart';
import { dashboardEntries } from '../search/search-service';
import { searchActive } from '../common/plan-status';
import { TASK_FIELD } from './matching';
import * as repo from './reports-repository';
import { domainGate } from './domain-verification-service';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Which wire shape a report's entries take: the dashboard search entry, or the public API entry. */
export type ReportViewer = 'dashboard' | 'api';

export interface ReportDetail<E> {
  id: string;
  created: Date;
  database_name: string;
  results: number;
  /** True when the reader has no search access: no entries are shown, counts are. */
  values_hidden: boolean;
  /** Per task; `domain_unverified`: a domain task whose domain is not verified now, so no entries (the count stays). */
  tasks: { task_id: string | null; key: TaskKind; value: string; results_count: number; entries: E[]; domain_unverified: boolean }[];
}

export type DashboardReportEntry = ReturnType<typeof dashboardEntries>[number];
/** A public API entry (/v2/search's shape): no `raw_record`, or for law enforcement `{le_only, unstructured}`. */
export type ApiReportEntry = Omit<Entry, 'raw_record'> & { raw_record?: { le_only: true; unstructured: string } };

export function createReportsService(deps: { db: Kysely<Database>; engine: Engine }) {
  const { db, engine } = deps;

  /**
   * The entries still there, in the report's order (removed or vanished ones left out), in
   * one engine call: as the dashboard shows them, or as the engine renders the public API's
   * (the same rendering as /v2/search).
   */
  async function entriesFor(ids: string[], viewer: ReportViewer, access: { subscribed: boolean; lawEnforcement: boolean }, kind: TaskKind) {
    if (!access.subscribed || ids.length === 0) return [];
    if (viewer === 'api') return JSON.parse((await engine.getManyApiText(ids, access.lawEnforcement)).entriesJson) as ApiReportEntry[];
    const entries = (await engine.getMany(ids)).filter((e): e is Entry => e !== null);
    return dashboardEntries(entries, access, TASK_FIELD[kind]);
  }

  async function listReports(userId: string, page: number, pageSize: number): Promise<ReportsPage> {
    const { rows, total } = await repo.listReports(db, userId, pageSize, (page - 1) * pageSize);
    const tasks = await repo.reportTasks(
      db,
      rows.map((r) => r.id),
    );
    return {
      reports: rows.map((r) => ({
        id: r.id,
        results: r.results,
        created: r.created.toISOString(),
        database_name: r.well_name,
        tasks: tasks.filter((t) => t.report_id === r.id).map((t) => ({ key: t.task_kind, value: t.task_value, results_count: t.results_count })),
      })),
      total_reports: total,
    };
  }

  function getReport(userId: string, reportId: string, viewer: 'dashboard'): Promise<ReportDetail<DashboardReportEntry>>;
  function getReport(userId: string, reportId: string, viewer: 'api'): Promise<ReportDetail<ApiReportEntry>>;
  /** One of the user's reports with its entries; 404 for an unknown id or another user's. */
  async function getReport(userId: string, reportId: string, viewer: ReportViewer): Promise<ReportDetail<DashboardReportEntry | ApiReportEntry>> {
    if (!UUID.test(reportId)) throw Errors.notFound();
    const [report, account] = await Promise.all([repo.findReport(db, userId, reportId), repo.viewerAccount(db, userId)]);
    if (!report || !account) throw Errors.notFound();
    const access = { subscribed: searchActive(account), lawEnforcement: account.law_enforcement };
    const verified = report.tasks.some((t) => t.task_kind === 'domain') ? await domainGate(db, userId) : () => true;
    const tasks = [];
    for (const task of report.tasks) {
      const domainUnverified = task.task_kind === 'domain' && !verified(task.task_value);
      tasks.push({
        task_id: task.task_id,
        key: task.task_kind,
        value: task.task_value,
        results_count: task.results_count,
        entries: domainUnverified ? [] : await entriesFor(task.record_ids, viewer, access, task.task_kind),
        domain_unverified: domainUnverified,
      });
    }
    return {
      id: report.id,
      created: report.created,
      database_name: report.well_name,
      results: report.results,
      values_hidden: !access.subscribed,
      tasks,
    };
  }

  /** The reports chart (docs/charts.md): matches per UTC day over the last REPORT_CHART_DAYS days. */
  async function chart(userId: string): Promise<ReportChart> {
    const days = await repo.reportsPerDay(db, userId, REPORT_CHART_DAYS);
    return {
      days,
      total_matches: days.reduce((n, d) => n + d.matches, 0),
      total_reports: days.reduce((n, d) => n + d.reports, 0),
    };
  }

  return { listReports, getReport, chart };
}

export type ReportsService = ReturnType<typeof createReportsService>;
