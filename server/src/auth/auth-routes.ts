import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import {
  ObfuscationError,
  unpackForgot,
  unpackLogin,
  unpackRegister,
  unpackReset,
  type ForgotFields,
  type LoginFields,
  type RegisterFields,
  type ResetFields,
} from '../common/obfuscation';
import { ErrorBody, Errors } from '../infra/errors';
import type { AuthService, SessionTokens } from './auth-service';
import { storedUserAgent } from './user-agent';
import { StepUpFields, WebAuthnResponse } from './auth-schemas';

export const REFRESH_COOKIE = 'refresh_token';
const Encoded = Type.String({ maxLength: 4096 });
const Success = Type.Object({ success: Type.Boolean() });
const TokenBody = Type.Object({ auth_token: Type.String() });
/** A right password with two-factor on: no session yet; POST /authentication/second-factor follows. */
const SecondStepBody = Type.Object({
  second_factor_required: Type.Literal(true),
  pending_token: Type.String(),
  methods: Type.Array(Type.Union([Type.Literal('code'), Type.Literal('recovery code'), Type.Literal('passkey')])),
});
const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 429: ErrorBody };
const tags = ['auth'];

interface AuthRouteDeps {
  auth: AuthService;
  secureCookies: boolean;
}

/** The exact address and user agent a session and the sign-in history show. */
function clientOf(request: FastifyRequest) {
  return { ip: request.ip, userAgent: storedUserAgent(request.headers['user-agent']) };
}

function setRefreshCookie(reply: FastifyReply, tokens: SessionTokens, secure: boolean) {
  reply.setCookie(REFRESH_COOKIE, tokens.refreshToken, {
    httpOnly: true,
    secure,
    sameSite: 'strict',
    path: '/authentication',
    ...(tokens.cookieMaxAge ? { maxAge: tokens.cookieMaxAge } : {}),
  });
}

function clearRefreshCookie(reply: FastifyReply, secure: boolean) {
  reply.clearCookie(REFRESH_COOKIE, { path: '/authentication', httpOnly: true, sameSite: 'strict', secure });
}

function decode<F, V>(unpack: (fields: F) => V, fields: F): V {
  try {
    return unpack(fields);
  } catch (error) {
    if (error instanceof ObfuscationError) throw Errors.malformedPayload(error.message);
    throw error;
  }
}

/** Registration and the mailed verification link. */
function registerSignUpRoutes(app: FastifyInstance, deps: AuthRouteDeps) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { auth } = deps;

  r.post(
    '/registration/submit',
    {
      schema: {
        operationId: 'register',
        tags,
        summary: 'Create an account; a verification link is mailed. Same answer whether or not the email has an account.',
        body: Type.Object(
          {
            query: Encoded,
            r0: Type.String({ maxLength: 64 }),
            r01: Type.String({ maxLength: 16 }),
            r02: Type.String({ maxLength: 20 }),
            r03: Type.Optional(Type.String({ maxLength: 4 })),
            r04: Type.Optional(Type.String({ maxLength: 64 })),
            entropy_modifier: Type.Optional(Type.String({ maxLength: 64 })),
            shift_matrix: Type.Optional(Type.String({ maxLength: 64 })),
          },
          { additionalProperties: false },
        ),
        response: { 200: Success, ...errors },
      },
    },
    async (request) => {
      const values = decode(unpackRegister, request.body as RegisterFields);
      await auth.register(values, request.limitAddress);
      return { success: true };
    },
  );

  r.post(
    '/authentication/verify-email',
    {
      schema: {
        operationId: 'verifyEmail',
        tags,
        body: Type.Object({ k: Type.String({ minLength: 1, maxLength: 200 }) }, { additionalProperties: false }),
        response: { 200: Success, ...errors },
      },
    },
    async (request) => {
      await auth.verifyEmail(request.body.k);
      return { success: true };
    },
  );
}

/** A password sign-in and, with two-factor on, its second step. */
function registerPasswordSignInRoutes(app: FastifyInstance, deps: AuthRouteDeps) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { auth } = deps;

  r.post(
    '/authentication/login',
    {
      schema: {
        operationId: 'login',
        tags,
        summary:
          '200 with auth_token and a refresh cookie, or (two-factor on) second_factor_required with a pending_token for POST /authentication/second-factor; 401 email not verified; 403 wrong credentials; 429 throttled.',
        body: Type.Object(
          {
            db0: Encoded,
            dba0: Encoded,
            dbamod0: Type.String({ maxLength: 64 }),
            dbmod0: Encoded,
            db1: Type.String({ maxLength: 20 }),
            db2: Type.String({ maxLength: 16 }),
            db3: Type.Optional(Type.String({ maxLength: 64 })),
          },
          { additionalProperties: false },
        ),
        response: { 200: Type.Union([TokenBody, SecondStepBody]), ...errors },
      },
    },
    async (request, reply) => {
      const values = decode(unpackLogin, request.body as LoginFields);
      const outcome = await auth.login(values, request.limitAddress, clientOf(request));
      if ('pendingToken' in outcome) return { second_factor_required: true as const, pending_token: outcome.pendingToken, methods: outcome.methods };
      setRefreshCookie(reply, outcome, deps.secureCookies);
      return { auth_token: outcome.accessToken };
    },
  );

  r.post(
    '/authentication/second-factor',
    {
      schema: {
        operationId: 'loginSecondFactor',
        tags,
        summary:
          "The sign-in's second step: the pending token and one of code, recovery_code, passkey. 200 with auth_token and a refresh cookie; 401 sign-in expired; 403 missing or wrong; 429 throttled.",
        body: Type.Object({ pending_token: Type.String({ maxLength: 200 }), ...StepUpFields }, { additionalProperties: false }),
        response: { 200: TokenBody, ...errors },
      },
    },
    async (request, reply) => {
      const { pending_token, ...proof } = request.body;
      const tokens = await auth.completeSecondFactor(pending_token, proof, request.limitAddress, clientOf(request));
      setRefreshCookie(reply, tokens, deps.secureCookies);
      return { auth_token: tokens.accessToken };
    },
  );
}

