/**
 * The words every part of the second factor shares (two-factor.ts composes the parts): where
 * a factor is presented, what is presented, how a step was passed, and the refusals.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import type { Config } from '../config';
import type { RateLimiter } from '../infra/rate-limiter';
import { AppError } from '../infra/errors';

export interface TwoFactorDeps {
  db: Kysely<Database>;
  config: Config;
  limiter: RateLimiter;
  ipSecret: string;
}

/** Where a passkey assertion is presented: its challenge must have been issued for exactly that. */
export type PasskeyStep =
  /** "Sign in with a passkey": no account yet, any discoverable credential. */
  | { purpose: 'sign-in' }
  /** The second step of one pending password sign-in (the pending token's hash). */
  | { purpose: 'second-factor'; userId: string; pendingTokenHash: string }
  /** A step-up for a sensitive change, in one session. */
  | { purpose: 'step-up'; userId: string; sessionId: string };

/** A second factor's step: a pending sign-in's or a session's step-up. */
export type SecondFactorStep = Exclude<PasskeyStep, { purpose: 'sign-in' }>;

/** The signed-in account and session a profile change comes from. */
export interface Actor {
  userId: string;
  sessionId: string;
}

export const stepUpOf = (actor: Actor): SecondFactorStep => ({ purpose: 'step-up', userId: actor.userId, sessionId: actor.sessionId });

/** How a second step was passed, in the words of the sign-in history. */
export type SecondFactorMethod = 'code' | 'recovery code' | 'passkey';

/** What a caller presents as the second factor (one of them). */
export interface SecondFactorProof {
  code?: string;
  recovery_code?: string;
  passkey?: unknown;
}

/** Checks one presented second factor for the step's account; throws when missing or wrong. */
export type CheckSecondFactor = (step: SecondFactorStep, proof: SecondFactorProof, ip: string) => Promise<SecondFactorMethod>;

export const TwoFactorErrors = {
  /** Two-factor is on and the request carries no second factor. */
  required: () => new AppError(403, 'SECOND_FACTOR_REQUIRED', 'Authentication code required'),
  invalidCode: () => new AppError(403, 'INVALID_SECOND_FACTOR', 'Invalid authentication code'),
  invalidRecoveryCode: () => new AppError(403, 'INVALID_SECOND_FACTOR', 'Invalid recovery code'),
  invalidPasskey: () => new AppError(403, 'INVALID_SECOND_FACTOR', 'Passkey not recognised'),
};
