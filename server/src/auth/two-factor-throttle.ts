/**
 * The second factor's limits, so that a thief who knows the password cannot lock the owner
 * out. Every attempt counts against the address. Wrong codes count against the (account,
 * address) pair and, with a much larger burst, against the account; once the account's is
 * spent, codes are taken only from addresses the account signed in from. Recovery codes and
 * passkeys never wait on the code throttle (limits of their own).
 */
import { Errors, type AppError } from '../infra/errors';
import { hmac } from '../infra/secrets';
import { isKnownIp } from './auth-repository';
import type { TwoFactorDeps } from './two-factor-types';

/** Every second-factor attempt (code, recovery code, passkey) counts against the address. */
const ATTEMPTS_PER_IP = { ratePerSecond: 1 / 3, burst: 20 };
/** Wrong codes of one account from one address: 5 at once, then one a minute (that address waits, no other). */
const CODE_FAILURES_PER_ACCOUNT_IP = { ratePerSecond: 1 / 60, burst: 5 };
/**
 * Wrong codes of one account from every address: 30 at once, then one a minute. Once spent,
 * a code is still taken from an address the account has signed in from (`login_known_ips`);
 * any other address waits (429 with Retry-After). Never a refusal of recovery codes or passkeys.
 */
const CODE_FAILURES_PER_ACCOUNT = { ratePerSecond: 1 / 60, burst: 30 };
/** Wrong recovery codes and passkeys of one account from one address (neither can be guessed): 10, then one a minute. */
const OTHER_FAILURES_PER_ACCOUNT_IP = { ratePerSecond: 1 / 60, burst: 10 };

/** A code, or what cannot be guessed (a recovery code, a passkey): each has its own failure limits. */
export type AttemptKind = 'code' | 'other';

export function createTwoFactorThrottle(deps: Pick<TwoFactorDeps, 'db' | 'limiter' | 'ipSecret'>) {
  const { db, limiter } = deps;
  const keys = (userId: string, ip: string) => {
    const ipHash = hmac(deps.ipSecret, ip);
    return {
      ipHash,
      codePair: `2fa:code-fail:${userId}:${ipHash}`,
      codeAccount: `2fa:code-fail:${userId}`,
      otherPair: `2fa:other-fail:${userId}:${ipHash}`,
    };
  };

  return {
    /** Before a check: every attempt against the address, then the failure limits of its kind. */
    async throttleAttempt(userId: string, ip: string, kind: AttemptKind): Promise<void> {
      const k = keys(userId, ip);
      const byIp = await limiter.take(`2fa:ip:${k.ipHash}`, ATTEMPTS_PER_IP);
      if (!byIp.allowed) throw Errors.tooManyRequests(byIp.retryAfterMs);
      if (kind === 'other') {
        const pair = await limiter.take(k.otherPair, OTHER_FAILURES_PER_ACCOUNT_IP, { peek: true });
        if (!pair.allowed) throw Errors.tooManyRequests(pair.retryAfterMs);
        return;
      }
      const pair = await limiter.take(k.codePair, CODE_FAILURES_PER_ACCOUNT_IP, { peek: true });
      if (!pair.allowed) throw Errors.tooManyRequests(pair.retryAfterMs);
      const account = await limiter.take(k.codeAccount, CODE_FAILURES_PER_ACCOUNT, { peek: true });
      if (!account.allowed && !(await isKnownIp(db, userId, k.ipHash))) throw Errors.tooManyRequests(account.retryAfterMs);
    },

    /** A wrong factor: counted against its kind's limits, then `error` is thrown. */
    async failed(userId: string, ip: string, kind: AttemptKind, error: AppError): Promise<never> {
      const k = keys(userId, ip);
      if (kind === 'other') {
        await limiter.take(k.otherPair, OTHER_FAILURES_PER_ACCOUNT_IP);
      } else {
        await limiter.take(k.codePair, CODE_FAILURES_PER_ACCOUNT_IP);
        await limiter.take(k.codeAccount, CODE_FAILURES_PER_ACCOUNT);
      }
      throw error;
    },

    /**
     * A right factor: this address's failures for the account are forgotten (the owner's typos).
     * The account-wide count is not: it drains by itself, so a right answer elsewhere does not
     * give a guesser a new burst.
     */
    async passed(userId: string, ip: string): Promise<void> {
      const k = keys(userId, ip);
      await limiter.reset(k.codePair);
      await limiter.reset(k.otherPair);
    },
  };
}

export type TwoFactorThrottle = ReturnType<typeof createTwoFactorThrottle>;
