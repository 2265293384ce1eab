/**
 * Passkeys before any session: "Sign in with a passkey" (a discoverable credential alone,
 * user verification required, no email or password), and the options (challenges) for it
 * and for a pending sign-in's second step.
 */
import { Errors } from '../infra/errors';
import { hashToken, hmac } from '../infra/secrets';
import * as authRepo from './auth-repository';
import * as userRepo from '../users/accounts-service';
import { LOGIN_PER_IP, type AuthContext } from './auth-context';
import { startSession, type SessionTokens } from './session-tokens';
import { recordSecondStep } from './sign-in-second-step';
import type { ClientInfo } from './sessions';

type PasskeySignInDeps = Pick<
  AuthContext,
  'db' | 'config' | 'ipSecret' | 'signAccessToken' | 'twoFactor' | 'throttle' | 'onSecondStep' | 'afterAnswer'
>;

export function createPasskeySignIn(deps: PasskeySignInDeps) {
  const { db, config, twoFactor } = deps;
  return {
    /**
     * Options for navigator.credentials.get() before any session. Without a pending token: a
     * passkey sign-in; with one: that pending sign-in's second step (401 when expired or used),
     * its challenge good for that pending sign-in only.
     */
    async signInPasskeyOptions(pendingToken: string | undefined) {
      if (!pendingToken) return twoFactor.passkeyOptions({ purpose: 'sign-in' });
      const pendingTokenHash = hashToken(pendingToken);
      const pending = pendingToken.length <= 200 ? await authRepo.findLiveOneTimeToken(db, 'second-factor', pendingTokenHash) : undefined;
      if (!pending?.user_id) throw Errors.unauthorized('Sign-in expired; please sign in again');
      return twoFactor.passkeyOptions({ purpose: 'second-factor', userId: pending.user_id, pendingTokenHash });
    },

    /** Passkey challenges are rows: asking for them counts against the address like a sign-in. */
    async throttlePasskeyOptions(ip: string): Promise<void> {
      await deps.throttle(`passkey-options:ip:${ip}`, LOGIN_PER_IP);
    },

    /** "Sign in with a passkey": a discoverable credential alone, user verification required. */
    async passkeyLogin(assertion: unknown, remember: boolean, ip: string, client?: ClientInfo): Promise<SessionTokens> {
      await deps.throttle(`login:ip:${ip}`, LOGIN_PER_IP);
      let userId: string;
      try {
        userId = await twoFactor.verifyPasskey(assertion, { purpose: 'sign-in' });
      } catch (error) {
        recordSecondStep(deps, { userId: null, method: 'passkey', ok: false, ip });
        throw error;
      }
      const user = await userRepo.findOpenUserById(db, userId);
      if (!user) throw Errors.unauthorized('Passkey not recognised');
      if (!user.email_verified_at) throw Errors.emailNotVerified();
      if (user.suspended_at) throw Errors.accountSuspended(config.SUPPORT_URL);
      recordSecondStep(deps, { userId, method: 'passkey', ok: true, ip }, client);
      await authRepo.rememberKnownIp(db, userId, hmac(deps.ipSecret, ip));
      return startSession(deps, userId, remember, client);
    },
  };
}
