/** The opt-out's routes (opt-out-service.ts): anyone, without an account, through a mailed link. */
import type { FastifyInstance } from 'fastify';
import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { OptOutService } from './opt-out-service';
import { ErrorBody } from '../infra/errors';

const Success = Type.Object({ success: Type.Boolean() });
const Token = Type.String({ minLength: 1, maxLength: 200 });
const tags = ['opt-out'];

export function registerOptOutRoutes(app: FastifyInstance, optOut: OptOutService) {
  registerOptOutRequest(app, optOut);
  registerOptOutLinkRoutes(app, optOut);
}

/** `POST /privacy/opt-out`: mails the link. */
function registerOptOutRequest(app: FastifyInstance, optOut: OptOutService) {
  const logMailError = (request: { log: { error: (o: object, m: string) => void } }) => (error: unknown) =>
    request.log.error({ error: error instanceof Error ? error.message : String(error) }, 'opt-out mail failed');

  app.withTypeProvider<TypeBoxTypeProvider>().post(
    '/privacy/opt-out',
    {
      schema: {
        operationId: 'optOutRequest',
        tags,
        summary: 'Anyone, without an account: mails a single-use link to the address that shows every record holding it and opts it out (or lifts its opt-out).',
        description:
          'Answers {"success": true} for every valid address, whether or not any record holds it (a mail goes out either way, at most 3 a day per address). 400 for an invalid address; 429 when this client address asked too often.',
        body: Type.Object({ email: Type.String({ maxLength: 255 }) }, { additionalProperties: false }),
        response: { 200: Success, 400: ErrorBody, 429: ErrorBody },
      },
    },
    async (request) => {
      await optOut.request(request.body.email, request.limitAddress, logMailError(request));
      return { success: true };
    },
  );
}

/** What the mailed link does: preview, confirm, undo. */
function registerOptOutLinkRoutes(app: FastifyInstance, optOut: OptOutService) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.post(
    '/privacy/opt-out/preview',
    {
      schema: {
        operationId: 'optOutPreview',
        tags,
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
    async (request) => optOut.preview(request.body.t, request.limitAddress),
  );

  r.post(
    '/privacy/opt-out/confirm',
    {
      schema: {
        operationId: 'optOutConfirm',
        tags,
        summary:
          'Uses the link up and opts its address out: no search, count, password check, alert or export shows a record holding it, in the data wells there are and in those added later, until the opt-out is lifted.',
        body: Type.Object({ t: Token }, { additionalProperties: false }),
        response: { 200: Type.Object({ removed: Type.Integer(), remaining: Type.Integer() }), 400: ErrorBody },
      },
    },
    async (request) => optOut.confirm(request.body.t),
  );

  r.post(
    '/privacy/opt-out/undo',
    {
      schema: {
        operationId: 'optOutUndo',
        tags,
        summary: "Uses the link up and lifts its address's opt-out: its records show again, except entries removed one by one.",
        description: '400 when the link is invalid, used or expired, or the address is not opted out.',
        body: Type.Object({ t: Token }, { additionalProperties: false }),
        response: { 200: Type.Object({ restored: Type.Integer() }), 400: ErrorBody },
      },
    },
    async (request) => optOut.undo(request.body.t),
  );
}
