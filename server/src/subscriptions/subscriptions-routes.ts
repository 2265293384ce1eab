import type { FastifyInstance } from 'fastify';
import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { SubscriptionsService } from './subscriptions-service';
import type { PaymentsService } from '../payments/payments-service';
import { ErrorBody } from '../infra/errors';

const errors = { 400: ErrorBody, 401: ErrorBody, 429: ErrorBody };
const Expiry = Type.Union([Type.String({ format: 'date-time' }), Type.Null()]);
const UUID_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';

const DomainSlot = Type.Object({
  id: Type.String(),
  domain: Type.Union([Type.String(), Type.Null()], { description: "null until the user names one ('Not set')." }),
});

const Summary = Type.Object({
  search_active: Type.Boolean(),
  search_expiry: Expiry,
  search_auto_renew: Type.Boolean(),
  api_credits: Type.Integer(),
  api_private_key: Type.Union([Type.String(), Type.Null()], { description: 'Masked: "••••" plus the last 4 characters; never the key.' }),
  is_enterprise: Type.Boolean(),
  monitoring_api_active: Type.Boolean(),
  monitoring_api_auto_renew: Type.Boolean(),
  monitoring_api_expiry: Expiry,
  whois_credits: Type.Integer(),
  domains: Type.Array(DomainSlot),
  domain_plans: Type.Array(
    Type.Object({
      id: Type.String(),
      domains: Type.Integer(),
      auto_renew: Type.Boolean(),
      expiry: Type.String({ format: 'date-time', description: 'The renewal date while it renews, the end of access otherwise.' }),
      cancel_requested: Type.Boolean({ description: 'A cancel was asked; the plan renews until the provider confirms it.' }),
    }),
    { description: 'Current domain-monitoring subscriptions (cancel one with /subscriptions/cancel, type subscription-domain, id).' },
  ),
  search_cancel_requested: Type.Boolean(),
  monitoring_api_cancel_requested: Type.Boolean(),
  email: Type.String(),
  elevated: Type.Boolean(),
});

export function registerSubscriptionsRoutes(app: FastifyInstance, deps: { subscriptions: SubscriptionsService; payments: PaymentsService }) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { subscriptions } = deps;
  const common = { onRequest: [app.authenticate] };
  const tags = ['subscriptions'];
  const security = [{ bearer: [] }];

  r.get(
    '/subscriptions',
    {
      ...common,
      schema: {
        operationId: 'subscriptionsSummary',
        tags,
        security,
        summary: 'Search, API credits, monitoring (enterprise), domain slots of current domain subscriptions and WHOIS credits.',
        response: { 200: Summary, ...errors },
      },
    },
    (request) => subscriptions.summary(request.user.sub),
  );

  r.post(
    '/subscriptions/domain-info',
    {
      ...common,
      schema: {
        operationId: 'subscriptionDomainInfo',
        tags,
        security,
        summary: "The monitored-domain slots of one of the user's domain subscriptions; 404 for any other id.",
        body: Type.Object({ domain: Type.String({ pattern: UUID_PATTERN, description: 'A domain subscription id.' }) }, { additionalProperties: false }),
        response: { 200: Type.Object({ domains: Type.Array(DomainSlot) }), 404: ErrorBody, ...errors },
      },
    },
    (request) => subscriptions.domainInfo(request.user.sub, request.body.domain),
  );

  r.post(
    '/subscriptions/cancel',
    {
      ...common,
      schema: {
        operationId: 'cancelSubscription',
        tags: ['subscriptions'],
        security,
        summary: 'Stops a recurring plan from renewing; access continues to the end of the period',
        body: Type.Object(
          {
            type: Type.Union([Type.Literal('subscription-search'), Type.Literal('subscription-monitoring'), Type.Literal('subscription-domain')]),
            id: Type.Optional(Type.String({ maxLength: 64, description: 'The domain subscription id; empty otherwise.' })),
          },
          { additionalProperties: false },
        ),
        response: { 200: Type.Object({ success: Type.Boolean() }), 400: ErrorBody, 401: ErrorBody, 404: ErrorBody, 502: ErrorBody },
      },
    },
    async (request) => {
      // Only the provider that renews a plan can stop it: payments asks it.
      await deps.payments.cancelSubscription(request.user.sub, request.body.type, request.body.id ?? '');
      return { success: true };
    },
  );
}
