/**
 * The domain overview (docs/monitoring.md "Domain overview"): POST /monitoring/domains/overview
 * answers JSON, POST /monitoring/domains/overview/csv the same numbers as a CSV file.
 */
import type { FastifyInstance } from 'fastify';
import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { ErrorBody } from '../infra/errors';
import { WellExposureBody } from '../datawells/well-exposure-schemas';
import { overviewCsv, overviewCsvName, type createDomainOverview } from './domain-overview';

const Body = Type.Object({ domain: Type.String({ minLength: 1, maxLength: 256 }) }, { additionalProperties: false });
const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 429: ErrorBody };
const tags = ['monitoring'];
const security = [{ bearer: [] }];

const Overview = Type.Object({
  domain: Type.String(),
  ...WellExposureBody.properties,
  distinct_addresses: Type.Integer({ description: 'Distinct addresses of the domain (lower-cased) that a counted record holds, counted in the engine.' }),
  data_kinds: Type.Array(Type.Object({ kind: Type.String(), wells: Type.Integer(), records: Type.Integer() })),
});

export function registerDomainOverviewRoutes(app: FastifyInstance, deps: { overview: ReturnType<typeof createDomainOverview> }) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.post(
    '/monitoring/domains/overview',
    {
      onRequest: [app.authenticate],
      schema: {
        operationId: 'monitoringDomainOverview',
        tags,
        security,
        summary:
          'For a domain the caller verified (403 otherwise): the wells holding its addresses with breach dates, records and kinds of data, the distinct addresses exposed, and the wells and records exposing each kind of data. Counted as one search.',
        body: Body,
        response: { 200: Overview, ...errors },
      },
    },
    (request) => deps.overview(request.user.sub, request.body.domain),
  );

  r.post(
    '/monitoring/domains/overview/csv',
    {
      onRequest: [app.authenticate],
      schema: {
        operationId: 'monitoringDomainOverviewCsv',
        tags,
        security,
        summary: 'The domain overview as a CSV file (text/csv): totals, wells, kinds of data; cells neutralised for spreadsheets.',
        body: Body,
        response: { 200: Type.String(), ...errors },
      },
    },
    async (request, reply) => {
      const overview = await deps.overview(request.user.sub, request.body.domain);
      return reply
        .header('Content-Type', 'text/csv; charset=utf-8')
        .header('Content-Disposition', `attachment; filename="${overviewCsvName(overview.domain)}"`)
        .header('Cache-Control', 'no-store')
        .send(overviewCsv(overview));
    },
  );
}
