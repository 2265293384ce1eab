/**
 * The second factor: TOTP (two-factor-totp.ts), single-use recovery codes
 * (two-factor-recovery-codes.ts) and WebAuthn passkeys (two-factor-passkeys.ts,
 * two-factor-passkey-registration.ts), checked with their limits (two-factor-check.ts,
 * two-factor-throttle.ts). See server/src/auth/README.md.
 *
 * - Two-factor is "on" for an account when TOTP is on or it has at least one passkey.
 * - The TOTP secret is stored encrypted, recovery codes as HMACs (two-factor-secrets.ts).
 * - Step-up: sensitive changes take a current code, a recovery code (used up) or a passkey.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import { newOpaqueToken } from '../infra/secrets';
import * as repo from './two-factor-repository';
import { isTwoFactorOn, twoFactorStatus } from './two-factor-account';
import { createSecondFactorCheck } from './two-factor-check';
import { createPasskeySettings } from './two-factor-passkey-registration';
import { passkeyOptions, relyingParty, verifyPasskey } from './two-factor-passkeys';
import { createRecoveryCodeSettings } from './two-factor-recovery-codes';
import { createTwoFactorSecrets } from './two-factor-secrets';
import { createTwoFactorThrottle } from './two-factor-throttle';
import { createTotpSettings } from './two-factor-totp';
import type { PasskeyStep, TwoFactorDeps } from './two-factor-types';

export { RECOVERY_CODE_COUNT } from './two-factor-recovery-codes';
export { relyingParty, type RelyingParty } from './two-factor-passkeys';
export {
  TwoFactorErrors,
  type Actor,
  type PasskeyStep,
  type SecondFactorMethod,
  type SecondFactorProof,
  type SecondFactorStep,
  type TwoFactorDeps,
} from './two-factor-types';

export function createTwoFactorService(deps: TwoFactorDeps) {
  const { db, config } = deps;
  const rp = relyingParty(config);
  const secrets = createTwoFactorSecrets(db);
  const throttle = createTwoFactorThrottle(deps);
  const { check, requireStepUp } = createSecondFactorCheck({ db, rp, secrets, throttle });
  const settings = { db, config, rp, secrets, throttle, check };

  return {
    relyingParty: rp,
    isOn: (userId: string) => isTwoFactorOn(db, userId),
    check,
    verifyPasskey: (response: unknown, step: PasskeyStep) => verifyPasskey({ db, rp }, response, step),
    requireStepUp,
    status: (userId: string) => twoFactorStatus(db, userId),
    ...createTotpSettings(settings),
    ...createRecoveryCodeSettings(settings),
    ...createPasskeySettings(settings),
    passkeyOptions: (step: PasskeyStep) => passkeyOptions({ db, rp }, step),
    /** A one-off opaque token, for the pending second step of a sign-in. */
    newPendingToken: newOpaqueToken,
  };
}

export type TwoFactorService = ReturnType<typeof createTwoFactorService>;

/** Operator reset (user:reset-2fa): TOTP off, recovery codes and passkeys gone. Pass the command's transaction. */
export async function resetTwoFactor(db: Kysely<Database>, userId: string): Promise<{ totp: boolean; passkeys: number; recoveryCodes: number }> {
  const totp = await repo.hasTotpSecret(db, userId);
  await repo.clearTotp(db, userId);
  const recoveryCodes = await repo.deleteRecoveryCodes(db, userId);
  const passkeys = await repo.deletePasskeys(db, userId);
  return { totp, passkeys, recoveryCodes };
}
