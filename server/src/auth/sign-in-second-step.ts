/**
 * The second step of a password sign-in: the pending token and one second factor (a code, a
 * recovery code or a passkey). Every second-step outcome, passed or failed, is recorded here
 * in one place (the sign-in history); repeated wrong codes mail the owner.
 */
import { MailTemplates } from '../mail/mail-service';
import { AppError, Errors } from '../infra/errors';
import { hashToken, hmac } from '../infra/secrets';
import * as authRepo from './auth-repository';
import * as userRepo from '../users/accounts-service';
import { clientOf, type AuthContext, type SecondStepOutcome } from './auth-context';
import { startSession, type SessionTokens } from './session-tokens';
import { recordSignIn, type ClientInfo } from './sessions';
import type { SecondFactorMethod, SecondFactorProof } from './two-factor';

/**
 * Wrong codes after a right password, per account: 4 pass unremarked (the count drains 4 an
 * hour); the fifth within about an hour mails the owner, at most once an hour (a mail budget
 * of its own, so it never uses up MAILS_PER_ACCOUNT's, auth-context.ts).
 */
const WRONG_CODES_UNREMARKED = { ratePerSecond: 4 / 3600, burst: 4 };
const WRONG_CODES_MAILS = { ratePerSecond: 1 / 3600, burst: 1 };

/**
 * The one place a sign-in's second step (code, recovery code, passkey) is recorded, passed
 * or failed: the sign-in history listens here.
 */
export function recordSecondStep(
  deps: Pick<AuthContext, 'db' | 'onSecondStep' | 'afterAnswer'>,
  outcome: SecondStepOutcome,
  client?: ClientInfo,
): void {
  deps.onSecondStep?.(outcome);
  const { userId } = outcome;
  if (userId) deps.afterAnswer(() => recordSignIn(deps.db, { userId, ...clientOf(client, outcome.ip), method: outcome.method, success: outcome.ok }));
}

/**
 * A wrong code after a right password (a pending sign-in's second step): repeated, the
 * password is likely known to someone else, so the owner is told by mail (no code, address
 * or token in it), at most once an hour.
 */
async function noteWrongCode(deps: Pick<AuthContext, 'db' | 'config' | 'limiter' | 'mail' | 'link'>, userId: string): Promise<void> {
  const { limiter } = deps;
  if ((await limiter.take(`2fa:wrong-codes:${userId}`, WRONG_CODES_UNREMARKED)).allowed) return;
  if (!(await limiter.take(`2fa:wrong-codes-mail:${userId}`, WRONG_CODES_MAILS)).allowed) return;
  const user = await userRepo.findOpenUserById(deps.db, userId);
  if (!user) return;
  await deps.mail.send(MailTemplates.wrongSecondFactorCodes(user.email, deps.config.BRAND, deps.link('/profile')));
}

type SecondStepDeps = Pick<
  AuthContext,
  'db' | 'config' | 'limiter' | 'mail' | 'link' | 'ipSecret' | 'signAccessToken' | 'twoFactor' | 'onSecondStep' | 'afterAnswer'
>;

export function createSecondStep(deps: SecondStepDeps) {
  const { db } = deps;
  return {
    /**
     * The second step of a password sign-in: the pending token and one second factor (a
     * passkey: signed over a challenge issued for this pending sign-in). A wrong factor
     * leaves the token usable until it expires (guesses are throttled, two-factor-throttle.ts;
     * repeated wrong codes mail the owner); a right one uses it up and starts the session.
     */
    async completeSecondFactor(pendingToken: string, proof: SecondFactorProof, ip: string, client?: ClientInfo): Promise<SessionTokens> {
      const expired = () => Errors.unauthorized('Sign-in expired; please sign in again');
      if (!pendingToken || pendingToken.length > 200) throw expired();
      const tokenHash = hashToken(pendingToken);
      const pending = await authRepo.findLiveOneTimeToken(db, 'second-factor', tokenHash);
      if (!pending?.user_id) throw expired();
      const userId = pending.user_id;
      let method: SecondFactorMethod = proof.passkey ? 'passkey' : proof.recovery_code ? 'recovery code' : 'code';
      try {
        method = await deps.twoFactor.check({ purpose: 'second-factor', userId, pendingTokenHash: tokenHash }, proof, ip);
      } catch (error) {
        if (!(error instanceof AppError && error.code === 'SECOND_FACTOR_REQUIRED')) {
          recordSecondStep(deps, { userId, method, ok: false, ip }, client);
        }
        if (method === 'code' && error instanceof AppError && error.code === 'INVALID_SECOND_FACTOR') {
          deps.afterAnswer(() => noteWrongCode(deps, userId));
        }
        throw error;
      }
      const used = await authRepo.consumeOneTimeToken(db, 'second-factor', tokenHash);
      if (!used?.user_id) throw expired();
      const user = await userRepo.findOpenUserById(db, userId);
      if (!user) throw expired();
      recordSecondStep(deps, { userId, method, ok: true, ip }, client);
      await authRepo.rememberKnownIp(db, userId, hmac(deps.ipSecret, ip));
      const remember = Boolean((used.payload as { remember?: unknown } | null)?.remember);
      return startSession(deps, userId, remember, client);
    },
  };
}
