/**
 * The password step of a sign-in, throttled: a session, or, with two-factor on, a pending
 * token for the second step (sign-in-second-step.ts). No answer reveals whether an email has
 * an account.
 *
 * Throttling. Every attempt counts against the address; failures count against the account
 * and against the (address, account) pair. When an account's failure bucket is empty, only
 * addresses it has signed in from before may keep trying, so an attacker spraying from many
 * addresses cannot lock the owner out.
 */
import { Errors } from '../infra/errors';
import { hashToken, hmac, newOpaqueToken } from '../infra/secrets';
import * as authRepo from './auth-repository';
import * as userRepo from '../users/accounts-service';
import { normalizeEmail, verifyPassword } from './passwords';
import { clientOf, LOGIN_PER_IP, minutesFromNow, type AuthContext } from './auth-context';
import { startSession, type SessionTokens } from './session-tokens';
import { recordSignIn, type ClientInfo } from './sessions';
import type { SecondFactorMethod } from './two-factor';

const LOGIN_FAILURES_PER_ACCOUNT = { ratePerSecond: 1 / 60, burst: 10 };
const LOGIN_FAILURES_PER_IP_ACCOUNT = { ratePerSecond: 1 / 30, burst: 5 };
/** How long the second step of a sign-in may wait after the password step. */
const SECOND_STEP_TTL_MINUTES = 5;

/** A right password on an account with two-factor on: the sign-in waits for its second step. */
export interface SecondFactorPending {
  /** Single-use, short-lived; carries the password step's result and the Remember Me choice. */
  pendingToken: string;
  methods: SecondFactorMethod[];
}

type SignInDeps = Pick<
  AuthContext,
  'db' | 'config' | 'limiter' | 'ipSecret' | 'signAccessToken' | 'twoFactor' | 'throttle' | 'afterAnswer'
>;

/** The pending second step of a right password: a single-use token and the factors the account has. */
async function pendSecondStep(deps: SignInDeps, userId: string, remember: boolean): Promise<SecondFactorPending | null> {
  const status = await deps.twoFactor.status(userId);
  if (!status.enabled) return null;
  const pendingToken = newOpaqueToken();
  await authRepo.createOneTimeToken(deps.db, {
    purpose: 'second-factor',
    userId,
    tokenHash: hashToken(pendingToken),
    expiresAt: minutesFromNow(SECOND_STEP_TTL_MINUTES),
    payload: { remember },
  });
  const methods: SecondFactorMethod[] = [];
  if (status.totp) methods.push('code');
  if (status.passkeys.length > 0) methods.push('passkey');
  methods.push('recovery code');
  return { pendingToken, methods };
}

export function createPasswordSignIn(deps: SignInDeps) {
  const { db, config, limiter } = deps;
  return {
    /**
     * A session, or, with two-factor on, a pending token for the second step (no session yet).
     * `ip` is the rate-limit address (request.limitAddress); `client` the exact address and
     * user agent the session list and the sign-in history show (request.ip).
     */
    async login(input: { email: string; password: string; remember: boolean }, ip: string, client?: ClientInfo): Promise<SessionTokens | SecondFactorPending> {
      if (!input.email.trim()) throw Errors.badRequest('Please input an email');
      if (!input.password) throw Errors.badRequest('Please input a password');
      if (input.email.length > 255 || input.password.length > 1024) throw Errors.invalidCredentials();
      await deps.throttle(`login:ip:${ip}`, LOGIN_PER_IP);
      const email = normalizeEmail(input.email);
      const ipHash = hmac(deps.ipSecret, ip);
      const pairKey = `login:fail:${ipHash}:${email}`;
      const accountKey = `login:fail:${email}`;
      const pair = await limiter.take(pairKey, LOGIN_FAILURES_PER_IP_ACCOUNT, { peek: true });
      if (!pair.allowed) throw Errors.tooManyRequests(pair.retryAfterMs);
      const user = await userRepo.findOpenUserByEmail(db, email);
      const account = await limiter.take(accountKey, LOGIN_FAILURES_PER_ACCOUNT, { peek: true });
      if (!account.allowed && !(user && (await authRepo.isKnownIp(db, user.id, ipHash)))) {
        throw Errors.tooManyRequests(account.retryAfterMs);
      }
      const ok = await verifyPassword(user?.password_hash, input.password);
      if (!user || !ok) {
        await limiter.take(pairKey, LOGIN_FAILURES_PER_IP_ACCOUNT);
        await limiter.take(accountKey, LOGIN_FAILURES_PER_ACCOUNT);
        // The owner's history shows the failed attempt. Written after the answer, so the
        // answer takes the same time whether or not the email has an account.
        if (user) deps.afterAnswer(() => recordSignIn(db, { userId: user.id, ...clientOf(client, ip), method: 'password', success: false }));
        throw Errors.invalidCredentials();
      }
      if (!user.email_verified_at) throw Errors.emailNotVerified();
      // Suspended by an operator (user:suspend): told only to whoever knows the password.
      if (user.suspended_at) throw Errors.accountSuspended(config.SUPPORT_URL);
      await limiter.reset(pairKey);
      const pending = await pendSecondStep(deps, user.id, input.remember);
      if (pending) return pending;
      await authRepo.rememberKnownIp(db, user.id, ipHash);
      const tokens = await startSession(deps, user.id, input.remember, client);
      await recordSignIn(db, { userId: user.id, ...clientOf(client, ip), method: 'password', success: true });
      return tokens;
    },
  };
}
