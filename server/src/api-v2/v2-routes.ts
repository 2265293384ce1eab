import type { FastifyInstance, FastifyReply } from 'fastify';
import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Errors } from '../infra/errors';
import { FIELD_NAMES } from '../../../engine/index';
import { formatTook, searchMode, type SearchService } from '../search/search-service';

const ErrorBody = Type.Object({ error: Type.String() });
const Values = Type.Array(Type.String());

const ApiEntry = Type.Object({
  id: Type.String(),
  database_name: Type.String(),
  ...Object.fromEntries(FIELD_NAMES.map((field) => [field, Type.Optional(Values)])),
  raw_record: Type.Optional(
    Type.Object({ le_only: Type.Boolean(), unstructured: Type.String() }, { description: 'Law-enforcement accounts only.' }),
  ),
});

const HEX_HASH = '^[0-9a-fA-F]{32,128}$';

export function registerV2Routes(
  app: FastifyInstance,
  deps: { search: SearchService; authenticateApiKey: (request: import('fastify').FastifyRequest) => Promise<string>; header: string },
) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { search } = deps;
  const security = [{ apiKey: [] }];
  const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 429: ErrorBody };

  r.post(
    '/v2/search',
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
      const userId = await deps.authenticateApiKey(request);
      const { query, page, size, regex, wildcard, de_dupe } = request.body;
      const mode = searchMode(regex, wildcard);
      // Every refusal (query, paging, access, credits) happens before a credit moves.
      const { access, result } = await search.admitAndRunApi(
        userId,
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
    '/v2/search-password',
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
      await deps.authenticateApiKey(request);
      const hash = (request.body.sha256_hashed_password ?? request.body.hash)?.toLowerCase();
      if (!hash) throw Errors.badRequest('Send sha256_hashed_password or hash');
      const result = await search.run({ query: `hashed_password:${hash}`, type: 'all', mode: 'exact', page: 1, size: 1, dedup: true });
      return { results_found: result.total };
    },
  );

  r.post(
    '/v2/search-password-range',
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
      await deps.authenticateApiKey(request);
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
