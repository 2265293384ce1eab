import type { FastifyInstance } from 'fastify';
import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { RemovalService } from './removal-service';
import type { OptOutService } from './opt-out-service';
import { ErrorBody } from '../infra/errors';

const Success = Type.Object({ success: Type.Boolean() });

export function registerRemovalRoutes(app: FastifyInstance, deps: { removal: RemovalService; optOut: OptOutService }) {
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
      await deps.removal.request(request.user.sub, request.body, request.limitAddress, (error) =>
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
      await deps.removal.confirm(request.body);
      return { success: true };
    },
  );

  const Token = Type.String({ minLength: 1, maxLength: 200 });
  const optOutTags = ['opt-out'];
  const logMailError = (request: { log: { error: (o: object, m: string) => void } }) => (error: unknown) =>
    request.log.error({ error: error instanceof Error ? error.message : String(error) }, 'opt-out mail failed');

  r.post(
    '/privacy/opt-out',
    {
      schema: {
        operationId: 'optOutRequest',
        tags: optOutTags,
        summary: 'Anyone, without an account: mails a single-use link to the address that shows every record holding it and opts it out (or lifts its opt-out).',
        description:
          'Answers {"success": true} for every valid address, whether or not any record holds it (a mail goes out either way, at most 3 a day per address). 400 for an invalid address; 429 when this client address asked too often.',
        body: Type.Object({ email: Type.String({ maxLength: 255 }) }, { additionalProperties: false }),
        response: { 200: Success, 400: ErrorBody, 429: ErrorBody },
      },
    },
    async (request) => {
      await deps.optOut.request(request.body.email, request.limitAddress, logMailError(request));
      return { success: true };
    },
  );

  r.post(
    '/privacy/opt-out/preview',
    {
      schema: {
        operationId: 'optOutPreview',
        tags: optOutTags,
        summary: "The link's address, how many records hold it, per data well (no values), and whether it is opted out. Does not use the link up.",
        body: Type.Object({ t: Token }, { additionalProperties: false }),
        response: {
          200: Type.Object({
            email: Type.String(),
            total: Type.Integer(),
            wells: Type.Array(Type.Object({ name: Type.String(), records: Type.Integer() })),
            truncated: Type.Boolean(),
            opted_out: Type.Boolean(),
            opted_out_since: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
          }),
          400: ErrorBody,
          429: ErrorBody,
        },
      },
    },
    async (request) => deps.optOut.preview(request.body.t, request.limitAddress),
  );

  r.post(
    '/privacy/opt-out/confirm',
    {
      schema: {
        operationId: 'optOutConfirm',
        tags: optOutTags,
        summary:
          'Uses the link up and opts its address out: no search, count, password check, alert or export shows a record holding it, in the data wells there are and in those added later, until the opt-out is lifted.',
        body: Type.Object({ t: Token }, { additionalProperties: false }),
        response: { 200: Type.Object({ removed: Type.Integer(), remaining: Type.Integer() }), 400: ErrorBody },
      },
    },
    async (request) => deps.optOut.confirm(request.body.t),
  );

  r.post(
    '/privacy/opt-out/undo',
    {
      schema: {
        operationId: 'optOutUndo',
        tags: optOutTags,
        summary: "Uses the link up and lifts its address's opt-out: its records show again, except entries removed one by one.",
        description: '400 when the link is invalid, used or expired, or the address is not opted out.',
        body: Type.Object({ t: Token }, { additionalProperties: false }),
        response: { 200: Type.Object({ restored: Type.Integer() }), 400: ErrorBody },
      },
    },
    async (request) => deps.optOut.undo(request.body.t),
  );
}
