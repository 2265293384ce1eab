/** What auth shares with other features: the step-up schemas (and body hook) of sensitive routes, and the access token's claims. */
import type { FastifyRequest } from 'fastify';
import { Type } from '@fastify/type-provider-typebox';

/** A WebAuthn response as @simplewebauthn/browser gives it (checked by the server library). */
export const WebAuthnResponse = Type.Object({ id: Type.String({ maxLength: 1024 }) }, { additionalProperties: true });

/** The second factor a sensitive change presents when two-factor is on (one of them). */
export const StepUpFields = {
  code: Type.Optional(Type.String({ maxLength: 16, description: 'A current 6-digit authentication code.' })),
  recovery_code: Type.Optional(Type.String({ maxLength: 64, description: 'An unused recovery code (used up).' })),
  passkey: Type.Optional({ ...WebAuthnResponse, description: 'A passkey assertion to options from POST /user/two-factor/passkey-options.' }),
};

/** For routes whose step-up body is optional: no body reads as `{}` (two-factor off needs none). */
export async function emptyBodyAsObject(request: FastifyRequest): Promise<void> {
  if (request.body === undefined || request.body === null) request.body = {};
}

/** The claims of an access token: the account and the session it belongs to. */
export interface AccessClaims {
  sub: string;
  sid: string;
}
