/**
 * Pwned Passwords range API: `GET /range/{prefix}` (docs/api-compatibility.md, "Breach API
 * v3 and Pwned Passwords"). Anonymous and free, limited per client address like the /v2
 * password checks; answers and errors are plain text, as the service's clients read them.
 *
 * The prefix is in the path, so these routes log at `warn`: the request lines Fastify logs
 * at `info` (with the URL) are not written, and the log says nothing of what was looked up.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppDeps } from '../app-deps';
import { AppError, Errors } from '../infra/errors';
import type { SearchService } from '../search/search-service';
import { etagMatches, padLines, rangeBody, rangeEtag, rangeLines, rangeMode, wantsPadding } from './range-service';

/** The service's own answer to a malformed prefix (its clients show it as is). */
export const BAD_PREFIX = 'The hash prefix was not in a valid format';
export const BAD_MODE = 'The mode was not sha1 or ntlm';

/**
 * How long a shared cache (a CDN in front) may serve an answer before it revalidates with
 * its ETag: long enough to absorb bursts on popular prefixes, short enough that a removal,
 * opt-out or takedown reaches every cache within minutes.
 */
export const RANGE_MAX_AGE_SECONDS = 600;

const CORS = { 'access-control-allow-origin': '*', 'access-control-expose-headers': 'ETag' };

const text = (description: string) => ({ description, content: { 'text/plain': { schema: Type.String() } } });

function plain(reply: FastifyReply, statusCode: number, message: string, headers: Record<string, string> = {}) {
  return reply.code(statusCode).headers({ ...CORS, ...headers }).type('text/plain; charset=utf-8').send(message);
}

function rangeErrorHandler(error: FastifyError | AppError, request: FastifyRequest, reply: FastifyReply) {
  if (error instanceof AppError) {
    // The engine's time budget (5 s) ran out: the server is overloaded, not the request wrong.
    if (error.code === 'SEARCH_TIMEOUT') return plain(reply, 503, 'The lookup took too long; try again', { 'retry-after': '1' });
    if (error.statusCode >= 500) request.log.error({ err: error }, 'range lookup failed');
    return plain(reply, error.statusCode, error.message, error.headers);
  }
  if (error.validation) return plain(reply, 400, error.validationContext === 'params' ? BAD_PREFIX : BAD_MODE);
  const status = error.statusCode;
  if (status && status >= 400 && status < 500) return plain(reply, status, error.message);
  request.log.error({ err: error }, 'range lookup failed');
  return plain(reply, 500, 'Internal Server Error');
}

export function registerRangeRoutes(app: FastifyInstance, deps: AppDeps): void {
  void app.register(async (range) => {
    range.setErrorHandler(rangeErrorHandler);
    registerRange(range, deps, app.searchService);
    // Browsers' preflight for `Add-Padding` (not a simple header): the answers are public.
    range.options('/range/:prefix', { logLevel: 'warn', schema: { hide: true } }, (_request, reply) =>
      reply
        .code(204)
        .headers({
          ...CORS,
          'access-control-allow-methods': 'GET, HEAD',
          'access-control-allow-headers': 'Add-Padding, If-None-Match',
          'access-control-max-age': '86400',
        })
        .send(),
    );
  });
}

function registerRange(range: FastifyInstance, deps: AppDeps, search: SearchService) {
  const { limiter, config } = deps;
  const bucket = { ratePerSecond: config.API_RATE_PER_SECOND, burst: config.API_RATE_BURST };
  range.withTypeProvider<TypeBoxTypeProvider>().get(
    '/range/:prefix',
    {
      logLevel: 'warn',
      schema: {
        operationId: 'pwnedPasswordsRange',
        tags: ['pwned passwords'],
        summary:
          'Free, anonymous k-anonymity password check in the Pwned Passwords format: every SHA-1 (or NTLM) hash we know with this 5-hex prefix, one `SUFFIX:COUNT` line each (suffix upper case, sorted, CRLF between lines); an empty body when there is none. Counts: records holding the password in plaintext or as an unsalted hash, removed ones left out.',
        params: Type.Object({
          prefix: Type.String({ pattern: '^[0-9a-fA-F]{5}$', description: 'The first 5 hex characters of the hash, any case.' }),
        }),
        querystring: Type.Object({
          mode: Type.Optional(Type.String({ description: '`sha1` (default): SHA-1 hashes, 35-character suffixes; `ntlm`: NTLM hashes, 27-character suffixes.' })),
        }),
        headers: Type.Object({
          'add-padding': Type.Optional(
            Type.String({ description: '`true`: random suffixes with count 0 are added and sorted in, so every answer has 800 to 1,000 lines.' }),
          ),
        }),
        response: {
          200: text('The lines, text/plain. Cache-Control public; an ETag that changes when the lines do; Vary: Add-Padding.'),
          304: { description: 'Not modified: If-None-Match held the ETag.' },
          400: text('A prefix that is not 5 hex characters, or a mode other than sha1 or ntlm.'),
          429: text('Too many lookups from this address; Retry-After says when to try again.'),
        },
      },
    },
    async (request, reply) => {
      const mode = rangeMode(request.query.mode);
      if (!mode) throw Errors.badRequest(BAD_MODE);
      const decision = await limiter.take(`range:ip:${request.limitAddress}`, bucket);
      if (!decision.allowed) throw Errors.tooManyRequests(decision.retryAfterMs);
      // A slot of the address's own (as an account's searches have), and measured as a password range.
      const found = await search.passwordRange(`range:${request.limitAddress}`, request.params.prefix.toLowerCase());
      if (found.truncated) {
        // Past 100,000 distinct hashes under one prefix (no real corpus comes near): a list
        // with some left out would tell a client a known password is not known.
        request.log.warn('a range lookup found more hashes than it may list');
        return plain(reply, 503, 'Too many hashes share this prefix to list them all', { 'cache-control': 'no-store' });
      }
      const lines = rangeLines(found.suffixes, mode);
      const padded = wantsPadding(request.headers['add-padding']);
      const body = rangeBody(lines);
      const etag = rangeEtag(mode, body, padded);
      void reply.headers({ ...CORS, 'cache-control': `public, max-age=${RANGE_MAX_AGE_SECONDS}`, etag, vary: 'Add-Padding' });
      if (etagMatches(request.headers['if-none-match'], etag)) return reply.code(304).send();
      return reply.type('text/plain; charset=utf-8').send(padded ? rangeBody(padLines(lines, mode)) : body);
    },
  );
}
