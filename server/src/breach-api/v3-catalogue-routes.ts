/**
 * Breach API v3, the public catalogue (no key): breaches, breach/{name}, latestbreach,
 * dataclasses. Wells as breach models (datawells/breach-model-service.ts); throttled per
 * client address like the data-wells routes; cacheable for a minute (an operator's
 * correction reaches clients within that). An unknown breach answers 404 with an empty body, as the service does (its
 * clients, the `hibp` package among them, read any 404 as "none").
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppDeps } from '../app-deps';
import { v3RateLimited } from './v3-guard';
import { BreachModelSchema, V3_TAG, V3ErrorBody } from './v3-account-schemas';
import { allDataClasses, breachModelByName, latestBreachModel, listBreachModels, type BreachModel, type ModelOptions } from '../datawells/breach-model-service';

const BOOLEAN = '^([Tt][Rr][Uu][Ee]|[Ff][Aa][Ll][Ss][Ee])$';

// Query strings arrive as text (the app does not coerce types), hence string schemas.
const BreachesQuery = Type.Object({
  domain: Type.Optional(Type.String({ maxLength: 253, description: "Only wells of this domain (any case); empty: every well." })),
  isSpamList: Type.Optional(Type.String({ pattern: BOOLEAN, description: 'true or false, any case: only spam lists, or none.' })),
});

// Public and unauthenticated, so each address gets a generous bucket of its own.
const REQUESTS_PER_IP = { ratePerSecond: 20, burst: 40 };
const CACHE_CONTROL = 'public, max-age=60';

/** A per-address bucket; a refusal is the service's 429 (retry-after in whole seconds, rounded up). */
function catalogueThrottle(limiter: AppDeps['limiter']) {
  return async (request: FastifyRequest) => {
    const decision = await limiter.take(`breach-catalogue:${request.limitAddress}`, REQUESTS_PER_IP);
    if (decision.allowed) return;
    throw v3RateLimited(decision.retryAfterMs / 1000);
  };
}

/** One model, or the service's 404 with an empty body. */
function oneModel(reply: FastifyReply, model: BreachModel | undefined) {
  reply.header('cache-control', CACHE_CONTROL);
  return model ? reply.send(model) : reply.code(404).send();
}

const tags = [V3_TAG];
const errors = { 400: V3ErrorBody, 429: V3ErrorBody };

export function registerCatalogueRoutes(v3: FastifyInstance, deps: AppDeps): void {
  const r = v3.withTypeProvider<TypeBoxTypeProvider>();
  const { db } = deps;
  const options: ModelOptions = { publicUrl: deps.config.publicUrl };
  const throttle = catalogueThrottle(deps.limiter);

  r.get(
    '/breaches',
    {
      onRequest: throttle,
      schema: {
        operationId: 'v3Breaches',
        tags,
        summary: 'Every breach (data well) of the catalogue, by Name; filters domain and isSpamList. No key.',
        querystring: BreachesQuery,
        response: { 200: Type.Array(BreachModelSchema), ...errors },
      },
    },
    async (request, reply) => {
      const { domain, isSpamList } = request.query;
      const models = await listBreachModels(
        db,
        { domain: domain || undefined, isSpamList: isSpamList === undefined ? undefined : isSpamList.toLowerCase() === 'true' },
        options,
      );
      return reply.header('cache-control', CACHE_CONTROL).send(models);
    },
  );

  r.get(
    '/breach/:name',
    {
      onRequest: throttle,
      schema: {
        operationId: 'v3Breach',
        tags,
        summary: 'One breach by its Name, in any case; 404 with an empty body when there is none. No key.',
        params: Type.Object({ name: Type.String({ maxLength: 256 }) }),
        response: { 200: BreachModelSchema, ...errors },
      },
    },
    async (request, reply) => oneModel(reply, await breachModelByName(db, request.params.name.trim(), options)),
  );

  r.get(
    '/latestbreach',
    {
      onRequest: throttle,
      schema: {
        operationId: 'v3LatestBreach',
        tags,
        summary: 'The breach added last (AddedDate); 404 with an empty body when the catalogue is empty. No key.',
        response: { 200: BreachModelSchema, ...errors },
      },
    },
    async (_request, reply) => oneModel(reply, await latestBreachModel(db, options)),
  );

  r.get(
    '/dataclasses',
    {
      onRequest: throttle,
      schema: {
        operationId: 'v3DataClasses',
        tags,
        summary: 'Every data class a breach may list, sorted. No key.',
        response: { 200: Type.Array(Type.String()), ...errors },
      },
    },
    async (_request, reply) => reply.header('cache-control', CACHE_CONTROL).send(allDataClasses()),
  );
}