/** "Sign in with a passkey", and passkey options before any session (a passkey sign-in or a second step). */
function registerPasskeySignInRoutes(app: FastifyInstance, deps: AuthRouteDeps) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { auth } = deps;

  r.post(
    '/authentication/passkey-options',
    {
      schema: {
        operationId: 'passkeyOptions',
        tags,
        summary:
          'Options for navigator.credentials.get(). Without pending_token: "Sign in with a passkey" (any discoverable credential); with one: the second step, over that account\'s passkeys. The challenge serves only that use (and that pending sign-in).',
        body: Type.Object({ pending_token: Type.Optional(Type.String({ maxLength: 200 })) }, { additionalProperties: false }),
        response: { 200: Type.Unknown(), ...errors },
      },
    },
    async (request) => {
      await auth.throttlePasskeyOptions(request.limitAddress);
      return auth.signInPasskeyOptions(request.body.pending_token);
    },
  );

  r.post(
    '/authentication/passkey',
    {
      schema: {
        operationId: 'passkeyLogin',
        tags,
        summary: '"Sign in with a passkey": an assertion to options from /authentication/passkey-options, no email or password. 200 with auth_token and a refresh cookie.',
        body: Type.Object({ response: WebAuthnResponse, remember: Type.Optional(Type.Boolean()) }, { additionalProperties: false }),
        response: { 200: TokenBody, ...errors },
      },
    },
    async (request, reply) => {
      const tokens = await auth.passkeyLogin(request.body.response, request.body.remember ?? false, request.limitAddress, clientOf(request));
      setRefreshCookie(reply, tokens, deps.secureCookies);
      return { auth_token: tokens.accessToken };
    },
  );
}

/** The refresh cookie: a new access token, and signing out. */
function registerSessionTokenRoutes(app: FastifyInstance, deps: AuthRouteDeps) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { auth } = deps;

  r.post(
    '/authentication/refresh',
    { schema: { operationId: 'refresh', tags, response: { 200: TokenBody, 401: ErrorBody } } },
    async (request, reply) => {
      try {
        const tokens = await auth.refresh(request.cookies[REFRESH_COOKIE]);
        setRefreshCookie(reply, tokens, deps.secureCookies);
        return { auth_token: tokens.accessToken };
      } catch (error) {
        clearRefreshCookie(reply, deps.secureCookies);
        throw error;
      }
    },
  );

  r.post('/authentication/logout', { schema: { operationId: 'logout', tags, response: { 200: Success } } }, async (request, reply) => {
    await auth.logout(request.cookies[REFRESH_COOKIE]);
    clearRefreshCookie(reply, deps.secureCookies);
    return { success: true };
  });
}

/** Forgotten password (a mailed reset link), reset, and change from a session. */
function registerPasswordRoutes(app: FastifyInstance, deps: AuthRouteDeps) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { auth } = deps;

  r.post(
    '/authentication/forgot-password',
    {
      schema: {
        operationId: 'forgotPassword',
        tags,
        summary: 'Always answers success for a well-formed email; a reset link is mailed when an account matches.',
        body: Type.Object({ ab: Encoded, cd: Type.String({ maxLength: 64 }), efu: Type.String({ maxLength: 16 }) }, { additionalProperties: false }),
        response: { 200: Success, ...errors },
      },
    },
    async (request) => {
      const { email } = decode(unpackForgot, request.body as ForgotFields);
      await auth.forgotPassword(email, request.limitAddress);
      return { success: true };
    },
  );

  r.post(
    '/authentication/reset-password',
    {
      schema: {
        operationId: 'resetPassword',
        tags,
        summary: '400 invalid or expired link (checked before the password is hashed); 429 too many attempts from the address.',
        body: Type.Object(
          { n: Encoded, n01: Encoded, n01a: Type.String({ maxLength: 64 }), n01b: Type.String({ maxLength: 16 }) },
          { additionalProperties: false },
        ),
        response: { 200: Success, ...errors },
      },
    },
    async (request) => {
      await auth.resetPassword(decode(unpackReset, request.body as ResetFields), request.limitAddress);
      return { success: true };
    },
  );

  r.post(
    '/authentication/update-password',
    {
      onRequest: [app.authenticate],
      schema: {
        operationId: 'updatePassword',
        tags,
        summary:
          '403 wrong current password, or (two-factor on) a missing or wrong code / recovery_code / passkey; 429 after too many wrong current passwords for the account.',
        security: [{ bearer: [] }],
        body: Type.Object(
          { password: Type.String({ maxLength: 1024 }), new_password: Type.String({ maxLength: 1024 }), ...StepUpFields },
          { additionalProperties: false },
        ),
        response: { 200: Success, ...errors },
      },
    },
    async (request) => {
      const { password, new_password, ...proof } = request.body;
      await auth.updatePassword(request.user.sub, request.user.sid, password, new_password, proof, request.limitAddress);
      return { success: true };
    },
  );
}

export function registerAuthRoutes(app: FastifyInstance, deps: AuthRouteDeps) {
  registerSignUpRoutes(app, deps);
  registerPasswordSignInRoutes(app, deps);
  registerPasskeySignInRoutes(app, deps);
  registerSessionTokenRoutes(app, deps);
  registerPasswordRoutes(app, deps);
}
