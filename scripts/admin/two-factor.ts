/**
 * Support for two-factor sign-in (server/src/auth/README.md, "Two-factor authentication").
 *
 *   user:reset-2fa --email E [--reason T]
 *
 * For an owner who lost their authenticator and their recovery codes (after support has
 * confirmed who they are): turns TOTP off and removes the recovery codes and the passkeys,
 * so the password alone signs in again. Recorded in the audit log (same transaction) and in
 * the account's own history as an inbox notice the owner sees.
 */
import { withDatabase } from '../../server/src/db/cli-database';
import { findOpenUserByEmail } from '../../server/src/users/user-repository';
import { insertNotification } from '../../server/src/monitoring/notifications-repository';
import { recordAudit } from '../../server/src/audit/audit-service';
import { UsageError } from '../lib/cli';
import type { AdminCommands } from '../lib/admin-command';

export const TWO_FACTOR_COMMANDS: AdminCommands = {
  'user:reset-2fa': {
    options: { email: { type: 'string' }, reason: { type: 'string' } },
    async run(values, { operator }) {
      const email = typeof values.email === 'string' ? values.email.trim() : '';
      if (!email) throw new UsageError('user:reset-2fa needs --email E');
      const reason = typeof values.reason === 'string' && values.reason.trim() ? values.reason.trim().slice(0, 500) : null;
      return withDatabase(async (db) => {
        const user = await findOpenUserByEmail(db, email);
        if (!user) {
          process.stderr.write(`No open account for ${email}\n`);
          return 1;
        }
        // The WebAuthn and QR code libraries behind it: loaded for this command only.
        const { resetTwoFactor } = await import('../../server/src/auth/two-factor');
        const removed = await db.transaction().execute(async (trx) => {
          const result = await resetTwoFactor(trx, user.id);
          await insertNotification(trx, {
            userId: user.id,
            type: 'security',
            data: 'Two-factor authentication was turned off by support: your password alone signs you in. Turn it on again from your profile.',
          });
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
    },
  },
};
