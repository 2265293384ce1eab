/**
 * `/v2/monitoring/get-reports` and `/v2/monitoring/get-report` (docs/monitoring.md "Public API v2";
 * DeHashed v2 shapes): registered with `app.v2Routes`, so its key guard and rate limits
 * apply; no credits. Another user's or an unknown report id: 404.
 */
import type { FastifyInstance } from 'fastify';
import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { ReportsService } from './reports-service';
import { ApiEntry } from '../api-v2/v2-schemas';
import { ErrorBody } from '../infra/errors';

/** Reports per page of get-reports (as tasks: 100). */
export const API_REPORTS_PAGE_SIZE = 100;

export function registerReportsV2Routes(app: FastifyInstance, deps: { reports: ReportsService }) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 429: ErrorBody };
  const security = [{ apiKey: [] }];

  r.post(
    '/monitoring/get-reports',
    {
      schema: {
        operationId: 'v2MonitoringGetReports',
        tags: ['public api v2'],
        security,
        summary: `The caller's monitoring reports, newest first, ${API_REPORTS_PAGE_SIZE} a page; next_page is null on the last page. Free.`,
        body: Type.Object({ page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000, description: 'Page number, from 1.' })) }, { additionalProperties: false }),
        response: {
          200: Type.Object({
            reports: Type.Array(Type.Object({ id: Type.String(), timestamp: Type.String({ description: 'ISO 8601.' }) })),
            next_page: Type.Union([Type.Integer(), Type.Null()]),
          }),
          ...errors,
        },
      },
    },
    async (request) => {
      const page = request.body.page ?? 1;
      const { reports, total_reports } = await deps.reports.listReports(request.apiKeyUserId, page, API_REPORTS_PAGE_SIZE);
      return {
        reports: reports.map((report) => ({ id: report.id, timestamp: report.created })),
        next_page: page * API_REPORTS_PAGE_SIZE < total_reports ? page + 1 : null,
      };
    },
  );

  r.post(
    '/monitoring/get-report',
    {
      schema: {
        operationId: 'v2MonitoringGetReport',
        tags: ['public api v2'],
        security,
        summary:
          'One report: per task its matching records (at most 1,000 shown; results_count counts all) as /v2/search entries, null fields omitted. Entries need search access (none without it; counts stay); domain tasks need their domain verified (domain_unverified). Free. 404 for an id that is not the caller’s.',
        body: Type.Object({ id: Type.String({ maxLength: 64, description: 'The report id from get-reports or from a webhook.' }) }, { additionalProperties: false }),
        response: {
          200: Type.Object({
            tasks: Type.Array(
              Type.Object({
                id: Type.Optional(Type.String({ description: 'The task; omitted once the task is deleted.' })),
                key: Type.String(),
                value: Type.String(),
                results_count: Type.Integer(),
                timestamp: Type.String(),
                results: Type.Array(ApiEntry),
                domain_unverified: Type.Optional(Type.Boolean({ description: 'Present (true) on a domain task whose domain is not verified: no results until it is.' })),
              }),
            ),
          }),
          ...errors,
          404: ErrorBody,
        },
      },
    },
    async (request) => {
      const report = await deps.reports.getReport(request.apiKeyUserId, request.body.id, 'api');
      const timestamp = report.created.toISOString();
      return {
        tasks: report.tasks.map((task) => ({
          ...(task.task_id !== null ? { id: task.task_id } : {}),
          key: task.key,
          value: task.value,
          results_count: task.results_count,
          timestamp,
          results: task.entries,
          ...(task.domain_unverified ? { domain_unverified: true } : {}),
        })),
      };
    },
  );
}
