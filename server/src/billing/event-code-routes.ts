import type { FastifyInstance } from 'fastify';
import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { EventCodeService } from './event-code-service';
import { ErrorBody } from '../infra/errors';


export function registerEventCodeRoutes(app: FastifyInstance, deps: { eventCodes: EventCodeService }) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.post(
    '/user/event-code',
    {
      onRequest: [app.authenticate],
      schema: {
        operationId: 'redeemEventCode',
        tags: ['user'],
        security: [{ bearer: [] }],
        summary:
          "Redeems an event code once per account; answers what it granted. 400 'Invalid event code' for any code that gives nothing; wrong guesses are throttled per account and address (429).",
        // Any text reaches the service, so every code that gives nothing gets the same answer.
        body: Type.Object({ code: Type.String({ maxLength: 256 }) }, { additionalProperties: false }),
        response: {
          200: Type.Object({ products: Type.Array(Type.Object({ sku: Type.String(), quantity: Type.Integer() })) }),
          400: ErrorBody,
          401: ErrorBody,
          429: ErrorBody,
        },
      },
    },
    (request) => deps.eventCodes.redeem(request.user.sub, request.body.code, request.limitAddress),
  );
}
