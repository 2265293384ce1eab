/**
 * Changing the password from a session: the current password (wrong ones throttled per
 * account) and, with two-factor on, a step-up. Every other session ends; the current one stays.
 */
import { Errors } from '../infra/errors';
import * as authRepo from './auth-repository';
import * as userRepo from '../users/accounts-service';
import { hashPassword, passwordProblem, verifyPassword } from './passwords';
import type { AuthContext } from './auth-context';
import type { SecondFactorProof } from './two-factor';

// Wrong current passwords count against the account.
const UPDATE_PASSWORD_FAILURES_PER_ACCOUNT = { ratePerSecond: 1 / 60, burst: 5 };

type PasswordChangeDeps = Pick<AuthContext, 'db' | 'limiter' | 'twoFactor' | 'onAccountChanged' | 'onSessionsEnded'>;

export function createPasswordChange(deps: PasswordChangeDeps) {
  const { db, limiter } = deps;
  return {
    /** Changing the password ends every other session; the current one stays. */
    async updatePassword(userId: string, sessionId: string, current: string, next: string, proof: SecondFactorProof = {}, ip = ''): Promise<void> {
      if (current === next) throw Errors.badRequest('Passwords are the same');
      if (passwordProblem(next)) throw Errors.badRequest("New Password doesn't meet requirements (max length 55)");

      const failuresKey = `update-password:fail:${userId}`;
      const failures = await limiter.take(failuresKey, UPDATE_PASSWORD_FAILURES_PER_ACCOUNT, { peek: true });
      if (!failures.allowed) throw Errors.tooManyRequests(failures.retryAfterMs);
      const user = await userRepo.findOpenUserById(db, userId);
      if (!user || current.length > 1024 || !(await verifyPassword(user.password_hash, current))) {
        await limiter.take(failuresKey, UPDATE_PASSWORD_FAILURES_PER_ACCOUNT);
        throw Errors.forbidden('Current password is incorrect');
      }
      await limiter.reset(failuresKey);
      // With two-factor on, a current code (or a passkey, a recovery code) too.
      await deps.twoFactor.requireStepUp({ userId, sessionId }, proof, ip);
      await userRepo.setPasswordHash(db, userId, await hashPassword(next));
      await authRepo.revokeUserSessions(db, userId, 'password-change', sessionId);
      deps.onAccountChanged?.(userId);
      deps.onSessionsEnded?.({ userId, exceptSessionId: sessionId });
    },
  };
}
