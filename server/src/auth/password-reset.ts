/**
 * "Forgot password": a reset link mailed when an account matches (the answer is the same
 * either way, and goes before any lookup), and the reset itself, which ends every session.
 */
import { MailTemplates } from '../mail/mail-service';
import { Errors } from '../infra/errors';
import { hashToken } from '../infra/secrets';
import * as authRepo from './auth-repository';
import * as userRepo from '../users/accounts-service';
import { hashPassword, isValidEmail, normalizeEmail, passwordProblem } from './passwords';
import type { AuthContext } from './auth-context';

const FORGOT_PER_IP = { ratePerSecond: 1 / 10, burst: 10 };
// Every reset attempt counts against the address (a flood of random links is refused with
// 429 before any lookup).
const RESET_PER_IP = { ratePerSecond: 1 / 10, burst: 10 };

type PasswordResetDeps = Pick<
  AuthContext,
  'db' | 'config' | 'mail' | 'link' | 'throttle' | 'mayMail' | 'issueOneTimeLink' | 'afterAnswer' | 'onAccountChanged' | 'onSessionsEnded'
>;

/** The new password from a live reset link, in one transaction: a failed write leaves the link unused and the password as it was. */
async function applyReset(deps: PasswordResetDeps, tokenHash: string, passwordHash: string, invalid: () => Error): Promise<string> {
  return deps.db.transaction().execute(async (trx) => {
    const token = await authRepo.consumeOneTimeToken(trx, 'reset-password', tokenHash);
    // Used up or voided meanwhile (a concurrent reset, a newer link): same answer.
    if (!token?.user_id) throw invalid();
    await userRepo.setPasswordHash(trx, token.user_id, passwordHash);
    // The reset proves control of the mailbox.
    await userRepo.markEmailVerified(trx, token.user_id);
    await authRepo.revokeUserSessions(trx, token.user_id, 'password-reset');
    return token.user_id;
  });
}

export function createPasswordReset(deps: PasswordResetDeps) {
  const { db, config } = deps;
  return {
    async forgotPassword(rawEmail: string, ip: string): Promise<void> {
      const email = rawEmail.trim();
      if (!email) throw Errors.badRequest('Empty Email');
      if (!isValidEmail(email)) throw Errors.badRequest('Invalid email format');
      await deps.throttle(`forgot:ip:${ip}`, FORGOT_PER_IP);
      // The answer goes before any lookup: the request path does the same work (the address
      // throttle above) for known and unknown emails, and the account's writes and mail
      // happen afterwards, out of the caller's sight.
      const work = async () => {
        const user = await userRepo.findOpenUserByEmail(db, email);
        if (!user || !(await deps.mayMail(normalizeEmail(email)))) return;
        await authRepo.voidOneTimeTokens(db, user.id, 'reset-password');
        const token = await deps.issueOneTimeLink('reset-password', user.id, config.RESET_TOKEN_TTL_MINUTES);
        await deps.mail.send(MailTemplates.resetPassword(user.email, config.BRAND, deps.link(`/reset-password?k=${token}`)));
      };
      deps.afterAnswer(work);
    },

    async resetPassword(input: { key: string; password: string }, ip: string): Promise<void> {
      await deps.throttle(`reset:ip:${ip}`, RESET_PER_IP);
      const problem = passwordProblem(input.password);
      if (problem) throw Errors.badRequest(problem);
      const invalid = () => Errors.badRequest('Invalid or expired reset link');
      if (!input.key) throw invalid();
      const tokenHash = hashToken(input.key);
      // The link is checked before the (deliberately slow) password hash, so a bad link
      // costs us no hashing; it is used up below, with the writes it allows.
      if (!(await authRepo.findLiveOneTimeToken(db, 'reset-password', tokenHash))?.user_id) throw invalid();
      const userId = await applyReset(deps, tokenHash, await hashPassword(input.password), invalid);
      deps.onAccountChanged?.(userId);
      deps.onSessionsEnded?.({ userId });
    },
  };
}
