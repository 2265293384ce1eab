import type { FastifyInstance } from 'fastify';
import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { RemovalService } from './removal-service';
import type { OptOutService } from './opt-out-service';
import { ErrorBody } from '../infra/errors';
import { registerOptOutRoutes } from './opt-out-routes';

const Success = Type.Object({ success: Type.Boolean() });

export function registerRemovalRoutes(app: FastifyInstance, deps: { removal: RemovalService; optOut: OptOutService }) {
  registerEntryRemovalRoutes(app, deps.removal);
  registerOptOutRoutes(app, deps.optOut);
}

/** An entry's removal: requested by a signed-in user, confirmed with the mailed link. */
function registerEntryRemovalRoutes(app: FastifyInstance, removal: RemovalService) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const common = { onRequest: [app.authenticate] };
  const tags = ['entry removal'];
  const security = [{ bearer: [] }];
  const errors = { 400: ErrorBody, 401: ErrorBody, 429: ErrorBody };

  r.post(
    '/request-entry-removal',
    {
      ...common,
      schema: {
        operationId: 'requestEntryRemoval',
        tags,
        security,
        summary: "Mails a single-use confirmation link to one of the entry's emails.",
        description:
          'Answers {"success": true} whether or not the entry exists and the email is one of its emails (a mail goes out only when both hold, at most 3 a day per address): the answer tells nothing about entries. 429 when the user or client address has sent too many requests.',
        body: Type.Object(
          {
            id: Type.String({ minLength: 1, maxLength: 128 }),
            email: Type.String({ minLength: 3, maxLength: 255 }),
            // Sent by the dashboard and read by nobody: the entry id names the entry. Still
            // accepted (unknown properties are refused) so clients that send it keep working.
            breach_id: Type.Optional(Type.String({ maxLength: 256, description: 'Ignored; accepted for existing clients.' })),
          },
          { additionalProperties: false },
        ),
        response: { 200: Success, ...errors },
      },
    },
    async (request) => {
      await removal.request(request.user.sub, request.body, request.limitAddress, (error) =>
        request.log.error({ error: error instanceof Error ? error.message : String(error) }, 'entry removal mail failed'),
      );
      return { success: true };
    },
  );

  // The mailed link is the proof: it works without signing in (the owner of the address may
  // have no account, or be signed in elsewhere).
  r.post(
    '/remove-entry',
    {
      schema: {
        operationId: 'removeEntry',
        tags,
        summary: 'Confirms a removal with the mailed link (no sign-in needed); the entry disappears from every result for good.',
        body: Type.Object(
          { id: Type.String({ minLength: 1, maxLength: 128 }), v: Type.String({ minLength: 1, maxLength: 200 }) },
          { additionalProperties: false },
        ),
        response: { 200: Success, ...errors },
      },
    },
    async (request) => {
      await removal.confirm(request.body);
      return { success: true };
    },
  );
}
