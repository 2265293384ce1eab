/**
 * Card checkout routes (docs/payments.md, "Dashboard calls" and "Card checkout"): the price
 * list, the overlay's configuration and a checkout priced by the server. The sandbox's own
 * pages come with it when CARD_PROVIDER=sandbox. (The health check the dashboard asks before
 * opening the overlay is health's; cancelling a recurring plan is subscriptions'.)
 */
import type { FastifyInstance } from 'fastify';
import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import type { AnyCardProvider } from './card/card-provider';
import type { CardService } from './card/card-service';
import { listProducts } from './products';
import { registerSandboxRoutes } from './sandbox-routes';
import { ErrorBody } from '../infra/errors';

export function registerCheckoutRoutes(app: FastifyInstance, deps: { db: Kysely<Database>; card: AnyCardProvider; service: CardService }): void {
  const { card, service } = deps;
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
    '/payments/get-products',
    {
      ...authenticated,
      schema: {
        operationId: 'listProducts',
        tags: ['payments'],
        security,
        summary: 'Every SKU of the catalogue with its price in USD per unit (the server computes amounts from these).',
        response: { 200: Type.Object({ products: Type.Array(Type.Object({ sku: Type.String(), price: Type.Number() })) }), 400: ErrorBody, 401: ErrorBody, 429: ErrorBody },
      },
    },
    () => listProducts(deps.db),
  );

  if (card.name === 'sandbox') registerSandboxRoutes(app, { db: deps.db, sandbox: card });
}
