import type { FastifyInstance } from 'fastify';
import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { ObfuscationError, unpackSearch, type SearchFields } from '../common/obfuscation';
import { DASHBOARD_MAX_PAGE } from '../common/search-rules';
import { ErrorBody, Errors } from '../infra/errors';
import { RECORDS_BY_ID_MAX, type SearchService } from './search-service';
import { SearchRecord } from './search-schemas';
import { WellExposureBody } from '../datawells/well-exposure-schemas';

/** The dashboard's search body: query and tab obfuscated (common/obfuscation.ts), the toggles in clear. */
const SearchBody = Type.Object(
  {
    r0: Type.String({ maxLength: 4096 }),
    r1: Type.String({ maxLength: 256 }),
    r2: Type.String({ maxLength: 64 }),
    page: Type.Integer({ minimum: 1, maximum: DASHBOARD_MAX_PAGE }),
    regex: Type.Boolean(),
    wildcard: Type.Boolean(),
    deduplicate: Type.Boolean(),
  },
  { additionalProperties: false },
);

function unpacked(body: SearchFields) {
  try {
    return unpackSearch(body);
  } catch (error) {
    if (error instanceof ObfuscationError) throw Errors.malformedPayload(error.message);
    throw error;
  }
}

export function registerSearchRoutes(app: FastifyInstance, deps: { search: SearchService }) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  registerTimelineRoute(app, deps);
  r.post(
    '/search',
    {
      onRequest: [app.authenticate],
      schema: {
        operationId: 'dashboardSearch',
        tags: ['search'],
        security: [{ bearer: [] }],
        summary: 'Search from the dashboard (obfuscated payload). Values only for subscribers; counts for everyone.',
        body: SearchBody,
        response: {
          200: Type.Object({
            results: Type.Array(SearchRecord),
            total_results: Type.Integer(),
            assets_searched: Type.Integer(),
            elapsed_time: Type.Number({ description: 'Milliseconds.' }),
            data_wells: Type.Integer(),
            values_hidden: Type.Boolean(),
          }),
          400: ErrorBody,
          401: ErrorBody,
          403: ErrorBody,
          429: ErrorBody,
        },
      },
    },
    (request) => deps.search.dashboard(request.user.sub, unpacked(request.body)),
  );

  r.post(
    '/search/records',
    {
      onRequest: [app.authenticate],
      schema: {
        operationId: 'dashboardRecords',
        tags: ['search'],
        security: [{ bearer: [] }],
        summary: `Records by id (the favourites the browser keeps as ids), at most ${RECORDS_BY_ID_MAX}; counted as one search. Values only for subscribers; unknown and removed ids left out.`,
        body: Type.Object(
          { ids: Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { minItems: 1, maxItems: RECORDS_BY_ID_MAX }) },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({ results: Type.Array(SearchRecord), values_hidden: Type.Boolean() }),
          400: ErrorBody,
          401: ErrorBody,
          403: ErrorBody,
          429: ErrorBody,
        },
      },
    },
    (request) => deps.search.records(request.user.sub, request.body.ids),
  );
}

/** POST /search/timeline: the search screen's exposure timeline (the search's own body). */
function registerTimelineRoute(app: FastifyInstance, deps: { search: SearchService }) {
  app.withTypeProvider<TypeBoxTypeProvider>().post(
    '/search/timeline',
    {
      onRequest: [app.authenticate],
      schema: {
        operationId: 'dashboardExposureTimeline',
        tags: ['search'],
        security: [{ bearer: [] }],
        summary:
          'The wells holding records that match an email, username, phone or domain search (the search body as POST /search takes it; page and deduplicate are ignored), with breach dates, matching records and exposed kinds of data. Counted as one search; without a search subscription, one-term queries only.',
        body: SearchBody,
        response: { 200: WellExposureBody, 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 429: ErrorBody },
      },
    },
    (request) => deps.search.timeline(request.user.sub, unpacked(request.body)),
  );
}
