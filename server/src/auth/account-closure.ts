/**
 * Closing an account: a mailed closure link, then the final step from a session (with a
 * step-up when two-factor is on). Every session ends, the API key stops working and the
 * account's sign-in details go.
 */
import { MailTemplates } from '../mail/mail-service';
import { Errors } from '../infra/errors';
import { hashToken } from '../infra/secrets';
import * as authRepo from './auth-repository';
import * as userRepo from '../users/accounts-service';
import { normalizeEmail } from './passwords';
import type { AuthContext } from './auth-context';
import { eraseSignInDetails } from './sessions';
import type { SecondFactorProof } from './two-factor';

type AccountClosureDeps = Pick<
  AuthContext,
  'db' | 'config' | 'mail' | 'link' | 'twoFactor' | 'mayMail' | 'issueOneTimeLink' | 'onAccountChanged' | 'onSessionsEnded'
>;

export function createAccountClosure(deps: AccountClosureDeps) {
  const { db, config } = deps;
  return {
    async requestClosure(userId: string): Promise<void> {
      const user = await userRepo.findOpenUserById(db, userId);
      if (!user) throw Errors.unauthorized();
      if (!(await deps.mayMail(normalizeEmail(user.email)))) throw Errors.tooManyRequests(60_000);
      await authRepo.voidOneTimeTokens(db, userId, 'close-account');
      const token = await deps.issueOneTimeLink('close-account', userId, config.CLOSURE_TOKEN_TTL_MINUTES);
      await deps.mail.send(MailTemplates.closeAccount(user.email, config.BRAND, deps.link(`/close-account?t=${token}`)));
    },

    /** Closes the account: every session ends and the API key stops working. `sessionId`: the session asking (its step-up). */
    async finalizeClosure(userId: string, sessionId: string, token: string, proof: SecondFactorProof = {}, ip = ''): Promise<void> {
      await deps.twoFactor.requireStepUp({ userId, sessionId }, proof, ip);
      await db.transaction().execute(async (trx) => {
        const row = await authRepo.consumeOneTimeToken(trx, 'close-account', hashToken(token));
        // Throwing rolls back, so a token presented by another account stays unused.
        if (!row || row.user_id !== userId) throw Errors.badRequest('Invalid or expired closure link');
        await userRepo.closeUser(trx, userId);
        await authRepo.revokeUserSessions(trx, userId, 'account-closed');
        await eraseSignInDetails(trx, userId);
      });
      deps.onAccountChanged?.(userId);
      deps.onSessionsEnded?.({ userId });
    },
  };
}
