/**
 * Recovery codes: 10 single-use codes of 50 bits, stored as HMACs, shown once when made (the
 * first factor turning on, or on demand: the old ones die). A user who lost the phone turns
 * two-factor off with one.
 */
import { randomInt } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import { Errors } from '../infra/errors';
import * as repo from './two-factor-repository';
import { isTwoFactorOn } from './two-factor-account';
import type { TwoFactorSecrets } from './two-factor-secrets';
import type { TwoFactorThrottle } from './two-factor-throttle';
import { stepUpOf, TwoFactorErrors, type Actor, type CheckSecondFactor, type SecondFactorProof } from './two-factor-types';

export const RECOVERY_CODE_COUNT = 10;

function normalizeRecoveryCode(code: string): string {
  return code.toLowerCase().replace(/[\s-]+/g, '');
}

// 32 letters and digits without the look-alikes (l, o, 0, 1): 10 of them carry 50 bits.
const RECOVERY_ALPHABET = 'abcdefghijkmnpqrstuvwxyz23456789';
function newRecoveryCode(): string {
  let code = '';
  for (let i = 0; i < 10; i++) code += RECOVERY_ALPHABET[randomInt(RECOVERY_ALPHABET.length)];
  return `${code.slice(0, 5)}-${code.slice(5)}`;
}

interface RecoveryCodeDeps {
  db: Kysely<Database>;
  secrets: TwoFactorSecrets;
}

/** Replaces the account's recovery codes with 10 new ones, returned once in clear. */
export async function replaceRecoveryCodes(deps: RecoveryCodeDeps, userId: string): Promise<string[]> {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
  const hashes = await Promise.all(codes.map((code) => deps.secrets.mac(normalizeRecoveryCode(code))));
  await repo.replaceRecoveryCodes(deps.db, userId, hashes);
  return codes;
}

/** Uses up one of the account's recovery codes; a wrong one counts as a failure and throws. */
export async function useRecoveryCode(deps: RecoveryCodeDeps & { throttle: TwoFactorThrottle }, userId: string, code: string, ip: string): Promise<void> {
  const { throttle } = deps;
  if (code.length > 64) await throttle.failed(userId, ip, 'other', TwoFactorErrors.invalidRecoveryCode());
  const hash = await deps.secrets.mac(normalizeRecoveryCode(code));
  if (!(await repo.useRecoveryCode(deps.db, userId, hash))) await throttle.failed(userId, ip, 'other', TwoFactorErrors.invalidRecoveryCode());
}

/** Ten new recovery codes on demand (after step-up); the previous ones stop working. */
export function createRecoveryCodeSettings(deps: RecoveryCodeDeps & { check: CheckSecondFactor }) {
  return {
    async regenerateRecoveryCodes(actor: Actor, proof: SecondFactorProof, ip: string): Promise<string[]> {
      if (!(await isTwoFactorOn(deps.db, actor.userId))) throw Errors.badRequest('Two-factor authentication is not on');
      await deps.check(stepUpOf(actor), proof, ip);
      return replaceRecoveryCodes(deps, actor.userId);
    },
  };
}
