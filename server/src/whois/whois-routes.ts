/**
 * Dashboard calls of the WHOIS tools (docs/whois.md "Calls"). `registerWhois`
 * also exposes the service as `app.whois`, read by its /v2 routes (whois-v2-routes.ts).
 */
import type { FastifyInstance } from 'fastify';
import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { ObfuscationError, unpackWhois, type WhoisFields } from '../common/obfuscation';
import { ErrorBody, Errors } from '../infra/errors';
import { WHOIS_MESSAGES, WHOIS_TOOLS, checkWhoisQuery, type WhoisTool } from '../common/whois-rules';
import type { WhoisService } from './whois-service';
import { CreditsSchema, WhoisResponseSchema } from './whois-schemas';

declare module 'fastify' {
  interface FastifyInstance {
    /** The WHOIS tools, for the /v2 routes. */
    whois: WhoisService;
  }
}

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 429: ErrorBody, 503: ErrorBody };

export function registerWhois(app: FastifyInstance, deps: { whois: WhoisService }) {
  app.decorate('whois', deps.whois);
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const security = [{ bearer: [] }];
  const tags = ['whois'];

  r.post(
    '/whois',
    {
      onRequest: [app.authenticate],
      schema: {
        operationId: 'dashboardWhois',
        tags,
        security,
        summary: 'Run a WHOIS tool from the dashboard (query as a token). 1 WHOIS credit, history 25; an answer without data costs nothing.',
        body: Type.Object(
          {
            search_type: Type.String({ maxLength: 32 }),
            query: Type.String({ maxLength: 4096 }),
            qk: Type.String({ maxLength: 64 }),
          },
          { additionalProperties: false },
        ),
        response: { 200: WhoisResponseSchema, ...errors },
      },
    },
    async (request) => {
      let values;
      try {
        values = unpackWhois(request.body as WhoisFields);
      } catch (error) {
        if (error instanceof ObfuscationError) throw Errors.malformedPayload(error.message);
        throw error;
      }
      if (!(WHOIS_TOOLS as readonly string[]).includes(values.searchType)) throw Errors.badRequest(WHOIS_MESSAGES.invalidSearchType);
      const tool = values.searchType as WhoisTool;
      const query = checkWhoisQuery(tool, values.query);
      if (!query.ok) throw Errors.badRequest(query.message);
      const answer = await deps.whois.run(request.user.sub, query.value);
      return { search_type: tool, ...answer };
    },
  );

  r.get(
    '/user/whois-credits',
    {
      onRequest: [app.authenticate],
      schema: { operationId: 'whoisCredits', tags, security, summary: 'WHOIS credits left.', response: { 200: CreditsSchema, 401: ErrorBody } },
    },
    async (request) => ({ whois_credits: await deps.whois.credits(request.user.sub) }),
  );
}
