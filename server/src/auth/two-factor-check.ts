/**
 * Checking a presented second factor (a code, a recovery code or a passkey) for a pending
 * sign-in's second step or a session's step-up: throttled first, a right one forgets its
 * address's failures. Step-up: sensitive changes take one when two-factor is on.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import { AppError } from '../infra/errors';
import { isTwoFactorOn } from './two-factor-account';
import { verifyPasskey, type RelyingParty } from './two-factor-passkeys';
import { useRecoveryCode } from './two-factor-recovery-codes';
import type { TwoFactorSecrets } from './two-factor-secrets';
import type { TwoFactorThrottle } from './two-factor-throttle';
import { verifyTotpCode } from './two-factor-totp';
import {
  stepUpOf,
  TwoFactorErrors,
  type Actor,
  type CheckSecondFactor,
  type SecondFactorMethod,
  type SecondFactorProof,
  type SecondFactorStep,
} from './two-factor-types';

interface CheckDeps {
  db: Kysely<Database>;
  rp: RelyingParty;
  secrets: TwoFactorSecrets;
  throttle: TwoFactorThrottle;
}

function methodOf(proof: SecondFactorProof): SecondFactorMethod | null {
  return proof.passkey ? 'passkey' : proof.recovery_code ? 'recovery code' : proof.code ? 'code' : null;
}

export function createSecondFactorCheck(deps: CheckDeps) {
  const { throttle } = deps;

  /** A passkey for the step's account, against a challenge issued for this step; a wrong one counts as a failure. */
  async function usePasskey(step: SecondFactorStep, passkey: unknown, ip: string): Promise<void> {
    try {
      await verifyPasskey(deps, passkey, step);
    } catch (error) {
      if (error instanceof AppError && error.code === 'INVALID_SECOND_FACTOR') await throttle.failed(step.userId, ip, 'other', error);
      throw error;
    }
  }

  /**
   * Checks one presented second factor for the step's account (a passkey: against a challenge
   * issued for this step); throws when missing or wrong.
   */
  const check: CheckSecondFactor = async (step, proof, ip) => {
    const { userId } = step;
    const method = methodOf(proof);
    if (!method) throw TwoFactorErrors.required();
    await throttle.throttleAttempt(userId, ip, method === 'code' ? 'code' : 'other');
    if (method === 'code') await verifyTotpCode(deps, userId, proof.code!, ip);
    else if (method === 'recovery code') await useRecoveryCode(deps, userId, proof.recovery_code!, ip);
    else await usePasskey(step, proof.passkey, ip);
    await throttle.passed(userId, ip);
    return method;
  };

  return {
    check,

    /**
     * Step-up for a sensitive change (turning two-factor off, new recovery codes, a new API
     * key, a new password, closing the account, passkeys): nothing to check when two-factor
     * is off; otherwise a current code, a recovery code or a passkey (challenge from this session).
     */
    async requireStepUp(actor: Actor, proof: SecondFactorProof, ip: string): Promise<void> {
      if (!(await isTwoFactorOn(deps.db, actor.userId))) return;
      await check(stepUpOf(actor), proof, ip);
    },
  };
}
