/**
 * Accounts and sessions: registration, verification, login with throttling, rotating
 * refresh sessions with reuse detection, password reset and change, account closure.
 * No answer reveals whether an email has an account.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import type { Config } from '../config';
import type { RateLimiter } from '../infra/rate-limiter';
import { type MailService, MailTemplates } from '../mail/mail-service';
import { AppError, Errors } from '../infra/errors';
import * as authRepo from './auth-repository';
import * as userRepo from '../users/accounts-service';
import { hashPassword, isValidEmail, normalizeEmail, passwordProblem, verifyPassword } from './passwords';
import { hashToken, hmac, newOpaqueToken } from '../infra/secrets';
import {
  displayAddress,
  eraseEndedSessionDetails,
  eraseSignInDetails,
  LAST_USED_RESOLUTION_MS,
  recordSignIn,
  touchSession,
  type ClientInfo,
  type SessionsEnded,
} from './sessions';

export type { SessionsEnded };
import { createTwoFactorService, type SecondFactorMethod, type SecondFactorProof, type TwoFactorService } from './two-factor';

export interface SessionTokens {
  accessToken: string;
  refreshToken: string;
  /** Cookie lifetime in seconds; undefined makes a browser-session cookie. */
  cookieMaxAge: number | undefined;
}

/** A right password on an account with two-factor on: the sign-in waits for its second step. */
export interface SecondFactorPending {
  /** Single-use, short-lived; carries the password step's result and the Remember Me choice. */
  pendingToken: string;
  methods: SecondFactorMethod[];
}

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

// Throttling. Every attempt counts against the address; failures count against the
// account and against the (address, account) pair. When an account's failure bucket is
// empty, only addresses it has signed in from before may keep trying, so an attacker
// spraying from many addresses cannot lock the owner out.
const LOGIN_PER_IP = { ratePerSecond: 1 / 3, burst: 20 };
const LOGIN_FAILURES_PER_ACCOUNT = { ratePerSecond: 1 / 60, burst: 10 };
const LOGIN_FAILURES_PER_IP_ACCOUNT = { ratePerSecond: 1 / 30, burst: 5 };
const REGISTER_PER_IP = { ratePerSecond: 1 / 10, burst: 10 };
const FORGOT_PER_IP = { ratePerSecond: 1 / 10, burst: 10 };
const MAILS_PER_ACCOUNT = { ratePerSecond: 1 / 120, burst: 3 };
// Every reset attempt counts against the address (a flood of random links is refused with
// 429 before any lookup); wrong current passwords count against the account.
const RESET_PER_IP = { ratePerSecond: 1 / 10, burst: 10 };
const UPDATE_PASSWORD_FAILURES_PER_ACCOUNT = { ratePerSecond: 1 / 60, burst: 5 };
/** How long the second step of a sign-in may wait after the password step. */
const SECOND_STEP_TTL_MINUTES = 5;
/**
 * Wrong codes after a right password, per account: 4 pass unremarked (the count drains 4 an
 * hour); the fifth within about an hour mails the owner, at most once an hour (a mail budget
 * of its own, so it never uses up MAILS_PER_ACCOUNT's).
 */
const WRONG_CODES_UNREMARKED = { ratePerSecond: 4 / 3600, burst: 4 };
const WRONG_CODES_MAILS = { ratePerSecond: 1 / 3600, burst: 1 };

/** The address and user agent recorded for a sign-in (the rate-limit address when the caller gave none). */
function clientOf(client: ClientInfo | undefined, ip: string): { ip: string; userAgent: string | null } {
  return { ip: client?.ip ?? ip, userAgent: client?.userAgent ?? null };
}

