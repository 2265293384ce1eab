/**
 * The second factor: TOTP (RFC 6238: SHA-1, 6 digits, 30 s, as every authenticator app reads
 * it), single-use recovery codes and WebAuthn passkeys. See server/src/auth/README.md.
 *
 * - Two-factor is "on" for an account when TOTP is on or it has at least one passkey.
 * - A TOTP code is accepted once: the last accepted 30-second step is kept per account and a
 *   code of that step or an earlier one is refused (one step of clock drift each way).
 * - The TOTP secret is stored encrypted (AES-256-GCM, key in app_secrets), recovery codes as
 *   HMACs; neither is ever logged.
 * - Every attempt counts against the address. Wrong codes count against the (account,
 *   address) pair and, with a much larger burst, against the account; once the account's is
 *   spent, codes are taken only from addresses the account signed in from. Recovery codes
 *   and passkeys never wait on the code throttle (limits of their own), so a thief who knows
 *   the password cannot lock the owner out.
 * - A passkey challenge is bound to its purpose (passkey sign-in, a pending sign-in's second
 *   step, a session's step-up, a session's new passkey) and to that pending sign-in or
 *   session: presented anywhere else, it is refused as a wrong passkey.
 * - Step-up: sensitive changes take a current code, a recovery code (used up) or a passkey.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes, randomInt } from 'node:crypto';
import type { Kysely } from 'kysely';
import { Secret, TOTP } from 'otpauth';
import QRCode from 'qrcode';
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type RegistrationResponseJSON,
} from '@simplewebauthn/server';
import type { Database } from '../db/schema';
import type { Config } from '../config';
import type { RateLimiter } from '../infra/rate-limiter';
import { AppError, Errors } from '../infra/errors';
import { hashToken, hmac, loadOrCreateSecret, newOpaqueToken } from '../infra/secrets';
import * as repo from './two-factor-repository';
import { isKnownIp } from './auth-repository';

export const RECOVERY_CODE_COUNT = 10;
const PERIOD = 30;
const CHALLENGE_TTL_MS = 5 * 60_000;
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

/** Where a passkey assertion is presented: its challenge must have been issued for exactly that. */
export type PasskeyStep =
  /** "Sign in with a passkey": no account yet, any discoverable credential. */
  | { purpose: 'sign-in' }
  /** The second step of one pending password sign-in (the pending token's hash). */
  | { purpose: 'second-factor'; userId: string; pendingTokenHash: string }
  /** A step-up for a sensitive change, in one session. */
  | { purpose: 'step-up'; userId: string; sessionId: string };

/** A second factor's step: a pending sign-in's or a session's step-up. */
export type SecondFactorStep = Exclude<PasskeyStep, { purpose: 'sign-in' }>;

/** The signed-in account and session a profile change comes from. */
export interface Actor {
  userId: string;
  sessionId: string;
}

const stepUpOf = (actor: Actor): SecondFactorStep => ({ purpose: 'step-up', userId: actor.userId, sessionId: actor.sessionId });

function bindingOf(step: PasskeyStep): repo.ChallengeBinding {
  if (step.purpose === 'sign-in') return { purpose: 'webauthn-sign-in', userId: null, boundTo: null };
  if (step.purpose === 'second-factor') return { purpose: 'webauthn-second-factor', userId: step.userId, boundTo: step.pendingTokenHash };
  return { purpose: 'webauthn-step-up', userId: step.userId, boundTo: step.sessionId };
}

/** How a second step was passed, in the words of the sign-in history. */
export type SecondFactorMethod = 'code' | 'recovery code' | 'passkey';

/** What a caller presents as the second factor (one of them). */
export interface SecondFactorProof {
  code?: string;
  recovery_code?: string;
  passkey?: unknown;
}

