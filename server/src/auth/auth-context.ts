/**
 * What the auth use cases (sign-up, sign-in, sessions, passwords, closure) share: the
 * dependencies the auth service is given, and the few helpers they all use (throttles, the
 * per-account mail budget, mailed one-time links, work done after the answer).
 */
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import type { Config } from '../config';
import type { Bucket, RateLimiter } from '../infra/rate-limiter';
import type { MailService } from '../mail/mail-service';
import { Errors } from '../infra/errors';
import { hashToken, newOpaqueToken } from '../infra/secrets';
import * as authRepo from './auth-repository';
import type { ClientInfo, SessionsEnded } from './sessions';
import { createTwoFactorService, type SecondFactorMethod, type TwoFactorService } from './two-factor';

/** One second-step outcome (a sign-in's code, recovery code or passkey), for the sign-in history. */
export interface SecondStepOutcome {
  userId: string | null;
  method: SecondFactorMethod;
  ok: boolean;
  ip: string;
}

export interface AuthDeps {
  db: Kysely<Database>;
  config: Config;
  limiter: RateLimiter;
  mail: MailService;
  signAccessToken(payload: { sub: string; sid: string }): string;
  ipSecret: string;
  /** Made from the rest when absent. */
  twoFactor?: TwoFactorService;
  /** Told after every second step of a sign-in, passed or failed (the sign-in history). */
  onSecondStep?: (outcome: SecondStepOutcome) => void;
  /** Told when credentials or the account change (closure, password), so nothing kept in process outlives them. */
  onAccountChanged?: (userId: string) => void;
  /** Told once sessions have ended (committed), so what they opened elsewhere closes too (the websockets). */
  onSessionsEnded?: (ended: SessionsEnded) => void;
  /** Told when work done after answering fails (forgot-password's lookup and mail). */
  onBackgroundError?: (error: Error) => void;
}

export interface AuthContext extends AuthDeps {
  twoFactor: TwoFactorService;
  /** An absolute link into the dashboard. */
  link(path: string): string;
  /** Work done once the answer is on its way (its failure is logged, never the caller's). */
  afterAnswer(work: () => Promise<void>): void;
  /** Takes one from the bucket; 429 when it is empty. */
  throttle(key: string, bucket: Bucket): Promise<void>;
  /** Mails to one account are capped so nobody can mail-bomb an address through us. */
  mayMail(email: string): Promise<boolean>;
  /** A new single-use link token of `purpose` for the account, stored by its hash. */
  issueOneTimeLink(purpose: authRepo.TokenPurpose, userId: string, ttlMinutes: number): Promise<string>;
}

/** Every sign-in attempt (password or passkey) counts against the address. */
export const LOGIN_PER_IP = { ratePerSecond: 1 / 3, burst: 20 };
const MAILS_PER_ACCOUNT = { ratePerSecond: 1 / 120, burst: 3 };

export const minutesFromNow = (n: number) => new Date(Date.now() + n * 60_000);

/** The address and user agent recorded for a sign-in (the rate-limit address when the caller gave none). */
export function clientOf(client: ClientInfo | undefined, ip: string): { ip: string; userAgent: string | null } {
  return { ip: client?.ip ?? ip, userAgent: client?.userAgent ?? null };
}

export function createAuthContext(deps: AuthDeps): AuthContext {
  const { db, config, limiter } = deps;
  const twoFactor = deps.twoFactor ?? createTwoFactorService({ db, config, limiter, ipSecret: deps.ipSecret });
  return {
    ...deps,
    twoFactor,
    link: (path) => `${config.publicUrl}${path}`,
    afterAnswer(work) {
      const failed = deps.onBackgroundError ?? ((error: Error) => process.stderr.write(`background: ${error.message}\n`));
      setImmediate(() => void work().catch(failed));
    },
    async throttle(key, bucket) {
      const decision = await limiter.take(key, bucket);
      if (!decision.allowed) throw Errors.tooManyRequests(decision.retryAfterMs);
    },
    async mayMail(email) {
      return (await limiter.take(`mail:${email}`, MAILS_PER_ACCOUNT)).allowed;
    },
    async issueOneTimeLink(purpose, userId, ttlMinutes) {
      const token = newOpaqueToken();
      await authRepo.createOneTimeToken(db, { purpose, userId, tokenHash: hashToken(token), expiresAt: minutesFromNow(ttlMinutes) });
      return token;
    },
  };
}