export function createAuthService(deps: AuthDeps) {
  const { db, config, limiter, mail } = deps;
  const twoFactor = deps.twoFactor ?? createTwoFactorService({ db, config, limiter, ipSecret: deps.ipSecret });
  const brand = config.BRAND;
  const link = (path: string) => `${config.publicUrl}${path}`;
  const minutes = (n: number) => new Date(Date.now() + n * 60_000);

  /** Work done once the answer is on its way (its failure is logged, never the caller's). */
  function afterAnswer(work: () => Promise<void>): void {
    const failed = deps.onBackgroundError ?? ((error: Error) => process.stderr.write(`background: ${error.message}\n`));
    setImmediate(() => void work().catch(failed));
  }

  async function throttle(key: string, bucket: { ratePerSecond: number; burst: number }) {
    const decision = await limiter.take(key, bucket);
    if (!decision.allowed) throw Errors.tooManyRequests(decision.retryAfterMs);
  }

  /** Mails to one account are capped so nobody can mail-bomb an address through us. */
  async function mayMail(email: string): Promise<boolean> {
    return (await limiter.take(`mail:${email}`, MAILS_PER_ACCOUNT)).allowed;
  }

  async function issueOneTimeLink(purpose: authRepo.TokenPurpose, userId: string, ttlMinutes: number): Promise<string> {
    const token = newOpaqueToken();
    await authRepo.createOneTimeToken(db, { purpose, userId, tokenHash: hashToken(token), expiresAt: minutes(ttlMinutes) });
    return token;
  }

  /** A new session; `client` (address, user agent) is what the owner's session list shows. */
  async function startSession(userId: string, remember: boolean, client?: ClientInfo): Promise<SessionTokens> {
    const ttlSeconds = remember ? config.REFRESH_TTL_DAYS * 86400 : config.SESSION_TTL_HOURS * 3600;
    // What the account's ended sessions still held (address, user agent) goes now.
    await eraseEndedSessionDetails(db, userId);
    const sessionId = await authRepo.createSession(db, {
      userId,
      remember,
      expiresAt: new Date(Date.now() + ttlSeconds * 1000),
      ip: client ? displayAddress(client.ip) : null,
      userAgent: client?.userAgent ?? null,
    });
    const refreshToken = newOpaqueToken();
    await authRepo.addRefreshToken(db, sessionId, hashToken(refreshToken));
    return {
      accessToken: deps.signAccessToken({ sub: userId, sid: sessionId }),
      refreshToken,
      cookieMaxAge: remember ? ttlSeconds : undefined,
    };
  }

  /**
   * A wrong code after a right password (a pending sign-in's second step): repeated, the
   * password is likely known to someone else, so the owner is told by mail (no code, address
   * or token in it), at most once an hour.
   */
  async function noteWrongCode(userId: string): Promise<void> {
    if ((await limiter.take(`2fa:wrong-codes:${userId}`, WRONG_CODES_UNREMARKED)).allowed) return;
    if (!(await limiter.take(`2fa:wrong-codes-mail:${userId}`, WRONG_CODES_MAILS)).allowed) return;
    const user = await userRepo.findOpenUserById(db, userId);
    if (!user) return;
    await mail.send(MailTemplates.wrongSecondFactorCodes(user.email, brand, link('/profile')));
  }

  /**
   * The one place a sign-in's second step (code, recovery code, passkey) is recorded, passed
   * or failed: the sign-in history listens here.
   */
  function secondStepOutcome(outcome: SecondStepOutcome, client?: ClientInfo): void {
    deps.onSecondStep?.(outcome);
    const { userId } = outcome;
    if (userId) afterAnswer(() => recordSignIn(db, { userId, ...clientOf(client, outcome.ip), method: outcome.method, success: outcome.ok }));
  }

  return {
    twoFactor,

    /** `ro` and `q` (a purchase intent from the redirect rules) ride along in the verification link. */
    async register(input: { email: string; password: string; ro?: string; q?: string }, ip: string): Promise<void> {
      await throttle(`register:ip:${ip}`, REGISTER_PER_IP);
      const email = input.email.trim();
      if (!email) throw Errors.badRequest('Please set an email');
      if (!isValidEmail(email)) throw Errors.badRequest('Invalid email format');
      const problem = passwordProblem(input.password);
      if (problem) throw Errors.badRequest(problem);
      // The hash runs in every branch so timing does not tell existing accounts apart.
      const passwordHash = await hashPassword(input.password);
      const userId = await userRepo.insertUser(db, { email, passwordHash, verified: false });
      const normalized = normalizeEmail(email);
      if (!(await mayMail(normalized))) return;
      const intent =
        (input.ro && /^[1-7]$/.test(input.ro) ? `&ro=${input.ro}` : '') +
        (input.q && /^[A-Za-z0-9_.-]{1,64}$/.test(input.q) ? `&q=${input.q}` : '');
      if (userId) {
        const token = await issueOneTimeLink('verify-email', userId, config.VERIFY_TOKEN_TTL_HOURS * 60);
        await mail.send(MailTemplates.verifyEmail(email, brand, link(`/verification?v=${token}${intent}`)));
        return;
      }
      const existing = await userRepo.findOpenUserByEmail(db, email);
      if (!existing) return;
      if (!existing.email_verified_at) {
        await authRepo.voidOneTimeTokens(db, existing.id, 'verify-email');
        const token = await issueOneTimeLink('verify-email', existing.id, config.VERIFY_TOKEN_TTL_HOURS * 60);
        await mail.send(MailTemplates.verifyEmail(existing.email, brand, link(`/verification?v=${token}${intent}`)));
      } else {
        await mail.send(MailTemplates.alreadyRegistered(existing.email, brand, link('/login'), link('/forgot-password')));
      }
    },

    async verifyEmail(key: string): Promise<void> {
      const token = await authRepo.consumeOneTimeToken(db, 'verify-email', hashToken(key));
      if (!token?.user_id) throw Errors.badRequest('Invalid or expired verification link');
      await userRepo.markEmailVerified(db, token.user_id);
    },

    /**
     * A session, or, with two-factor on, a pending token for the second step (no session yet).
     * `ip` is the rate-limit address (request.limitAddress); `client` the exact address and
     * user agent the session list and the sign-in history show (request.ip).
     */
    async login(input: { email: string; password: string; remember: boolean }, ip: string, client?: ClientInfo): Promise<SessionTokens | SecondFactorPending> {
      if (!input.email.trim()) throw Errors.badRequest('Please input an email');
      if (!input.password) throw Errors.badRequest('Please input a password');
      if (input.email.length > 255 || input.password.length > 1024) throw Errors.invalidCredentials();
      await throttle(`login:ip:${ip}`, LOGIN_PER_IP);
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
        if (user) afterAnswer(() => recordSignIn(db, { userId: user.id, ...clientOf(client, ip), method: 'password', success: false }));
        throw Errors.invalidCredentials();
      }
      if (!user.email_verified_at) throw Errors.emailNotVerified();
      // Suspended by an operator (user:suspend): told only to whoever knows the password.
      if (user.suspended_at) throw Errors.accountSuspended(config.SUPPORT_URL);
      await limiter.reset(pairKey);
      const status = await twoFactor.status(user.id);
      if (status.enabled) {
        const pendingToken = newOpaqueToken();
        await authRepo.createOneTimeToken(db, {
          purpose: 'second-factor',
          userId: user.id,
          tokenHash: hashToken(pendingToken),
          expiresAt: minutes(SECOND_STEP_TTL_MINUTES),
          payload: { remember: input.remember },
        });
        const methods: SecondFactorMethod[] = [];
        if (status.totp) methods.push('code');
        if (status.passkeys.length > 0) methods.push('passkey');
        methods.push('recovery code');
        return { pendingToken, methods };
      }
      await authRepo.rememberKnownIp(db, user.id, ipHash);
      const tokens = await startSession(user.id, input.remember, client);
      await recordSignIn(db, { userId: user.id, ...clientOf(client, ip), method: 'password', success: true });
      return tokens;
    },

    /**
     * The second step of a password sign-in: the pending token and one second factor (a
     * passkey: signed over a challenge issued for this pending sign-in). A wrong factor
     * leaves the token usable until it expires (guesses are throttled, two-factor.ts; repeated
     * wrong codes mail the owner); a right one uses it up and starts the session.
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
        method = await twoFactor.check({ purpose: 'second-factor', userId, pendingTokenHash: tokenHash }, proof, ip);
      } catch (error) {
        if (!(error instanceof AppError && error.code === 'SECOND_FACTOR_REQUIRED')) {
          secondStepOutcome({ userId, method, ok: false, ip }, client);
        }
        if (method === 'code' && error instanceof AppError && error.code === 'INVALID_SECOND_FACTOR') afterAnswer(() => noteWrongCode(userId));
        throw error;
      }
      const used = await authRepo.consumeOneTimeToken(db, 'second-factor', tokenHash);
      if (!used?.user_id) throw expired();
      const user = await userRepo.findOpenUserById(db, userId);
      if (!user) throw expired();
      secondStepOutcome({ userId, method, ok: true, ip }, client);
      await authRepo.rememberKnownIp(db, userId, hmac(deps.ipSecret, ip));
      const remember = Boolean((used.payload as { remember?: unknown } | null)?.remember);
      return startSession(userId, remember, client);
    },

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
      await throttle(`passkey-options:ip:${ip}`, LOGIN_PER_IP);
    },

    /** "Sign in with a passkey": a discoverable credential alone, user verification required. */
    async passkeyLogin(assertion: unknown, remember: boolean, ip: string, client?: ClientInfo): Promise<SessionTokens> {
      await throttle(`login:ip:${ip}`, LOGIN_PER_IP);
      let userId: string;
      try {
        userId = await twoFactor.verifyPasskey(assertion, { purpose: 'sign-in' });
      } catch (error) {
        secondStepOutcome({ userId: null, method: 'passkey', ok: false, ip });
        throw error;
      }
      const user = await userRepo.findOpenUserById(db, userId);
      if (!user) throw Errors.unauthorized('Passkey not recognised');
      if (!user.email_verified_at) throw Errors.emailNotVerified();
      if (user.suspended_at) throw Errors.accountSuspended(config.SUPPORT_URL);
      secondStepOutcome({ userId, method: 'passkey', ok: true, ip }, client);
      await authRepo.rememberKnownIp(db, userId, hmac(deps.ipSecret, ip));
      return startSession(userId, remember, client);
    },

    /** Rotates the refresh token. A token used twice revokes its whole family. */
    async refresh(refreshToken: string | undefined): Promise<SessionTokens> {
      if (!refreshToken || refreshToken.length > 200) throw Errors.unauthorized();
      const tokenHash = hashToken(refreshToken);
      let reusedSession: string | undefined;
      const outcome = await db.transaction().execute(async (trx) => {
        const row = await authRepo.findRefreshTokenForUpdate(trx, tokenHash);
        if (!row || row.revoked_at || row.closed_at || row.suspended_at || row.expires_at.getTime() <= Date.now()) return null;
        if (row.used_at) {
          await authRepo.revokeSession(trx, row.session_id, 'refresh-token-reuse');
          reusedSession = row.session_id;
          return null;
        }
        await authRepo.markRefreshTokenUsed(trx, tokenHash);
        const next = newOpaqueToken();
        await authRepo.addRefreshToken(trx, row.session_id, hashToken(next));
        const ttlSeconds = row.remember ? config.REFRESH_TTL_DAYS * 86400 : config.SESSION_TTL_HOURS * 3600;
        await authRepo.extendSession(trx, row.session_id, new Date(Date.now() + ttlSeconds * 1000));
        return {
          accessToken: deps.signAccessToken({ sub: row.user_id, sid: row.session_id }),
          refreshToken: next,
          cookieMaxAge: row.remember ? ttlSeconds : undefined,
        };
      });
      if (reusedSession) deps.onSessionsEnded?.({ sessionId: reusedSession });
      if (!outcome) throw Errors.unauthorized();
      return outcome;
    },

    async logout(refreshToken: string | undefined): Promise<void> {
      if (!refreshToken || refreshToken.length > 200) return;
      const sessionId = await authRepo.findSessionIdByRefreshToken(db, hashToken(refreshToken));
      if (!sessionId) return;
      await authRepo.revokeSession(db, sessionId, 'logout');
      deps.onSessionsEnded?.({ sessionId });
    },

    async forgotPassword(rawEmail: string, ip: string): Promise<void> {
      const email = rawEmail.trim();
      if (!email) throw Errors.badRequest('Empty Email');
      if (!isValidEmail(email)) throw Errors.badRequest('Invalid email format');
      await throttle(`forgot:ip:${ip}`, FORGOT_PER_IP);
      // The answer goes before any lookup: the request path does the same work (the address
      // throttle above) for known and unknown emails, and the account's writes and mail
      // happen afterwards, out of the caller's sight.
      const work = async () => {
        const user = await userRepo.findOpenUserByEmail(db, email);
        if (!user || !(await mayMail(normalizeEmail(email)))) return;
        await authRepo.voidOneTimeTokens(db, user.id, 'reset-password');
        const token = await issueOneTimeLink('reset-password', user.id, config.RESET_TOKEN_TTL_MINUTES);
        await mail.send(MailTemplates.resetPassword(user.email, brand, link(`/reset-password?k=${token}`)));
      };
      afterAnswer(work);
    },

    async resetPassword(input: { key: string; password: string }, ip: string): Promise<void> {
      await throttle(`reset:ip:${ip}`, RESET_PER_IP);
      const problem = passwordProblem(input.password);
      if (problem) throw Errors.badRequest(problem);
      const invalid = () => Errors.badRequest('Invalid or expired reset link');
      if (!input.key) throw invalid();
      const tokenHash = hashToken(input.key);
      // The link is checked before the (deliberately slow) password hash, so a bad link
      // costs us no hashing; it is used up below, with the writes it allows.
      if (!(await authRepo.findLiveOneTimeToken(db, 'reset-password', tokenHash))?.user_id) throw invalid();
      const passwordHash = await hashPassword(input.password);
      // One transaction: a failed write leaves the link unused and the password as it was.
      const userId = await db.transaction().execute(async (trx) => {
        const token = await authRepo.consumeOneTimeToken(trx, 'reset-password', tokenHash);
        // Used up or voided meanwhile (a concurrent reset, a newer link): same answer.
        if (!token?.user_id) throw invalid();
        await userRepo.setPasswordHash(trx, token.user_id, passwordHash);
        // The reset proves control of the mailbox.
        await userRepo.markEmailVerified(trx, token.user_id);
        await authRepo.revokeUserSessions(trx, token.user_id, 'password-reset');
        return token.user_id;
      });
      deps.onAccountChanged?.(userId);
      deps.onSessionsEnded?.({ userId });
    },

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
      await twoFactor.requireStepUp({ userId, sessionId }, proof, ip);
      await userRepo.setPasswordHash(db, userId, await hashPassword(next));
      await authRepo.revokeUserSessions(db, userId, 'password-change', sessionId);
      deps.onAccountChanged?.(userId);
      deps.onSessionsEnded?.({ userId, exceptSessionId: sessionId });
    },

    async requestClosure(userId: string): Promise<void> {
      const user = await userRepo.findOpenUserById(db, userId);
      if (!user) throw Errors.unauthorized();
      if (!(await mayMail(normalizeEmail(user.email)))) throw Errors.tooManyRequests(60_000);
      await authRepo.voidOneTimeTokens(db, userId, 'close-account');
      const token = await issueOneTimeLink('close-account', userId, config.CLOSURE_TOKEN_TTL_MINUTES);
      await mail.send(MailTemplates.closeAccount(user.email, brand, link(`/close-account?t=${token}`)));
    },

    /** Closes the account: every session ends and the API key stops working. `sessionId`: the session asking (its step-up). */
    async finalizeClosure(userId: string, sessionId: string, token: string, proof: SecondFactorProof = {}, ip = ''): Promise<void> {
      await twoFactor.requireStepUp({ userId, sessionId }, proof, ip);
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

    /**
     * The check behind every bearer request and websocket: one primary-key read. The
     * session's "last used" time is written at most once a minute, when found older.
     */
    async isSessionActive(sessionId: string, userId: string): Promise<boolean> {
      const session = await authRepo.findActiveSession(db, sessionId, userId);
      if (!session) return false;
      if (Date.now() - session.last_used_at.getTime() > LAST_USED_RESOLUTION_MS) await touchSession(db, sessionId);
      return true;
    },
  };
}

export type AuthService = ReturnType<typeof createAuthService>;
