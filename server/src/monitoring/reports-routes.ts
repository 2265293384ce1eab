/** The dashboard's report calls (shapes in docs/monitoring.md "Calls"). */
import type { FastifyInstance } from 'fastify';
import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Static } from 'typebox';
import { REPORTS_PAGE_SIZE, TASK_KINDS, type TaskKind as TaskKindName } from '../common/monitoring-rules';
import { SearchRecord } from '../search/search-schemas';
import type { Report, ReportRecord as ReportRecordWire, ReportSummary as ReportSummaryWire } from '../common/monitoring-wire';
import type { DashboardReportEntry, ReportsService } from './reports-service';
import { wireSchema } from './wire-schema';
import { ErrorBody } from '../infra/errors';
import { REPORT_CHART_DAYS, type ReportChart as ReportChartWire } from '../common/report-chart';

const TaskKind = Type.Unsafe<TaskKindName>({ type: 'string', enum: [...TASK_KINDS] });

const ReportSummary = wireSchema<ReportSummaryWire>()(
  Type.Object({
    id: Type.String(),
    results: Type.Integer({ description: 'Matching records, every task counted.' }),
    created: Type.String({ description: 'ISO 8601.' }),
    database_name: Type.String({ description: 'The data well the segment belongs to.' }),
    tasks: Type.Array(Type.Object({ key: TaskKind, value: Type.String(), results_count: Type.Integer() })),
  }),
);

const ReportRecord = wireSchema<ReportRecordWire<Static<typeof SearchRecord>>>()(
  Type.Object({
    task_type: TaskKind,
    task_value: Type.String(),
    key: TaskKind,
    value: Type.String(),
    results_count: Type.Integer({ description: 'Every matching record; `data` holds at most the first 1,000 still there.' }),
    data: Type.Array(SearchRecord),
    domain_unverified: Type.Optional(Type.Boolean({ description: 'Present (true) on a domain task whose domain is not verified: `data` is empty until it is.' })),
  }),
);

const ReportChart = wireSchema<ReportChartWire>()(
  Type.Object({
    days: Type.Array(
      Type.Object({
        day: Type.String({ description: 'YYYY-MM-DD, a UTC day.' }),
        matches: Type.Integer({ description: 'Matching records of the reports written that day, every task counted.' }),
        reports: Type.Integer(),
      }),
      { description: `The last ${REPORT_CHART_DAYS} UTC days, today included, oldest first.` },
    ),
    total_matches: Type.Integer(),
    total_reports: Type.Integer(),
  }),
);

/** GET /monitoring/report-chart: the reports screen's chart, in one request. */
function registerReportChartRoute(app: FastifyInstance, deps: { reports: ReportsService }) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.get(
    '/monitoring/report-chart',
    {
      onRequest: [app.authenticate],
      schema: {
        operationId: 'monitoringReportChart',
        tags: ['monitoring'],
        security: [{ bearer: [] }],
        summary: `Matches per UTC day of the caller’s monitoring reports over the last ${REPORT_CHART_DAYS} days (days without one at 0).`,
        response: { 200: ReportChart, 401: ErrorBody },
      },
    },
    (request) => deps.reports.chart(request.user.sub),
  );
}

export function registerReportsRoutes(app: FastifyInstance, deps: { reports: ReportsService }) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const security = [{ bearer: [] }];
  registerReportChartRoute(app, deps);

  r.post(
    '/monitoring/reports/get-reports',
    {
      onRequest: [app.authenticate],
      schema: {
        operationId: 'monitoringGetReports',
        tags: ['monitoring'],
        security,
        summary: 'A page of the caller’s monitoring reports, newest first.',
        body: Type.Object(
          {
            page: Type.Integer({ minimum: 1, maximum: 100_000, default: 1 }),
            page_size: Type.Integer({ minimum: 1, maximum: REPORTS_PAGE_SIZE, default: REPORTS_PAGE_SIZE }),
          },
          { additionalProperties: false },
        ),
        response: { 200: Type.Object({ reports: Type.Array(ReportSummary), total_reports: Type.Integer() }), 400: ErrorBody, 401: ErrorBody },
      },
    },
    (request) => deps.reports.listReports(request.user.sub, request.body.page, request.body.page_size),
  );

  r.post(
    '/monitoring/reports/get-report',
    {
      onRequest: [app.authenticate],
      schema: {
        operationId: 'monitoringGetReport',
        tags: ['monitoring'],
        security,
        summary:
          'One report with its records per task. Entries follow the caller’s search rules: none without search access (`values_hidden`), none for a domain task whose domain is not verified (`domain_unverified`), raw records for law enforcement only. 404 for an id that is not the caller’s.',
        body: Type.Object({ id: Type.String({ maxLength: 64 }) }, { additionalProperties: false }),
        response: {
          200: Type.Object({
            id: Type.String(),
            created: Type.String(),
            database_name: Type.String(),
            results: Type.Integer(),
            values_hidden: Type.Boolean(),
            records: Type.Array(ReportRecord),
          }),
          400: ErrorBody,
          401: ErrorBody,
          404: ErrorBody,
        },
      },
    },
    async (request): Promise<Report<DashboardReportEntry>> => {
      const report = await deps.reports.getReport(request.user.sub, request.body.id, 'dashboard');
      return {
        id: report.id,
        created: report.created.toISOString(),
        database_name: report.database_name,
        results: report.results,
        values_hidden: report.values_hidden,
        records: report.tasks.map((t) => ({
          task_type: t.key,
          task_value: t.value,
          key: t.key,
          value: t.value,
          results_count: t.results_count,
          data: t.entries,
          ...(t.domain_unverified ? { domain_unverified: true } : {}),
        })),
      };
    },
  );
}
