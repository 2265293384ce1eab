/**
 * Breach API v3, the keyed searches (`hibp-api-key`): breachedaccount, breacheddomain,
 * subscribeddomains, stealerlogs*, pasteaccount, subscription/status. One encapsulated
 * context under /api/v3 whose `onRequest` hook is the guard (v3-guard.ts), so the catalogue
 * routes beside it stay keyless; none found is a 404 with an empty body, as the service.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppDeps } from '../app-deps';
import { Errors } from '../infra/errors';
import { createV3Guard } from './v3-guard';
import { createV3AccountService, type V3AccountService } from './v3-account-service';
import {
  AccountParams, AliasMap, BreachItem, BreachedAccountQuery, DomainParams, EmailParams, NotFound, SubscribedDomain,
  SubscriptionStatus, V3_TAG, V3ErrorBody, keyed, keyedErrors,
} from './v3-account-schemas';

declare module 'fastify' {
  interface FastifyRequest {
    /** The account behind the request's hibp-api-key; set by the v3 guard before anything else runs. */
    v3UserId: string;
  }
}

/** A query flag: `true`/`false` in any case, the default when absent; anything else a 400. */
export function flag(name: string, value: string | undefined, fallback: boolean): boolean {
  if (value === undefined || value === '') return fallback;
  const lower = value.trim().toLowerCase();
  if (lower === 'true') return true;
  if (lower === 'false') return false;
  throw Errors.badRequest(`${name} must be true or false`);
}

/** 200 with the answer, or 404 with an empty body when there is none. */
function found(reply: FastifyReply, answer: unknown) {
  return answer === null ? reply.code(404).send() : reply.send(answer);
}

const schema = (operationId: string, summary: string, ok: object) => ({
  operationId,
  tags: [V3_TAG],
  security: keyed,
  summary,
  response: { 200: ok, 400: V3ErrorBody, 404: NotFound, ...keyedErrors },
});

function searchRoutes(app: FastifyInstance, service: V3AccountService) {
  const v3 = app.withTypeProvider<TypeBoxTypeProvider>();
  v3.get(
    '/breachedaccount/:account',
    { schema: { ...schema('v3BreachedAccount', 'The breaches holding an account (never sensitive or retired ones). Counted as one search, no credit.', Type.Array(BreachItem)), params: AccountParams, querystring: BreachedAccountQuery } },
    async (request, reply) => {
      const { truncateResponse, domain, includeUnverified } = request.query;
      const truncate = flag('truncateResponse', truncateResponse, true);
      const filter = { domain: domain || undefined, includeUnverified: flag('includeUnverified', includeUnverified, true) };
      const breaches = await service.breachedAccount(request.v3UserId, request.params.account, filter);
      return found(reply, breaches && truncate ? breaches.map((b) => ({ Name: b.Name })) : breaches);
    },
  );
  v3.get(
    '/breacheddomain/:domain',
    { schema: { ...schema('v3BreachedDomain', 'Every breached address of a verified domain: alias to breach Names (sensitive breaches included).', AliasMap), params: DomainParams } },
    async (request, reply) => found(reply, await service.breachedDomain(request.v3UserId, request.params.domain)),
  );
  v3.get(
    '/subscribeddomains',
    { schema: schema('v3SubscribedDomains', "The key account's verified domains with their breached addresses counted.", Type.Array(SubscribedDomain)) },
    async (request) => service.subscribedDomains(request.v3UserId),
  );
  v3.get(
    '/pasteaccount/:account',
    { schema: { ...schema('v3PasteAccount', 'Pastes of an account: none are held, always 404 (counted as one search).', Type.Array(Type.Object({}))), params: AccountParams } },
    async (request, reply) => found(reply, await service.pasteAccount(request.v3UserId, request.params.account)),
  );
  v3.get(
    '/subscription/status',
    { schema: schema('v3SubscriptionStatus', "The key account's plan and limits.", SubscriptionStatus) },
    async (request) => service.subscriptionStatus(request.v3UserId),
  );
}

function stealerLogRoutes(app: FastifyInstance, service: V3AccountService) {
  const v3 = app.withTypeProvider<TypeBoxTypeProvider>();
  const hosts = Type.Array(Type.String());
  v3.get(
    '/stealerlogsbyemail/:email',
    { schema: { ...schema('v3StealerLogsByEmail', "Website host names where the address's credentials were captured (its domain verified).", hosts), params: EmailParams } },
    async (request, reply) => found(reply, await service.stealerLogsByEmail(request.v3UserId, request.params.email)),
  );
  v3.get(
    '/stealerlogsbywebsitedomain/:domain',
    { schema: { ...schema('v3StealerLogsByWebsiteDomain', 'Addresses whose credentials were captured on a verified website domain (or under it).', hosts), params: DomainParams } },
    async (request, reply) => found(reply, await service.stealerLogsByWebsiteDomain(request.v3UserId, request.params.domain)),
  );
  v3.get(
    '/stealerlogsbyemaildomain/:domain',
    { schema: { ...schema('v3StealerLogsByEmailDomain', "A verified email domain's captured addresses: alias to website host names.", AliasMap), params: DomainParams } },
    async (request, reply) => found(reply, await service.stealerLogsByEmailDomain(request.v3UserId, request.params.domain)),
  );
}

export function registerAccountRoutes(v3: FastifyInstance, deps: AppDeps): void {
  const { config, db, limiter } = deps;
  void v3.register(async (keyedContext) => {
    const guard = createV3Guard({
      apiKeys: keyedContext.apiKeys,
      meter: keyedContext.searchMeter,
      limiter,
      bucket: { ratePerSecond: config.API_RATE_PER_SECOND, burst: config.API_RATE_BURST },
    });
    keyedContext.decorateRequest('v3UserId', '');
    // Before anything else: a request without a usable key gets no further.
    keyedContext.addHook('onRequest', async (request) => {
      request.v3UserId = await guard(request);
    });
    const service = createV3AccountService({ db, search: keyedContext.searchService, meter: keyedContext.searchMeter, config });
    searchRoutes(keyedContext, service);
    stealerLogRoutes(keyedContext, service);
  });
}