export const TwoFactorErrors = {
  /** Two-factor is on and the request carries no second factor. */
  required: () => new AppError(403, 'SECOND_FACTOR_REQUIRED', 'Authentication code required'),
  invalidCode: () => new AppError(403, 'INVALID_SECOND_FACTOR', 'Invalid authentication code'),
  invalidRecoveryCode: () => new AppError(403, 'INVALID_SECOND_FACTOR', 'Invalid recovery code'),
  invalidPasskey: () => new AppError(403, 'INVALID_SECOND_FACTOR', 'Passkey not recognised'),
};

export interface RelyingParty {
  id: string;
  origin: string;
  name: string;
}

/**
 * The WebAuthn relying party from PUBLIC_URL: its host is the RP id and its origin the
 * expected origin. Browsers refuse WebAuthn on an IP address, so a loopback address
 * (127.0.0.1, [::1]) becomes `localhost` on the same port: open the dashboard at
 * http://localhost:PORT in development.
 */
export function relyingParty(config: Pick<Config, 'publicUrl' | 'BRAND'>): RelyingParty {
  const url = new URL(config.publicUrl);
  if (url.hostname === '127.0.0.1' || url.hostname === '[::1]') url.hostname = 'localhost';
  return { id: url.hostname, origin: url.origin, name: config.BRAND };
}

function normalizeRecoveryCode(code: string): string {
  return code.toLowerCase().replace(/[\s-]+/g, '');
}

// 32 letters and digits without the look-alikes (l, o, 0, 1): 10 of them carry 50 bits.
const RECOVERY_ALPHABET = 'abcdefghijkmnpqrstuvwxyz23456789';
function newRecoveryCode(): string {
  let code = '';
  for (let i = 0; i < 10; i++) code += RECOVERY_ALPHABET[randomInt(RECOVERY_ALPHABET.length)];
  return `${code.slice(0, 5)}-${code.slice(5)}`;
}

/** The account a WebAuthn user handle names (we register the account id's UTF-8 bytes); null when unreadable. */
function userHandleAccount(handle: unknown): string | null {
  if (typeof handle !== 'string' || handle.length > 1024) return null;
  return Buffer.from(handle, 'base64url').toString('utf8');
}

function challengeOf(response: { response?: { clientDataJSON?: unknown } }): string | null {
  try {
    const raw = response.response?.clientDataJSON;
    if (typeof raw !== 'string' || raw.length > 4096) return null;
    const data = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as { challenge?: unknown };
    return typeof data.challenge === 'string' && data.challenge.length <= 200 ? data.challenge : null;
  } catch {
    return null;
  }
}

export interface TwoFactorDeps {
  db: Kysely<Database>;
  config: Config;
  limiter: RateLimiter;
  ipSecret: string;
}

