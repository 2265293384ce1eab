/**
 * Card checkout routes (docs/payments.md, "Dashboard calls" and "Card checkout"): the overlay's
 * configuration, a checkout priced by the server, the health check the dashboard asks before
 * opening the overlay, and cancelling a recurring plan. The sandbox's own pages come with it
 * when CARD_PROVIDER=sandbox.
 */
import type { FastifyInstance } from 'fastify';
import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { sql } from 'kysely';
import { cardProviderFor, type CardDeps } from './card/card-provider';
import { createCardService } from './card/card-service';
import { registerSandboxRoutes } from './sandbox-routes';
import { ErrorBody } from '../infra/errors';

const Success = Type.Object({ success: Type.Boolean() });

export function registerCheckoutRoutes(app: FastifyInstance, deps: CardDeps): void {
  const card = cardProviderFor(deps);
  const service = createCardService({ db: deps.db, card, log: app.log });
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const authenticated = { onRequest: [app.authenticate] };
  const security = [{ bearer: [] }];
  const tags = ['payments'];

  r.get(
    '/payments/card-config',
    {
      ...authenticated,
      schema: {
        operationId: 'cardConfig',
        tags,
        security,
        summary: "How to load and open the card provider's overlay",
        response: {
          200: Type.Object({
            provider: Type.Union([Type.Literal('sandbox'), Type.Literal('paddle')]),
            script_url: Type.String(),
            global_name: Type.String(),
            token: Type.String(),
            environment: Type.String(),
            price_ids: Type.Record(Type.String(), Type.String(), { description: 'SKU → provider price id, for every SKU sold by card.' }),
          }),
          401: ErrorBody,
        },
      },
    },
    async () => card.clientConfig(),
  );

  r.post(
    '/payments/checkout',
    {
      ...authenticated,
      schema: {
        operationId: 'cardCheckout',
        tags,
        security,
        summary: 'Opens a pending card checkout priced by the server (its id goes to the overlay as customData.checkout_id)',
        body: Type.Object({ sku: Type.String({ minLength: 1, maxLength: 64 }), quantity: Type.Integer() }, { additionalProperties: false }),
        response: {
          200: Type.Object({ checkout_id: Type.String(), sku: Type.String(), quantity: Type.Integer(), amount: Type.Number({ description: 'USD' }) }),
          400: ErrorBody,
          401: ErrorBody,
          403: ErrorBody,
        },
      },
    },
    async (request) => service.checkout(request.user.sub, request.body.sku, request.body.quantity),
  );

  r.get(
    '/misc/check',
    {
      schema: {
        operationId: 'healthCheck',
        tags: ['health'],
        summary: 'The database and the card provider answer (asked before a checkout opens)',
        response: { 200: Success, 503: Success },
      },
    },
    async (_request, reply) => {
      const [database, provider] = await Promise.all([
        sql`select 1`.execute(deps.db).then(
          () => true,
          () => false,
        ),
        card.health().catch(() => false),
      ]);
      if (database && provider) return { success: true };
      return reply.code(503).send({ success: false });
    },
  );

  r.post(
    '/subscriptions/cancel',
    {
      ...authenticated,
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
        response: { 200: Success, 400: ErrorBody, 401: ErrorBody, 404: ErrorBody, 502: ErrorBody },
      },
    },
    async (request) => {
      await service.cancel(request.user.sub, request.body.type, request.body.id ?? '');
      return { success: true };
    },
  );

  if (card.name === 'sandbox') registerSandboxRoutes(app, { db: deps.db, sandbox: card });
}
