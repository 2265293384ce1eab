/**
 * The Profile's "Sessions" card: the account's live sessions, ending one of them, "Sign out
 * everywhere" (all but the current one), and the sign-in history. Bearer routes: the
 * current session is the access token's `sid`.
 */
import type { FastifyInstance } from 'fastify';
import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { SessionsService } from './sessions';
import { ErrorBody } from '../infra/errors';

const Success = Type.Object({ success: Type.Boolean() });
const errors = { 400: ErrorBody, 401: ErrorBody, 429: ErrorBody };
const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);

const Session = Type.Object({
  id: Type.String({ format: 'uuid' }),
  device: Type.String({ description: 'From the user agent, e.g. "Chrome on Linux".' }),
  ip: Nullable(Type.String({ description: 'The address the session signed in from.' })),
  created_at: Type.String({ format: 'date-time' }),
  last_used_at: Type.String({ format: 'date-time', description: 'Kept to the minute.' }),
  remember: Type.Boolean(),
  current: Type.Boolean({ description: 'The session of this request.' }),
});

const SignIn = Type.Object({
  at: Type.String({ format: 'date-time' }),
  ip: Type.String(),
  device: Type.String(),
  method: Type.Union([Type.Literal('password'), Type.Literal('code'), Type.Literal('recovery code'), Type.Literal('passkey')]),
  success: Type.Boolean(),
});

export function registerSessionRoutes(app: FastifyInstance, deps: { sessions: SessionsService }) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { sessions } = deps;
  const common = { onRequest: [app.authenticate] };
  const tags = ['user'];
  const security = [{ bearer: [] }];

  r.get(
    '/user/sessions',
    {
      ...common,
      schema: {
        operationId: 'listSessions',
        tags,
        security,
        summary: "The account's live sessions, most recently used first; the current one is marked.",
        response: { 200: Type.Object({ sessions: Type.Array(Session) }), ...errors },
      },
    },
    async (request) => ({ sessions: await sessions.list(request.user.sub, request.user.sid) }),
  );

  r.post(
    '/user/sessions/sign-out',
    {
      ...common,
      schema: {
        operationId: 'signOutSession',
        tags,
        security,
        summary: 'Ends one live session of the account: its access tokens stop working and its websockets close. 404 for an unknown, ended or foreign session.',
        body: Type.Object({ session_id: Type.String({ format: 'uuid' }) }, { additionalProperties: false }),
        response: { 200: Success, 404: ErrorBody, ...errors },
      },
    },
    async (request) => {
      await sessions.end(request.user.sub, request.body.session_id);
      return { success: true };
    },
  );

  r.post(
    '/user/sessions/sign-out-everywhere',
    {
      ...common,
      schema: {
        operationId: 'signOutEverywhere',
        tags,
        security,
        summary: 'Ends every live session of the account but the current one; answers how many ended.',
        response: { 200: Type.Object({ success: Type.Boolean(), ended: Type.Integer() }), ...errors },
      },
    },
    async (request) => ({ success: true, ended: await sessions.endOthers(request.user.sub, request.user.sid) }),
  );

  r.get(
    '/user/sign-in-history',
    {
      ...common,
      schema: {
        operationId: 'signInHistory',
        tags,
        security,
        summary: "The account's last 20 sign-ins and failed attempts, newest first.",
        response: { 200: Type.Object({ entries: Type.Array(SignIn) }), ...errors },
      },
    },
    async (request) => ({ entries: await sessions.history(request.user.sub) }),
  );
}