export function createTwoFactorService(deps: TwoFactorDeps) {
  const { db, config, limiter } = deps;
  const rp = relyingParty(config);
  let keyPromise: Promise<Buffer> | undefined;
  /** The encryption key of TOTP secrets and recovery-code HMACs, shared by every instance. */
  const key = () =>
    (keyPromise ??= loadOrCreateSecret(db, 'two-factor-key').then((secret) => createHash('sha256').update(secret).digest()));

  async function encrypt(plain: string): Promise<string> {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', await key(), iv);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), body.toString('base64url')].join('.');
  }

  async function decrypt(stored: string): Promise<string> {
    const [version, iv, tag, body] = stored.split('.');
    if (version !== 'v1' || !iv || !tag || !body) throw new Error('two-factor secret: unknown format');
    const decipher = createDecipheriv('aes-256-gcm', await key(), Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
  }

  async function recoveryHash(code: string): Promise<string> {
    return hmac((await key()).toString('base64url'), normalizeRecoveryCode(code));
  }

  function totpFor(secretBase32: string, email: string): TOTP {
    return new TOTP({ issuer: config.BRAND, label: email, algorithm: 'SHA1', digits: 6, period: PERIOD, secret: Secret.fromBase32(secretBase32) });
  }

  /** The 30-second step a code matches (now, or one step either side), or null. */
  function matchingStep(secretBase32: string, code: string): number | null {
    if (!/^\d{6}$/.test(code)) return null;
    const now = Date.now();
    const delta = totpFor(secretBase32, '').validate({ token: code, timestamp: now, window: 1 });
    return delta === null ? null : Math.floor(now / 1000 / PERIOD) + delta;
  }

  async function account(userId: string) {
    const row = await repo.findAccount(db, userId);
    if (!row) throw Errors.unauthorized();
    return row;
  }

  async function passkeyCount(userId: string): Promise<number> {
    return repo.countPasskeys(db, userId);
  }

  async function isOn(userId: string): Promise<boolean> {
    const row = await account(userId);
    return Boolean(row.totp_secret_enc) || (await passkeyCount(userId)) > 0;
  }

  /** Replaces the account's recovery codes with 10 new ones, returned once in clear. */
  async function replaceRecoveryCodes(userId: string): Promise<string[]> {
    const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
    const hashes = await Promise.all(codes.map(recoveryHash));
    await repo.replaceRecoveryCodes(db, userId, hashes);
    return codes;
  }

  /** A code, or what cannot be guessed (a recovery code, a passkey): each has its own failure limits. */
  type Kind = 'code' | 'other';
  const ipHashOf = (ip: string) => hmac(deps.ipSecret, ip);
  const keys = (userId: string, ip: string) => {
    const ipHash = ipHashOf(ip);
    return {
      ipHash,
      codePair: `2fa:code-fail:${userId}:${ipHash}`,
      codeAccount: `2fa:code-fail:${userId}`,
      otherPair: `2fa:other-fail:${userId}:${ipHash}`,
    };
  };

  /** Before a check: every attempt against the address, then the failure limits of its kind. */
  async function throttleAttempt(userId: string, ip: string, kind: Kind) {
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
  }

  async function failed(userId: string, ip: string, kind: Kind, error: AppError): Promise<never> {
    const k = keys(userId, ip);
    if (kind === 'other') {
      await limiter.take(k.otherPair, OTHER_FAILURES_PER_ACCOUNT_IP);
    } else {
      await limiter.take(k.codePair, CODE_FAILURES_PER_ACCOUNT_IP);
      await limiter.take(k.codeAccount, CODE_FAILURES_PER_ACCOUNT);
    }
    throw error;
  }

  /**
   * A right factor: this address's failures for the account are forgotten (the owner's typos).
   * The account-wide count is not: it drains by itself, so a right answer elsewhere does not
   * give a guesser a new burst.
   */
  async function passed(userId: string, ip: string) {
    const k = keys(userId, ip);
    await limiter.reset(k.codePair);
    await limiter.reset(k.otherPair);
  }

  async function verifyCode(userId: string, code: string, ip: string): Promise<void> {
    const row = await account(userId);
    if (!row.totp_secret_enc) await failed(userId, ip, 'code', TwoFactorErrors.invalidCode());
    const step = matchingStep(await decrypt(row.totp_secret_enc!), code.trim());
    if (step === null) await failed(userId, ip, 'code', TwoFactorErrors.invalidCode());
    // Accepted once: the step moves forward atomically, so a replay (or a race) finds no row.
    if (!(await repo.advanceTotpStep(db, userId, step!))) await failed(userId, ip, 'code', TwoFactorErrors.invalidCode());
  }

  async function useRecoveryCode(userId: string, code: string, ip: string): Promise<void> {
    if (code.length > 64) await failed(userId, ip, 'other', TwoFactorErrors.invalidRecoveryCode());
    if (!(await repo.useRecoveryCode(db, userId, await recoveryHash(code)))) await failed(userId, ip, 'other', TwoFactorErrors.invalidRecoveryCode());
  }

  /** Stores a challenge by its hash (like the mailed links), bound to where it may be used, 5 minutes, used up once. */
  async function newChallenge(binding: repo.ChallengeBinding, challenge: string) {
    await repo.insertChallenge(db, hashToken(challenge), binding, new Date(Date.now() + CHALLENGE_TTL_MS));
  }

  /** Uses up the challenge a WebAuthn response signed, when it was issued for exactly this binding. */
  async function consumeChallenge(binding: repo.ChallengeBinding, challenge: string | null): Promise<boolean> {
    if (!challenge) return false;
    return repo.consumeChallenge(db, hashToken(challenge), binding);
  }

  /**
   * Verifies a passkey assertion against a challenge passkeyOptions() issued for this very
   * step (purpose, account, pending sign-in or session). For a second factor the passkey
   * must be that account's; a user handle, when the authenticator gives one (always for a
   * passkey sign-in), must name the passkey's account. Returns the account it signed in.
   */
  async function verifyPasskey(response: unknown, step: PasskeyStep): Promise<string> {
    const invalid = TwoFactorErrors.invalidPasskey;
    if (!response || typeof response !== 'object') throw invalid();
    const assertion = response as AuthenticationResponseJSON;
    const challenge = challengeOf(assertion);
    if (!(await consumeChallenge(bindingOf(step), challenge))) throw invalid();
    if (typeof assertion.id !== 'string' || assertion.id.length > 1024) throw invalid();
    const stored = await repo.findPasskeyByCredential(db, assertion.id);
    if (!stored || (step.purpose !== 'sign-in' && stored.user_id !== step.userId)) throw invalid();
    const handle: unknown = (assertion.response as { userHandle?: unknown } | undefined)?.userHandle;
    if (handle === undefined || handle === null) {
      // A discoverable sign-in names its account (WebAuthn §7.2: the user handle is required then).
      if (step.purpose === 'sign-in') throw invalid();
    } else if (userHandleAccount(handle) !== stored.user_id) {
      throw invalid();
    }
    let verified;
    try {
      verified = await verifyAuthenticationResponse({
        response: assertion,
        expectedChallenge: challenge!,
        expectedOrigin: rp.origin,
        expectedRPID: rp.id,
        requireUserVerification: true,
        credential: {
          id: stored.credential_id,
          publicKey: new Uint8Array(stored.public_key),
          counter: Number(stored.counter),
          transports: stored.transports,
        },
      });
    } catch {
      throw invalid();
    }
    if (!verified.verified) throw invalid();
    await repo.notePasskeyUse(db, stored.id, verified.authenticationInfo.newCounter);
    return stored.user_id;
  }

  /**
   * Checks one presented second factor for the step's account (a passkey: against a challenge
   * issued for this step); throws when missing or wrong.
   */
  async function check(step: SecondFactorStep, proof: SecondFactorProof, ip: string): Promise<SecondFactorMethod> {
    const { userId } = step;
    const method: SecondFactorMethod | null = proof.passkey ? 'passkey' : proof.recovery_code ? 'recovery code' : proof.code ? 'code' : null;
    if (!method) throw TwoFactorErrors.required();
    await throttleAttempt(userId, ip, method === 'code' ? 'code' : 'other');
    if (method === 'code') await verifyCode(userId, proof.code!, ip);
    else if (method === 'recovery code') await useRecoveryCode(userId, proof.recovery_code!, ip);
    else {
      try {
        await verifyPasskey(proof.passkey, step);
      } catch (error) {
        if (error instanceof AppError && error.code === 'INVALID_SECOND_FACTOR') await failed(userId, ip, 'other', error);
        throw error;
      }
    }
    await passed(userId, ip);
    return method;
  }

  return {
    relyingParty: rp,
    isOn,
    check,
    verifyPasskey,

    /**
     * Step-up for a sensitive change (turning two-factor off, new recovery codes, a new API
     * key, a new password, closing the account, passkeys): nothing to check when two-factor
     * is off; otherwise a current code, a recovery code or a passkey (challenge from this session).
     */
    async requireStepUp(actor: Actor, proof: SecondFactorProof, ip: string): Promise<void> {
      if (!(await isOn(actor.userId))) return;
      await check(stepUpOf(actor), proof, ip);
    },

    async status(userId: string) {
      const row = await account(userId);
      const passkeys = await repo.listPasskeys(db, userId);
      const left = await repo.countUnusedRecoveryCodes(db, userId);
      return {
        enabled: Boolean(row.totp_secret_enc) || passkeys.length > 0,
        totp: Boolean(row.totp_secret_enc),
        totp_enabled_at: row.totp_enabled_at?.toISOString() ?? null,
        recovery_codes_left: left,
        passkeys: passkeys.map((p) => ({
          id: p.id,
          name: p.name,
          created_at: p.created_at.toISOString(),
          last_used_at: p.last_used_at?.toISOString() ?? null,
        })),
      };
    },

    /** A new secret awaiting its first code: the otpauth:// URI, its QR code and the secret as text. */
    async beginTotp(actor: Actor, proof: SecondFactorProof, ip: string) {
      const { userId } = actor;
      const row = await account(userId);
      if (row.totp_secret_enc) throw Errors.badRequest('Two-factor authentication is already on');
      if ((await passkeyCount(userId)) > 0) await check(stepUpOf(actor), proof, ip);
      const secret = new Secret({ size: 20 }).base32;
      await repo.setPendingTotp(db, userId, await encrypt(secret));
      const uri = totpFor(secret, row.email).toString();
      return { secret, uri, qr_code: await QRCode.toDataURL(uri, { margin: 1, width: 220 }) };
    },

    /** Turns TOTP on with a first code from the app; returns the recovery codes, shown once. */
    async confirmTotp(userId: string, code: string, ip: string): Promise<string[]> {
      const row = await account(userId);
      if (row.totp_secret_enc) throw Errors.badRequest('Two-factor authentication is already on');
      if (!row.totp_pending_secret_enc) throw Errors.badRequest('Start again: no two-factor setup is pending');
      await throttleAttempt(userId, ip, 'code');
      const secret = await decrypt(row.totp_pending_secret_enc);
      const step = matchingStep(secret, code.trim());
      if (step === null) await failed(userId, ip, 'code', TwoFactorErrors.invalidCode());
      await passed(userId, ip);
      await repo.enableTotp(db, userId, row.totp_pending_secret_enc, step!);
      return replaceRecoveryCodes(userId);
    },

    /** Turns TOTP off (after step-up). Recovery codes go too unless a passkey keeps two-factor on. */
    async disableTotp(actor: Actor, proof: SecondFactorProof, ip: string): Promise<void> {
      const { userId } = actor;
      const row = await account(userId);
      if (!row.totp_secret_enc) throw Errors.badRequest('Two-factor authentication is not on');
      await check(stepUpOf(actor), proof, ip);
      await repo.clearTotp(db, userId);
      if ((await passkeyCount(userId)) === 0) await repo.deleteRecoveryCodes(db, userId);
    },

    async regenerateRecoveryCodes(actor: Actor, proof: SecondFactorProof, ip: string): Promise<string[]> {
      if (!(await isOn(actor.userId))) throw Errors.badRequest('Two-factor authentication is not on');
      await check(stepUpOf(actor), proof, ip);
      return replaceRecoveryCodes(actor.userId);
    },

    /**
     * Options for navigator.credentials.create(): a discoverable credential, user verification
     * required; the challenge serves only this session's addPasskey().
     */
    async passkeyRegistrationOptions(actor: Actor, proof: SecondFactorProof, ip: string) {
      const { userId } = actor;
      const row = await account(userId);
      if (await isOn(userId)) await check(stepUpOf(actor), proof, ip);
      const existing = await repo.listCredentials(db, userId);
      const options = await generateRegistrationOptions({
        rpName: rp.name,
        rpID: rp.id,
        userName: row.email,
        userID: new TextEncoder().encode(userId),
        attestationType: 'none',
        excludeCredentials: existing.map((c) => ({ id: c.credential_id, transports: c.transports })),
        authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
      });
      await newChallenge({ purpose: 'webauthn-register', userId, boundTo: actor.sessionId }, options.challenge);
      return options;
    },

    /** Stores a new passkey; the first second factor of an account also brings recovery codes. */
    async addPasskey(actor: Actor, name: string, response: unknown): Promise<{ recovery_codes: string[] | null }> {
      const { userId } = actor;
      const label = name.trim();
      if (!label) throw Errors.badRequest('Please name the passkey');
      if (label.length > 64) throw Errors.badRequest('Passkey name too long (max 64 characters)');
      const invalid = () => Errors.badRequest('The passkey could not be added; please try again');
      if (!response || typeof response !== 'object') throw invalid();
      const registration = response as RegistrationResponseJSON;
      const challenge = challengeOf(registration);
      if (!(await consumeChallenge({ purpose: 'webauthn-register', userId, boundTo: actor.sessionId }, challenge))) throw invalid();
      let verified;
      try {
        verified = await verifyRegistrationResponse({
          response: registration,
          expectedChallenge: challenge!,
          expectedOrigin: rp.origin,
          expectedRPID: rp.id,
          requireUserVerification: true,
        });
      } catch {
        throw invalid();
      }
      if (!verified.verified) throw invalid();
      const wasOn = await isOn(userId);
      const { credential } = verified.registrationInfo;
      const inserted = await repo.insertPasskey(db, {
        userId,
        credentialId: credential.id,
        publicKey: Buffer.from(credential.publicKey),
        counter: credential.counter,
        transports: credential.transports ?? [],
        name: label,
      });
      if (!inserted) throw Errors.badRequest('This passkey is already registered');
      const left = await repo.countUnusedRecoveryCodes(db, userId);
      return { recovery_codes: !wasOn || left === 0 ? await replaceRecoveryCodes(userId) : null };
    },

    async removePasskey(actor: Actor, passkeyId: string, proof: SecondFactorProof, ip: string): Promise<void> {
      const { userId } = actor;
      if (!/^[0-9a-f-]{36}$/i.test(passkeyId)) throw Errors.notFound('No such passkey');
      const found = await repo.findOwnPasskey(db, userId, passkeyId);
      if (!found) throw Errors.notFound('No such passkey');
      await check(stepUpOf(actor), proof, ip);
      await repo.deletePasskey(db, userId, passkeyId);
      if (!(await isOn(userId))) await repo.deleteRecoveryCodes(db, userId);
    },

    /**
     * Options for navigator.credentials.get(), their challenge bound to `step`. A passkey
     * sign-in: any discoverable credential (no allowCredentials). A pending sign-in's second
     * step or a session's step-up: that account's passkeys.
     */
    async passkeyOptions(step: PasskeyStep) {
      const allow = step.purpose === 'sign-in' ? [] : await repo.listCredentials(db, step.userId);
      const options = await generateAuthenticationOptions({
        rpID: rp.id,
        userVerification: 'required',
        ...(step.purpose === 'sign-in' ? {} : { allowCredentials: allow.map((c) => ({ id: c.credential_id, transports: c.transports })) }),
      });
      await newChallenge(bindingOf(step), options.challenge);
      return options;
    },

    /** A one-off opaque token, for the pending second step of a sign-in. */
    newPendingToken: newOpaqueToken,
  };
}

export type TwoFactorService = ReturnType<typeof createTwoFactorService>;

/** Operator reset (user:reset-2fa): TOTP off, recovery codes and passkeys gone. Pass the command's transaction. */
export async function resetTwoFactor(db: Kysely<Database>, userId: string): Promise<{ totp: boolean; passkeys: number; recoveryCodes: number }> {
  const totp = await repo.hasTotpSecret(db, userId);
  await repo.clearTotp(db, userId);
  const recoveryCodes = await repo.deleteRecoveryCodes(db, userId);
  const passkeys = await repo.deletePasskeys(db, userId);
  return { totp, passkeys, recoveryCodes };
}
