/**
 * The public API: everything under /v2 is this one plugin, and its `onRequest` hook is the
 * guard (API key and rate limits, see api-key-auth.ts). A route registered here is guarded
 * by being here; handlers read the caller from `request.apiKeyUserId`.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Errors } from '../infra/errors';
import { FIELD_NAMES } from '../../../engine/index';
import { formatTook, searchMode, type SearchService } from '../search/search-service';

declare module 'fastify' {
  interface FastifyRequest {
    /** The account behind the request's API key; set by the /v2 guard before anything else runs. */
    apiKeyUserId: string;
  }
}

const ErrorBody = Type.Object({ error: Type.String() });
const Values = Type.Array(Type.String());

/** One entry of a /v2/search reply, as documented (the engine shapes the entries; a test holds the two together). */
const ApiEntry = Type.Object({
  id: Type.String(),
  database_name: Type.String(),
  ...Object.fromEntries(FIELD_NAMES.map((field) => [field, Type.Optional(Values)])),
  raw_record: Type.Optional(
    Type.Object({ le_only: Type.Boolean(), unstructured: Type.String() }, { description: 'Law-enforcement accounts only.' }),
  ),
});

const HEX_HASH = '^[0-9a-fA-F]{32,128}$';

export interface V2Options {
  search: SearchService;
  /** The guard: the caller's user id, or throws 400 (bad key) / 429 (rate). */
  authenticateApiKey: (request: FastifyRequest) => Promise<string>;
}

/** Register with `{ prefix: '/v2' }`. */
export async function v2Api(app: FastifyInstance, options: V2Options) {
  app.decorateRequest('apiKeyUserId', '');
  // Before the body is read or validated: an unauthenticated request gets no further.
  app.addHook('onRequest', async (request) => {
    request.apiKeyUserId = await options.authenticateApiKey(request);
  });

  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { search } = options;
  const security = [{ apiKey: [] }];
  const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 429: ErrorBody };

  r.post(
    '/search',
    {
      schema: {
        operationId: 'v2Search',
        tags: ['public api v2'],
        security,
        summary: 'Search. Needs a search subscription and one credit per successful search (refunded if the search fails).',
        body: Type.Object(
          {
            query: Type.String({ minLength: 1, maxLength: 1000 }),
            page: Type.Integer({ minimum: 1, maximum: 10_000, default: 1 }),
            size: Type.Integer({ minimum: 1, maximum: 10_000, default: 100 }),
            regex: Type.Boolean({ default: false }),
            wildcard: Type.Boolean({ default: false }),
            de_dupe: Type.Boolean({ default: false }),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({ balance: Type.Integer(), entries: Type.Array(ApiEntry), took: Type.String(), total: Type.Integer() }),
          ...errors,
        },
      },
    },
    async (request, reply) => {
      const { query, page, size, regex, wildcard, de_dupe } = request.body;
      const mode = searchMode(regex, wildcard);
      // Every refusal (query, paging, access, credits) happens before a credit moves.
      const { access, result } = await search.admitAndRunApi(
        request.apiKeyUserId,
        { query, type: 'all', mode, page, size, dedup: de_dupe },
        { charge: 'v2-search', requireSubscription: true },
      );
      // The engine shapes the entries for this reply (empty fields left out, raw_record only
      // for law enforcement) and hands them over as JSON text: they are embedded as they
      // are, not parsed and serialised again. A string reply with a JSON type is sent as is.
      const body = `{"balance":${Math.trunc(access.credits)},"entries":${result.entriesJson},"took":${JSON.stringify(formatTook(result.tookMicros))},"total":${Math.trunc(result.total)}}`;
      // (The route's typed reply only knows the schema's object; this one is already text.)
      void (reply as FastifyReply).type('application/json; charset=utf-8').send(body);
    },
  );

  r.post(
    '/search-password',
    {
      schema: {
        operationId: 'v2SearchPassword',
        tags: ['public api v2'],
        security,
        summary: 'Free: how many records carry this password hash (hex). Send sha256_hashed_password or hash.',
        body: Type.Object(
          {
            sha256_hashed_password: Type.Optional(Type.String({ pattern: HEX_HASH })),
            hash: Type.Optional(Type.String({ pattern: HEX_HASH })),
          },
          { additionalProperties: false },
        ),
        response: { 200: Type.Object({ results_found: Type.Integer() }), ...errors },
      },
    },
    async (request) => {
      const hash = (request.body.sha256_hashed_password ?? request.body.hash)?.toLowerCase();
      if (!hash) throw Errors.badRequest('Send sha256_hashed_password or hash');
      const result = await search.run({ query: `hashed_password:${hash}`, type: 'all', mode: 'exact', page: 1, size: 1, dedup: true });
      return { results_found: result.total };
    },
  );

  r.post(
    '/search-password-range',
    {
      schema: {
        operationId: 'v2SearchPasswordRange',
        tags: ['public api v2'],
        security,
        summary:
          'Free k-anonymity lookup: send only the first 5 hex characters of the hash; get every known hash with that prefix (as suffix and count) and compare locally. The full hash never leaves the client.',
        body: Type.Object({ prefix: Type.String({ pattern: '^[0-9a-fA-F]{5}$' }) }, { additionalProperties: false }),
        response: {
          200: Type.Object({
            prefix: Type.String(),
            suffixes: Type.Array(Type.Object({ suffix: Type.String(), count: Type.Integer() })),
            truncated: Type.Boolean({ description: 'True when more than 10,000 records share the prefix; counts cover the first 10,000.' }),
          }),
          ...errors,
        },
      },
    },
    async (request) => {
      const prefix = request.body.prefix.toLowerCase();
      const result = await search.run({ query: `hashed_password:${prefix}*`, type: 'all', mode: 'wildcard', page: 1, size: MAX_RANGE_RECORDS, dedup: false });
      const counts = new Map<string, number>();
      for (const entry of result.entries) {
        for (const value of new Set((entry.hashed_password ?? []).map((v) => v.toLowerCase()))) {
          if (value.startsWith(prefix)) counts.set(value.slice(prefix.length), (counts.get(value.slice(prefix.length)) ?? 0) + 1);
        }
      }
      return {
        prefix,
        suffixes: [...counts].sort(([a], [b]) => (a < b ? -1 : 1)).map(([suffix, count]) => ({ suffix, count })),
        truncated: result.total > MAX_RANGE_RECORDS,
      };
    },
  );
}

const MAX_RANGE_RECORDS = 10_000;
