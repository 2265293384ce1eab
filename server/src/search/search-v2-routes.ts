/**
 * Search's calls of the public API: `/v2/search` (charged), `/v2/search-password` and
 * `/v2/search-password-range` (free). Registered with `app.v2Routes`, so the API key guard
 * has run; handlers read the caller from `request.apiKeyUserId`.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { ErrorBody, Errors } from '../infra/errors';
import { ApiEntry } from '../api-v2/v2-schemas';
import { searchMode, type SearchService } from './search-service';

const HEX_HASH = '^[0-9a-fA-F]{32,128}$';

const security = [{ apiKey: [] }];
const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 429: ErrorBody };

type SearchV2Options = { search: SearchService; maxDepth: number };

export function registerSearchV2Routes(app: FastifyInstance, options: SearchV2Options) {
  registerSearch(app, options);
  registerPasswordCheck(app, options.search);
  registerPasswordRange(app, options.search);
}

/** `/v2/search`: charged one credit. */
function registerSearch(app: FastifyInstance, options: SearchV2Options) {
  const { search } = options;
  app.withTypeProvider<TypeBoxTypeProvider>().post(
    '/search',
    {
      schema: {
        operationId: 'v2Search',
        tags: ['public api v2'],
        security,
        summary: 'Search. Needs a search subscription and one credit per successful search (refunded if the search fails).',
        body: Type.Object(
          {
            query: Type.String({
              minLength: 1,
              maxLength: 1000,
              description: 'Search terms: email:"a@b.com", username:"x", domain:example.com, a bare term; join with &, AND, OR.',
            }),
            page: Type.Integer({ minimum: 1, maximum: 50_000, default: 1, description: 'Page number, from 1.' }),
            size: Type.Integer({
              minimum: 1,
              maximum: 10_000,
              default: 100,
              description: 'Entries per page, at most 10,000; page × size at most 10,000 (an operator may allow up to 50,000).',
            }),
            regex: Type.Boolean({ default: false, description: 'Values between slashes are regular expressions. Not with wildcard.' }),
            wildcard: Type.Boolean({ default: false, description: '? matches one character, * many. Not with regex.' }),
            de_dupe: Type.Boolean({ default: false, description: 'Merge entries that repeat the same values.' }),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({ balance: Type.Integer(), entries: Type.Array(ApiEntry), took: Type.String(), total: Type.Integer() }),
          ...errors,
        },
      },
    },
    // Not an async function: the search's own promise is the only one the handler adds (the
    // reply is sent when it resolves; a rejection is answered as a thrown error would be).
    (request, reply) => {
      const { query, page, size, regex, wildcard, de_dupe } = request.body;
      const mode = searchMode(regex, wildcard);
      // Every refusal (query, paging, access, credits) happens before a credit moves.
      return search
        .admitAndRunApi(request.apiKeyUserId, { query, type: 'all', mode, page, size, dedup: de_dupe, maxWindow: options.maxDepth }, { charge: 'v2-search', requireSubscription: true })
        .then(({ result }) => {
          // The engine writes the whole reply (the balance the admission left, the entries
          // shaped for it: empty fields left out, raw_record only for law enforcement) as the
          // bytes sent; a Buffer with a JSON type is sent as it is, not parsed or copied again.
          // (The route's typed reply only knows the schema's object; this one is already bytes.)
          void (reply as FastifyReply).type('application/json; charset=utf-8').send(result);
        });
    },
  );
}

/** `/v2/search-password`: free. */
function registerPasswordCheck(app: FastifyInstance, search: SearchService) {
  app.withTypeProvider<TypeBoxTypeProvider>().post(
    '/search-password',
    {
      schema: {
        operationId: 'v2SearchPassword',
        tags: ['public api v2'],
        security,
        summary:
          'Free: how many records carry this password hash (hex): as a stored hashed password, or as the SHA-256 or SHA-1 of a plaintext password. Send sha256_hashed_password or hash.',
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
      // Stored hashed_password values plus the SHA-256 and SHA-1 of plaintext passwords
      // (derived at ingest): one exact lookup per table, a record found both ways counted once.
      return { results_found: (await search.passwordCount(request.apiKeyUserId, hash)).total };
    },
  );
}

/** `/v2/search-password-range`: free, k-anonymity. */
function registerPasswordRange(app: FastifyInstance, search: SearchService) {
  app.withTypeProvider<TypeBoxTypeProvider>().post(
    '/search-password-range',
    {
      schema: {
        operationId: 'v2SearchPasswordRange',
        tags: ['public api v2'],
        security,
        summary:
          'Free k-anonymity lookup: send only the first 5 hex characters of the hash; get every known hash with that prefix (as suffix and count) and compare locally. Known hashes: stored hashed passwords and the SHA-256 and SHA-1 of plaintext passwords (a suffix of 59 hex characters is a SHA-256, of 35 a SHA-1). The full hash never leaves the client.',
        body: Type.Object({ prefix: Type.String({ pattern: '^[0-9a-fA-F]{5}$' }) }, { additionalProperties: false }),
        response: {
          200: Type.Object({
            prefix: Type.String(),
            suffixes: Type.Array(Type.Object({ suffix: Type.String(), count: Type.Integer() })),
            truncated: Type.Boolean({ description: 'True when more than 100,000 distinct hashes share the prefix; the rest are left out.' }),
          }),
          ...errors,
        },
      },
    },
    async (request) => {
      const prefix = request.body.prefix.toLowerCase();
      // Stored hashed_password values and the SHA-256 and SHA-1 of plaintext passwords with
      // this prefix, counted in the engine (the derived hashes are in no entry).
      const { suffixes, truncated } = await search.passwordRange(request.apiKeyUserId, prefix);
      return { prefix, suffixes, truncated };
    },
  );
}
