/**
 * `user:reset-2fa --email E [--reason T]` (server/src/auth/README.md, "Two-factor
 * authentication"), for an owner who lost their authenticator and their recovery codes
 * (after support has confirmed who they are): turns TOTP off and removes the recovery codes
 * and the passkeys, so the password alone signs in again. Recorded in the audit log (same
 * transaction) and in the account's own history as an inbox notice the owner sees.
 */
import { withDatabase } from '../db/cli-database';
import { UsageError, stringOption, type CommandContext, type OptionValues } from '../infra/operator-commands';
import { recordAudit } from '../audit/audit-service';
import { insertNotification } from '../monitoring/account-notices-service';
import { findOpenUserByEmail } from '../users/accounts-service';
import { resetTwoFactor } from './two-factor';

const NOTICE = 'Two-factor authentication was turned off by support: your password alone signs you in. Turn it on again from your profile.';

export async function resetTwoFactorCommand({ operator }: CommandContext, values: OptionValues): Promise<number> {
  const email = stringOption(values, 'email')?.trim() ?? '';
  if (!email) throw new UsageError('user:reset-2fa needs --email E');
  const given = stringOption(values, 'reason')?.trim();
  const reason = given ? given.slice(0, 500) : null;
  return withDatabase(async (db) => {
    const user = await findOpenUserByEmail(db, email);
    if (!user) {
      process.stderr.write(`No open account for ${email}\n`);
      return 1;
    }
    const removed = await db.transaction().execute(async (trx) => {
      const result = await resetTwoFactor(trx, user.id);
      await insertNotification(trx, { userId: user.id, type: 'security', data: NOTICE });
      await recordAudit(trx, {
        operator,
        action: 'user:reset-2fa',
        target: user.email,
        reason,
        details: { totp: result.totp, passkeys_removed: result.passkeys, recovery_codes_removed: result.recoveryCodes },
      });
      return result;
    });
    process.stdout.write(
      `Two-factor reset for ${user.email}: TOTP ${removed.totp ? 'turned off' : 'was off'}, ${removed.passkeys} passkey(s) and ${removed.recoveryCodes} recovery code(s) removed.\n`,
    );
    return 0;
  });
}
