/**
 * TOTP (RFC 6238: SHA-1, 6 digits, 30 s, as every authenticator app reads it): checking a
 * code, turning TOTP on with a first code, turning it off. A code is accepted once: the last
 * accepted 30-second step is kept per account and a code of that step or an earlier one is
 * refused (one step of clock drift each way). The secret is stored encrypted.
 */
import type { Kysely } from 'kysely';
import { Secret, TOTP } from 'otpauth';
import QRCode from 'qrcode';
import type { Database } from '../db/schema';
import type { Config } from '../config';
import { Errors } from '../infra/errors';
import * as repo from './two-factor-repository';
import { twoFactorAccount } from './two-factor-account';
import { replaceRecoveryCodes } from './two-factor-recovery-codes';
import type { TwoFactorSecrets } from './two-factor-secrets';
import type { TwoFactorThrottle } from './two-factor-throttle';
import { stepUpOf, TwoFactorErrors, type Actor, type CheckSecondFactor, type SecondFactorProof } from './two-factor-types';

const PERIOD = 30;

function totpFor(issuer: string, secretBase32: string, email: string): TOTP {
  return new TOTP({ issuer, label: email, algorithm: 'SHA1', digits: 6, period: PERIOD, secret: Secret.fromBase32(secretBase32) });
}

/** The 30-second step a code matches (now, or one step either side), or null. */
function matchingStep(secretBase32: string, code: string): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const now = Date.now();
  const delta = totpFor('', secretBase32, '').validate({ token: code, timestamp: now, window: 1 });
  return delta === null ? null : Math.floor(now / 1000 / PERIOD) + delta;
}

interface TotpDeps {
  db: Kysely<Database>;
  secrets: TwoFactorSecrets;
  throttle: TwoFactorThrottle;
}

/** Checks a current code of the account; a wrong one (or a replay) counts as a failure and throws. */
export async function verifyTotpCode(deps: TotpDeps, userId: string, code: string, ip: string): Promise<void> {
  const { db, throttle } = deps;
  const row = await twoFactorAccount(db, userId);
  if (!row.totp_secret_enc) await throttle.failed(userId, ip, 'code', TwoFactorErrors.invalidCode());
  const step = matchingStep(await deps.secrets.decrypt(row.totp_secret_enc!), code.trim());
  if (step === null) await throttle.failed(userId, ip, 'code', TwoFactorErrors.invalidCode());
  // Accepted once: the step moves forward atomically, so a replay (or a race) finds no row.
  if (!(await repo.advanceTotpStep(db, userId, step!))) await throttle.failed(userId, ip, 'code', TwoFactorErrors.invalidCode());
}

/** The profile's TOTP: a new secret, its first code turning it on, turning it off. */
export function createTotpSettings(deps: TotpDeps & { config: Pick<Config, 'BRAND'>; check: CheckSecondFactor }) {
  const { db, secrets, throttle, check } = deps;
  return {
    /** A new secret awaiting its first code: the otpauth:// URI, its QR code and the secret as text. */
    async beginTotp(actor: Actor, proof: SecondFactorProof, ip: string) {
      const { userId } = actor;
      const row = await twoFactorAccount(db, userId);
      if (row.totp_secret_enc) throw Errors.badRequest('Two-factor authentication is already on');
      if ((await repo.countPasskeys(db, userId)) > 0) await check(stepUpOf(actor), proof, ip);
      const secret = new Secret({ size: 20 }).base32;
      await repo.setPendingTotp(db, userId, await secrets.encrypt(secret));
      const uri = totpFor(deps.config.BRAND, secret, row.email).toString();
      return { secret, uri, qr_code: await QRCode.toDataURL(uri, { margin: 1, width: 220 }) };
    },

    /** Turns TOTP on with a first code from the app; returns the recovery codes, shown once. */
    async confirmTotp(userId: string, code: string, ip: string): Promise<string[]> {
      const row = await twoFactorAccount(db, userId);
      if (row.totp_secret_enc) throw Errors.badRequest('Two-factor authentication is already on');
      if (!row.totp_pending_secret_enc) throw Errors.badRequest('Start again: no two-factor setup is pending');
      await throttle.throttleAttempt(userId, ip, 'code');
      const secret = await secrets.decrypt(row.totp_pending_secret_enc);
      const step = matchingStep(secret, code.trim());
      if (step === null) await throttle.failed(userId, ip, 'code', TwoFactorErrors.invalidCode());
      await throttle.passed(userId, ip);
      await repo.enableTotp(db, userId, row.totp_pending_secret_enc, step!);
      return replaceRecoveryCodes(deps, userId);
    },

    /** Turns TOTP off (after step-up). Recovery codes go too unless a passkey keeps two-factor on. */
    async disableTotp(actor: Actor, proof: SecondFactorProof, ip: string): Promise<void> {
      const { userId } = actor;
      const row = await twoFactorAccount(db, userId);
      if (!row.totp_secret_enc) throw Errors.badRequest('Two-factor authentication is not on');
      await check(stepUpOf(actor), proof, ip);
      await repo.clearTotp(db, userId);
      if ((await repo.countPasskeys(db, userId)) === 0) await repo.deleteRecoveryCodes(db, userId);
    },
  };
}
