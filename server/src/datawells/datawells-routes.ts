import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { ErrorBody, Errors } from '../infra/errors';
import type { RateLimiter } from '../infra/rate-limiter';
import { DATAWELL_SORTS, DEFAULT_DATAWELL_SORT, type DataWellSort } from '../common/datawells';
import {
  LARGEST_WELLS,
  MAX_PAGE,
  PAGE_SIZES,
  SEARCH_MAX_LENGTH,
  SEARCH_MIN_LENGTH,
  SEARCH_RESULT_LIMIT,
  type DataWellService,
  type PageSize,
} from './datawells-service';

const errors = { 400: ErrorBody, 429: ErrorBody };

/** Allow-list of what a client sees of a well. */
const DataWell = Type.Object({
  name: Type.String(),
  image: Type.Union([Type.String(), Type.Null()]),
  date: Type.Union([Type.String({ description: 'YYYY-MM-DD' }), Type.Null()]),
  records: Type.Integer(),
  description: Type.String(),
  data: Type.String({ description: 'Exposed data types, comma-separated: "email, password".' }),
  is_sensitive: Type.Boolean(),
});

const Count = { wells: Type.Integer(), records: Type.Integer() };

const CatalogueCharts = Type.Object({
  total: Type.Object(Count, { description: 'Every well, and their records.' }),
  years: Type.Array(Type.Object({ year: Type.Integer(), ...Count }), {
    description: 'Per breach year (of the well’s date), oldest first, every year from the first to the last (0 when none).',
  }),
  undated: Type.Object(Count, { description: 'Wells without a breach date.' }),
  largest: Type.Array(
    Type.Object({ name: Type.String(), records: Type.Integer(), date: Type.Union([Type.String({ description: 'YYYY-MM-DD' }), Type.Null()]) }),
    { description: `The ${LARGEST_WELLS} largest wells by records, largest first.` },
  ),
  passwords: Type.Object(
    { plain: Type.Integer(), hashed: Type.Integer(), both: Type.Integer(), neither: Type.Integer() },
    { description: 'Wells by password exposure: plain text only (password), hashes only (hashed_password), both, neither.' },
  ),
});

// Query strings arrive as text (the app does not coerce types), hence string schemas.
const ListQuery = Type.Object(
  {
    page: Type.String({ pattern: '^[1-9][0-9]{0,3}$', default: '1', description: `Page number, 1 to ${MAX_PAGE}.` }),
    sort: Type.Union(
      DATAWELL_SORTS.map((sort) => Type.Literal(sort)),
      { default: DEFAULT_DATAWELL_SORT, description: 'Column and direction: name, records or date, then _asc or _desc.' },
    ),
    count: Type.Union(
      PAGE_SIZES.map((size) => Type.Literal(String(size))),
      { default: String(PAGE_SIZES[0]), description: 'Page size.' },
    ),
  },
  { additionalProperties: false },
);

const CompatListQuery = Type.Object(
  {
    page: Type.String({ pattern: '^[1-9][0-9]{0,3}$', default: '1' }),
    count: Type.Union(
      PAGE_SIZES.map((size) => Type.Literal(String(size))),
      { default: String(PAGE_SIZES[0]) },
    ),
    sort: Type.String({ maxLength: 16, default: 'records-DESC' }),
  },
  { additionalProperties: true },
);

const COMPAT_SORT = /^(added|name|date|records)(?:-(asc|desc))?$/;

/** `records-DESC` → `records_desc`; without a direction, names ascend and the rest descend. */
function compatSort(sort: string): DataWellSort {
  const match = COMPAT_SORT.exec(sort.toLowerCase());
  if (!match) throw Errors.badRequest('sort must be added, name, date or records, optionally with -ASC or -DESC');
  const [, column, direction] = match;
  return `${column}_${direction ?? (column === 'name' ? 'asc' : 'desc')}` as DataWellSort;
}

// Public and unauthenticated, so each address gets a generous bucket of its own.
const REQUESTS_PER_IP = { ratePerSecond: 20, burst: 40 };

const tags = ['datawells'];

/** The per-address bucket every catalogue route shares. */
function catalogueThrottle(limiter: RateLimiter) {
  return async (request: FastifyRequest) => {
    const decision = await limiter.take(`datawells:${request.limitAddress}`, REQUESTS_PER_IP);
    if (!decision.allowed) throw Errors.tooManyRequests(decision.retryAfterMs);
  };
}

/** GET /datawells/charts: the numbers of the Data Wells page's charts, in one request. */
function registerCatalogueChartRoute(app: FastifyInstance, deps: { datawells: DataWellService; limiter: RateLimiter }) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { datawells } = deps;
  const throttle = catalogueThrottle(deps.limiter);
  r.get(
    '/datawells/charts',
    {
      onRequest: throttle,
      schema: {
        operationId: 'dataWellCharts',
        tags,
        summary: 'The catalogue in numbers, for the Data Wells page’s charts: wells and records per breach year, the largest wells, password exposure. No authorization.',
        response: { 200: CatalogueCharts, ...errors },
      },
    },
    () => datawells.charts(),
  );
}

export function registerDataWellRoutes(app: FastifyInstance, deps: { datawells: DataWellService; limiter: RateLimiter }) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { datawells } = deps;
  const throttle = catalogueThrottle(deps.limiter);
  registerCatalogueChartRoute(app, deps);

  r.get(
    '/datawells',
    {
      onRequest: throttle,
      schema: {
        operationId: 'listDataWells',
        tags,
        summary: 'One page of the breach-source catalogue, with the total number of wells. No authorization.',
        querystring: ListQuery,
        response: { 200: Type.Object({ data_wells: Type.Array(DataWell), total: Type.Integer() }), ...errors },
      },
    },
    (request) =>
      datawells.list({
        page: Number(request.query.page),
        sort: request.query.sort,
        count: Number(request.query.count) as PageSize,
      }),
  );

  // The anchor's free listing, as its API clients call it: GET /data-wells?count=&page=&sort=
  // with sort added, name, date or records and an optional -ASC/-DESC (no key needed). The
  // same catalogue page as /datawells; a browser opening /data-wells gets the dashboard's
  // page instead (web-routes.ts, PAGES_SHADOWED_BY_API).
  r.get(
    '/data-wells',
    {
      onRequest: throttle,
      schema: {
        operationId: 'listDataWellsCompat',
        tags,
        summary: 'The catalogue as API clients of other services list it: count 20 or 50, page, sort added|name|date|records with -ASC or -DESC. No authorization.',
        querystring: CompatListQuery,
        response: { 200: Type.Object({ data_wells: Type.Array(DataWell), total: Type.Integer() }), ...errors },
      },
    },
    (request) =>
      datawells.list({
        page: Number(request.query.page),
        sort: compatSort(request.query.sort),
        count: Number(request.query.count) as PageSize,
      }),
  );

  r.post(
    '/datawells/search',
    {
      onRequest: throttle,
      schema: {
        operationId: 'searchDataWells',
        tags,
        summary: `Wells whose name or description contains the query (case-insensitive), at most ${SEARCH_RESULT_LIMIT}. No authorization.`,
        body: Type.Object(
          { query: Type.String({ maxLength: SEARCH_MAX_LENGTH, description: `At least ${SEARCH_MIN_LENGTH} characters.` }) },
          { additionalProperties: false },
        ),
        response: { 200: Type.Object({ data_wells: Type.Array(DataWell) }), ...errors },
      },
    },
    (request) => datawells.search(request.body.query),
  );
}
