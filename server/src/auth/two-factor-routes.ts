/**
 * Two-factor settings of the signed-in account (profile, "Two-factor authentication"): TOTP
 * on and off, recovery codes, passkeys. Sensitive changes take a step-up proof (`code`,
 * `recovery_code` or `passkey`) when two-factor is on: 403 "Authentication code required"
 * without one, 403 "Invalid authentication code" (or recovery code, passkey) when wrong.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Actor, TwoFactorService } from './two-factor';
import { ErrorBody } from '../infra/errors';
import { StepUpFields, WebAuthnResponse, emptyBodyAsObject } from './auth-schemas';

const Success = Type.Object({ success: Type.Boolean() });
const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 429: ErrorBody };

const RecoveryCodes = Type.Object({ recovery_codes: Type.Array(Type.String()) });
const StepUp = Type.Object(StepUpFields, { additionalProperties: false });
const tags = ['two-factor'];
const security = [{ bearer: [] }];

/** The signed-in account and its session: a step-up's passkey challenge is bound to the session. */
const actorOf = (request: FastifyRequest): Actor => ({ userId: request.user.sub, sessionId: request.user.sid });

/** Whether two-factor is on, with what, and how many recovery codes are left. */
function registerStatusRoute(app: FastifyInstance, twoFactor: TwoFactorService) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const common = { onRequest: [app.authenticate] };

  r.get(
    '/user/two-factor',
    {
      ...common,
      schema: {
        operationId: 'twoFactorStatus',
        tags,
        security,
        response: {
          200: Type.Object({
            enabled: Type.Boolean(),
            totp: Type.Boolean(),
            totp_enabled_at: Type.Union([Type.String(), Type.Null()]),
            recovery_codes_left: Type.Integer(),
            passkeys: Type.Array(
              Type.Object({ id: Type.String(), name: Type.String(), created_at: Type.String(), last_used_at: Type.Union([Type.String(), Type.Null()]) }),
            ),
          }),
          ...errors,
        },
      },
    },
    (request) => twoFactor.status(request.user.sub),
  );
}

/** TOTP: a new secret, its first code turning it on, turning it off. */
function registerTotpRoutes(app: FastifyInstance, twoFactor: TwoFactorService) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const common = { onRequest: [app.authenticate] };

  r.post(
    '/user/two-factor/totp/begin',
    {
      ...common,
      preValidation: emptyBodyAsObject,
      schema: {
        operationId: 'twoFactorTotpBegin',
        tags,
        security,
        summary: 'A new secret awaiting its first code: the otpauth:// URI, its QR code (PNG data URL) and the secret as text.',
        body: StepUp,
        response: { 200: Type.Object({ secret: Type.String(), uri: Type.String(), qr_code: Type.String() }), ...errors },
      },
    },
    (request) => twoFactor.beginTotp(actorOf(request), request.body, request.limitAddress),
  );

  r.post(
    '/user/two-factor/totp/confirm',
    {
      ...common,
      schema: {
        operationId: 'twoFactorTotpConfirm',
        tags,
        security,
        summary: 'Turns TOTP on with a first code; answers the 10 recovery codes, shown only here.',
        body: Type.Object({ code: Type.String({ maxLength: 16 }) }, { additionalProperties: false }),
        response: { 200: RecoveryCodes, ...errors },
      },
    },
    async (request) => ({ recovery_codes: await twoFactor.confirmTotp(request.user.sub, request.body.code, request.limitAddress) }),
  );

  r.post(
    '/user/two-factor/totp/disable',
    { ...common, schema: { operationId: 'twoFactorTotpDisable', tags, security, body: StepUp, response: { 200: Success, ...errors } } },
    async (request) => {
      await twoFactor.disableTotp(actorOf(request), request.body, request.limitAddress);
      return { success: true };
    },
  );
}

/** Ten new recovery codes (the old ones die). */
function registerRecoveryCodeRoute(app: FastifyInstance, twoFactor: TwoFactorService) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const common = { onRequest: [app.authenticate] };

  r.post(
    '/user/two-factor/recovery-codes',
    {
      ...common,
      schema: {
        operationId: 'twoFactorRecoveryCodes',
        tags,
        security,
        summary: 'Ten new recovery codes, shown only here; the previous ones stop working.',
        body: StepUp,
        response: { 200: RecoveryCodes, ...errors },
      },
    },
    async (request) => ({ recovery_codes: await twoFactor.regenerateRecoveryCodes(actorOf(request), request.body, request.limitAddress) }),
  );
}

/** Passkeys: step-up options, a new passkey's options, adding and removing one. */
function registerPasskeyRoutes(app: FastifyInstance, twoFactor: TwoFactorService) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const common = { onRequest: [app.authenticate] };

  r.post(
    '/user/two-factor/passkey-options',
    {
      ...common,
      schema: {
        operationId: 'twoFactorPasskeyOptions',
        tags,
        security,
        summary:
          "Options for navigator.credentials.get() over the account's passkeys, for a step-up with a passkey in this session (the challenge serves nothing else).",
        response: { 200: Type.Unknown(), ...errors },
      },
    },
    (request) => twoFactor.passkeyOptions({ purpose: 'step-up', ...actorOf(request) }),
  );

  r.post(
    '/user/two-factor/passkeys/options',
    {
      ...common,
      preValidation: emptyBodyAsObject,
      schema: {
        operationId: 'twoFactorPasskeyRegistrationOptions',
        tags,
        security,
        summary: 'Options for navigator.credentials.create(): a discoverable credential, user verification required.',
        body: StepUp,
        response: { 200: Type.Unknown(), ...errors },
      },
    },
    (request) => twoFactor.passkeyRegistrationOptions(actorOf(request), request.body, request.limitAddress),
  );

  r.post(
    '/user/two-factor/passkeys',
    {
      ...common,
      schema: {
        operationId: 'twoFactorAddPasskey',
        tags,
        security,
        summary: "Adds a passkey; an account's first second factor also answers its recovery codes (else null).",
        body: Type.Object({ name: Type.String({ maxLength: 200 }), response: WebAuthnResponse }, { additionalProperties: false }),
        response: { 200: Type.Object({ recovery_codes: Type.Union([Type.Array(Type.String()), Type.Null()]) }), ...errors },
      },
    },
    (request) => twoFactor.addPasskey(actorOf(request), request.body.name, request.body.response),
  );

  r.post(
    '/user/two-factor/passkeys/remove',
    {
      ...common,
      schema: {
        operationId: 'twoFactorRemovePasskey',
        tags,
        security,
        body: Type.Object({ id: Type.String({ maxLength: 64 }), ...StepUpFields }, { additionalProperties: false }),
        response: { 200: Success, ...errors },
      },
    },
    async (request) => {
      const { id, ...proof } = request.body;
      await twoFactor.removePasskey(actorOf(request), id, proof, request.limitAddress);
      return { success: true };
    },
  );
}

export function registerTwoFactorRoutes(app: FastifyInstance, deps: { twoFactor: TwoFactorService }) {
  registerStatusRoute(app, deps.twoFactor);
  registerTotpRoutes(app, deps.twoFactor);
  registerRecoveryCodeRoute(app, deps.twoFactor);
  registerPasskeyRoutes(app, deps.twoFactor);
}
