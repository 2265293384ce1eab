import type { FastifyInstance } from 'fastify';
import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AuthService } from '../auth/auth-service';
import { StepUpFields, emptyBodyAsObject } from '../auth/auth-schemas';
import type { UserService } from './user-service';
import { NOTIFICATION_SETTINGS, type NotificationSetting } from './user-repository';
import { ErrorBody } from '../infra/errors';

const Success = Type.Object({ success: Type.Boolean() });
const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 429: ErrorBody };
const tags = ['user'];
const security = [{ bearer: [] }];

interface UserRouteDeps {
  users: UserService;
  auth: AuthService;
  apiKeyHeader: string;
}

export const CurrentUser = Type.Object({
  email: Type.String(),
  created_at: Type.String(),
  search_access: Type.Boolean(),
  is_enterprise: Type.Boolean(),
  whois_credits: Type.Integer(),
  search_credits: Type.Integer(),
  api_private_key: Type.Union([Type.String(), Type.Null()], { description: 'Masked: "••••" plus the last 4 characters.' }),
  has_notifications: Type.Boolean(),
  search_is_recurring: Type.Boolean(),
  search_subscribed_until: Type.Union([Type.Integer(), Type.Null()], { description: 'Epoch seconds.' }),
  elevated: Type.Boolean(),
  law_enforcement: Type.Boolean(),
});

const Profile = Type.Object({
  email: Type.String(),
  enterprise: Type.Boolean(),
  enterprise_monitoring_expiration_notification: Type.Boolean(),
  low_api_credits_notification: Type.Boolean(),
  low_whois_credits_notification: Type.Boolean(),
  monitoring_expiration_notification: Type.Boolean(),
  search_expiration_notification: Type.Boolean(),
  store_invoices: Type.Boolean(),
  store_extra_invoice_data: Type.Boolean(),
});

/** The signed-in account as the dashboard shows it, and its notification settings. */
function registerProfileRoutes(app: FastifyInstance, deps: UserRouteDeps) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { users } = deps;
  const common = { onRequest: [app.authenticate] };

  r.get('/user/info', { ...common, schema: { operationId: 'userInfo', tags, security, response: { 200: CurrentUser, ...errors } } }, (request) =>
    users.info(request.user.sub),
  );

  r.get('/user/profile', { ...common, schema: { operationId: 'userProfile', tags, security, response: { 200: Profile, ...errors } } }, (request) =>
    users.profile(request.user.sub),
  );

  r.post(
    '/user/update-notification-setting',
    {
      ...common,
      schema: {
        operationId: 'updateNotificationSetting',
        tags,
        security,
        body: Type.Object(
          {
            setting: Type.Union(Object.keys(NOTIFICATION_SETTINGS).map((name) => Type.Literal(name))),
            set: Type.Boolean(),
          },
          { additionalProperties: false },
        ),
        response: { 200: Success, ...errors },
      },
    },
    async (request) => {
      await users.updateSetting(request.user.sub, request.body.setting as NotificationSetting, request.body.set);
      return { success: true };
    },
  );
}

/** Closing the account: the mailed link, then the final step. */
function registerClosureRoutes(app: FastifyInstance, deps: UserRouteDeps) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { auth } = deps;
  const common = { onRequest: [app.authenticate] };

  r.post(
    '/user/account-closure-request',
    { ...common, schema: { operationId: 'accountClosureRequest', tags, security, response: { 200: Success, ...errors } } },
    async (request) => {
      await auth.requestClosure(request.user.sub);
      return { success: true };
    },
  );

  r.post(
    '/user/account-closure-final',
    {
      ...common,
      schema: {
        operationId: 'accountClosureFinal',
        tags,
        security,
        summary:
          'Closes the account with the mailed token: every session ends and the API key stops working. With two-factor on, also a code, recovery_code or passkey (403 when missing or wrong).',
        body: Type.Object({ token: Type.String({ minLength: 1, maxLength: 200 }), ...StepUpFields }, { additionalProperties: false }),
        response: { 200: Success, ...errors },
      },
    },
    async (request) => {
      const { token, ...proof } = request.body;
      await auth.finalizeClosure(request.user.sub, request.user.sid, token, proof, request.limitAddress);
      return { success: true };
    },
  );
}

/** The API key: a new one (behind the second factor), and checking one. */
function registerApiKeyRoutes(app: FastifyInstance, deps: UserRouteDeps) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { users, auth } = deps;
  const common = { onRequest: [app.authenticate] };

  r.post(
    '/user/update-key',
    {
      ...common,
      preValidation: emptyBodyAsObject,
      schema: {
        operationId: 'updateApiKey',
        tags,
        security,
        summary:
          'Generates a new API key, shown only in this answer; the previous key stops working. With two-factor on, the body carries a code, recovery_code or passkey (403 when missing or wrong).',
        body: Type.Object(StepUpFields, { additionalProperties: false }),
        response: { 200: Type.Object({ api_key: Type.String() }), ...errors },
      },
    },
    async (request) => {
      // The key itself stays what it is (the public and Monitor APIs take it alone); making a new one is guarded.
      await auth.twoFactor.requireStepUp({ userId: request.user.sub, sessionId: request.user.sid }, request.body, request.limitAddress);
      return { api_key: await users.regenerateApiKey(request.user.sub) };
    },
  );

  r.get(
    '/user/check-api-key',
    {
      ...common,
      schema: {
        operationId: 'checkApiKey',
        tags,
        security,
        summary: `With the ${deps.apiKeyHeader} header: whether it is the user's current key; without: whether the user has a key.`,
        response: { 200: Type.Object({ valid: Type.Boolean() }), ...errors },
      },
    },
    async (request) => {
      const header = request.headers[deps.apiKeyHeader.toLowerCase()];
      return { valid: await users.checkApiKey(request.user.sub, Array.isArray(header) ? header[0] : header) };
    },
  );
}

export function registerUserRoutes(app: FastifyInstance, deps: UserRouteDeps) {
  registerProfileRoutes(app, deps);
  registerClosureRoutes(app, deps);
  registerApiKeyRoutes(app, deps);
}
