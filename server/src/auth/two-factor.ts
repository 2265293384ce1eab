/**
 * The second factor: TOTP (RFC 6238: SHA-1, 6 digits, 30 s, as every authenticator app reads
 * it), single-use recovery codes and WebAuthn passkeys. See server/src/auth/README.md.
 *
 * - Two-factor is "on" for an account when TOTP is on or it has at least one passkey.
 * - A TOTP code is accepted once: the last accepted 30-second step is kept per account and a
 *   code of that step or an earlier one is refused (one step of clock drift each way).
 * - The TOTP secret is stored encrypted (AES-256-GCM, key in app_secrets), recovery codes as
 *   HMACs; neither is ever logged.
 * - Guesses are throttled per account (failures) and per address (every attempt).
 * - Step-up: sensitive changes take a current code, a recovery code (used up) or a passkey.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes, randomInt } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
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

export const RECOVERY_CODE_COUNT = 10;
const PERIOD = 30;
const CHALLENGE_TTL_MS = 5 * 60_000;
/** Every second-factor attempt (code, recovery code, passkey) counts against the address. */
const ATTEMPTS_PER_IP = { ratePerSecond: 1 / 3, burst: 20 };
/** Wrong codes count against the account: 5 at once, then one a minute. */
const FAILURES_PER_ACCOUNT = { ratePerSecond: 1 / 60, burst: 5 };

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
    const row = await db
      .selectFrom('users')
      .select(['id', 'email', 'totp_secret_enc', 'totp_pending_secret_enc', 'totp_enabled_at', 'totp_last_step'])
      .where('id', '=', userId)
      .where('closed_at', 'is', null)
      .executeTakeFirst();
    if (!row) throw Errors.unauthorized();
    return row;
  }

  async function passkeyCount(userId: string): Promise<number> {
    const row = await db.selectFrom('passkeys').select((eb) => eb.fn.countAll<number>().as('n')).where('user_id', '=', userId).executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async function isOn(userId: string): Promise<boolean> {
    const row = await account(userId);
    return Boolean(row.totp_secret_enc) || (await passkeyCount(userId)) > 0;
  }

  /** Replaces the account's recovery codes with 10 new ones, returned once in clear. */
  async function replaceRecoveryCodes(userId: string): Promise<string[]> {
    const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
    const hashes = await Promise.all(codes.map(recoveryHash));
    await db.transaction().execute(async (trx) => {
      await trx.deleteFrom('recovery_codes').where('user_id', '=', userId).execute();
      await trx
        .insertInto('recovery_codes')
        .values(hashes.map((code_hash) => ({ user_id: userId, code_hash })))
        .execute();
    });
    return codes;
  }

  async function throttleAttempt(userId: string, ip: string) {
    const byIp = await limiter.take(`2fa:ip:${hmac(deps.ipSecret, ip)}`, ATTEMPTS_PER_IP);
    if (!byIp.allowed) throw Errors.tooManyRequests(byIp.retryAfterMs);
    const byAccount = await limiter.take(`2fa:fail:${userId}`, FAILURES_PER_ACCOUNT, { peek: true });
    if (!byAccount.allowed) throw Errors.tooManyRequests(byAccount.retryAfterMs);
  }

  async function failed(userId: string, error: AppError): Promise<never> {
    await limiter.take(`2fa:fail:${userId}`, FAILURES_PER_ACCOUNT);
    throw error;
  }

  async function verifyCode(userId: string, code: string): Promise<void> {
    const row = await account(userId);
    if (!row.totp_secret_enc) await failed(userId, TwoFactorErrors.invalidCode());
    const step = matchingStep(await decrypt(row.totp_secret_enc!), code.trim());
    if (step === null) await failed(userId, TwoFactorErrors.invalidCode());
    // Accepted once: the step moves forward atomically, so a replay (or a race) finds no row.
    const moved = await db
      .updateTable('users')
      .set({ totp_last_step: step })
      .where('id', '=', userId)
      .where((eb) => eb.or([eb('totp_last_step', 'is', null), eb('totp_last_step', '<', step!)]))
      .executeTakeFirst();
    if (Number(moved.numUpdatedRows) !== 1) await failed(userId, TwoFactorErrors.invalidCode());
  }

  async function useRecoveryCode(userId: string, code: string): Promise<void> {
    if (code.length > 64) await failed(userId, TwoFactorErrors.invalidRecoveryCode());
    const used = await db
      .updateTable('recovery_codes')
      .set({ used_at: sql`now()` })
      .where('user_id', '=', userId)
      .where('code_hash', '=', await recoveryHash(code))
      .where('used_at', 'is', null)
      .executeTakeFirst();
    if (Number(used.numUpdatedRows) !== 1) await failed(userId, TwoFactorErrors.invalidRecoveryCode());
  }

  async function newChallenge(userId: string | null, purpose: 'webauthn-register' | 'webauthn-login', challenge: string) {
    await db
      .insertInto('one_time_tokens')
      .values({ token_hash: hashToken(challenge), purpose, user_id: userId, expires_at: new Date(Date.now() + CHALLENGE_TTL_MS) })
      .execute();
  }

  /** Uses up the challenge a WebAuthn response signed; its user (null for a discoverable sign-in). */
  async function consumeChallenge(purpose: 'webauthn-register' | 'webauthn-login', challenge: string | null) {
    if (!challenge) return undefined;
    return db
      .updateTable('one_time_tokens')
      .set({ used_at: sql`now()` })
      .where('token_hash', '=', hashToken(challenge))
      .where('purpose', '=', purpose)
      .where('used_at', 'is', null)
      .where('expires_at', '>', sql<Date>`now()`)
      .returning('user_id')
      .executeTakeFirst();
  }

  /**
   * Verifies a passkey assertion against a challenge from passkeyOptions(); with `userId`
   * the passkey must be that account's. Returns the account it signed in.
   */
  async function verifyPasskey(response: unknown, userId: string | null): Promise<string> {
    const invalid = TwoFactorErrors.invalidPasskey;
    if (!response || typeof response !== 'object') throw invalid();
    const assertion = response as AuthenticationResponseJSON;
    const challenge = challengeOf(assertion);
    const token = await consumeChallenge('webauthn-login', challenge);
    if (!token || (token.user_id && userId && token.user_id !== userId)) throw invalid();
    if (typeof assertion.id !== 'string' || assertion.id.length > 1024) throw invalid();
    const stored = await db.selectFrom('passkeys').selectAll().where('credential_id', '=', assertion.id).executeTakeFirst();
    if (!stored || (userId && stored.user_id !== userId)) throw invalid();
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
    await db
      .updateTable('passkeys')
      .set({ counter: verified.authenticationInfo.newCounter, last_used_at: sql`now()` })
      .where('id', '=', stored.id)
      .execute();
    return stored.user_id;
  }

  /** Checks one presented second factor for the account; throws when missing or wrong. */
  async function check(userId: string, proof: SecondFactorProof, ip: string): Promise<SecondFactorMethod> {
    const method: SecondFactorMethod | null = proof.passkey ? 'passkey' : proof.recovery_code ? 'recovery code' : proof.code ? 'code' : null;
    if (!method) throw TwoFactorErrors.required();
    await throttleAttempt(userId, ip);
    if (method === 'code') await verifyCode(userId, proof.code!);
    else if (method === 'recovery code') await useRecoveryCode(userId, proof.recovery_code!);
    else {
      try {
        await verifyPasskey(proof.passkey, userId);
      } catch (error) {
        if (error instanceof AppError && error.code === 'INVALID_SECOND_FACTOR') await failed(userId, error);
        throw error;
      }
    }
    await limiter.reset(`2fa:fail:${userId}`);
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
     * is off; otherwise a current code, a recovery code or a passkey.
     */
    async requireStepUp(userId: string, proof: SecondFactorProof, ip: string): Promise<void> {
      if (!(await isOn(userId))) return;
      await check(userId, proof, ip);
    },

    async status(userId: string) {
      const row = await account(userId);
      const passkeys = await db
        .selectFrom('passkeys')
        .select(['id', 'name', 'created_at', 'last_used_at'])
        .where('user_id', '=', userId)
        .orderBy('created_at', 'asc')
        .execute();
      const left = await db
        .selectFrom('recovery_codes')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('user_id', '=', userId)
        .where('used_at', 'is', null)
        .executeTakeFirstOrThrow();
      return {
        enabled: Boolean(row.totp_secret_enc) || passkeys.length > 0,
        totp: Boolean(row.totp_secret_enc),
        totp_enabled_at: row.totp_enabled_at?.toISOString() ?? null,
        recovery_codes_left: Number(left.n),
        passkeys: passkeys.map((p) => ({
          id: p.id,
          name: p.name,
          created_at: p.created_at.toISOString(),
          last_used_at: p.last_used_at?.toISOString() ?? null,
        })),
      };
    },

    /** A new secret awaiting its first code: the otpauth:// URI, its QR code and the secret as text. */
    async beginTotp(userId: string, proof: SecondFactorProof, ip: string) {
      const row = await account(userId);
      if (row.totp_secret_enc) throw Errors.badRequest('Two-factor authentication is already on');
      if ((await passkeyCount(userId)) > 0) await check(userId, proof, ip);
      const secret = new Secret({ size: 20 }).base32;
      await db.updateTable('users').set({ totp_pending_secret_enc: await encrypt(secret) }).where('id', '=', userId).execute();
      const uri = totpFor(secret, row.email).toString();
      return { secret, uri, qr_code: await QRCode.toDataURL(uri, { margin: 1, width: 220 }) };
    },

    /** Turns TOTP on with a first code from the app; returns the recovery codes, shown once. */
    async confirmTotp(userId: string, code: string, ip: string): Promise<string[]> {
      const row = await account(userId);
      if (row.totp_secret_enc) throw Errors.badRequest('Two-factor authentication is already on');
      if (!row.totp_pending_secret_enc) throw Errors.badRequest('Start again: no two-factor setup is pending');
      await throttleAttempt(userId, ip);
      const secret = await decrypt(row.totp_pending_secret_enc);
      const step = matchingStep(secret, code.trim());
      if (step === null) await failed(userId, TwoFactorErrors.invalidCode());
      await limiter.reset(`2fa:fail:${userId}`);
      await db
        .updateTable('users')
        .set({ totp_secret_enc: row.totp_pending_secret_enc, totp_pending_secret_enc: null, totp_enabled_at: sql`now()`, totp_last_step: step })
        .where('id', '=', userId)
        .execute();
      return replaceRecoveryCodes(userId);
    },

    /** Turns TOTP off (after step-up). Recovery codes go too unless a passkey keeps two-factor on. */
    async disableTotp(userId: string, proof: SecondFactorProof, ip: string): Promise<void> {
      const row = await account(userId);
      if (!row.totp_secret_enc) throw Errors.badRequest('Two-factor authentication is not on');
      await check(userId, proof, ip);
      await db
        .updateTable('users')
        .set({ totp_secret_enc: null, totp_pending_secret_enc: null, totp_enabled_at: null, totp_last_step: null })
        .where('id', '=', userId)
        .execute();
      if ((await passkeyCount(userId)) === 0) await db.deleteFrom('recovery_codes').where('user_id', '=', userId).execute();
    },

    async regenerateRecoveryCodes(userId: string, proof: SecondFactorProof, ip: string): Promise<string[]> {
      if (!(await isOn(userId))) throw Errors.badRequest('Two-factor authentication is not on');
      await check(userId, proof, ip);
      return replaceRecoveryCodes(userId);
    },

    /** Options for navigator.credentials.create(): a discoverable credential, user verification required. */
    async passkeyRegistrationOptions(userId: string, proof: SecondFactorProof, ip: string) {
      const row = await account(userId);
      if (await isOn(userId)) await check(userId, proof, ip);
      const existing = await db.selectFrom('passkeys').select(['credential_id', 'transports']).where('user_id', '=', userId).execute();
      const options = await generateRegistrationOptions({
        rpName: rp.name,
        rpID: rp.id,
        userName: row.email,
        userID: new TextEncoder().encode(userId),
        attestationType: 'none',
        excludeCredentials: existing.map((c) => ({ id: c.credential_id, transports: c.transports })),
        authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
      });
      await newChallenge(userId, 'webauthn-register', options.challenge);
      return options;
    },

    /** Stores a new passkey; the first second factor of an account also brings recovery codes. */
    async addPasskey(userId: string, name: string, response: unknown): Promise<{ recovery_codes: string[] | null }> {
      const label = name.trim();
      if (!label) throw Errors.badRequest('Please name the passkey');
      if (label.length > 64) throw Errors.badRequest('Passkey name too long (max 64 characters)');
      const invalid = () => Errors.badRequest('The passkey could not be added; please try again');
      if (!response || typeof response !== 'object') throw invalid();
      const registration = response as RegistrationResponseJSON;
      const challenge = challengeOf(registration);
      const token = await consumeChallenge('webauthn-register', challenge);
      if (!token || token.user_id !== userId) throw invalid();
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
      const inserted = await db
        .insertInto('passkeys')
        .values({
          user_id: userId,
          credential_id: credential.id,
          public_key: Buffer.from(credential.publicKey),
          counter: credential.counter,
          transports: JSON.stringify(credential.transports ?? []),
          name: label,
        })
        .onConflict((oc) => oc.column('credential_id').doNothing())
        .returning('id')
        .executeTakeFirst();
      if (!inserted) throw Errors.badRequest('This passkey is already registered');
      const left = await db.selectFrom('recovery_codes').select('id').where('user_id', '=', userId).where('used_at', 'is', null).executeTakeFirst();
      return { recovery_codes: !wasOn || !left ? await replaceRecoveryCodes(userId) : null };
    },

    async removePasskey(userId: string, passkeyId: string, proof: SecondFactorProof, ip: string): Promise<void> {
      if (!/^[0-9a-f-]{36}$/i.test(passkeyId)) throw Errors.notFound('No such passkey');
      const found = await db.selectFrom('passkeys').select('id').where('id', '=', passkeyId).where('user_id', '=', userId).executeTakeFirst();
      if (!found) throw Errors.notFound('No such passkey');
      await check(userId, proof, ip);
      await db.deleteFrom('passkeys').where('id', '=', passkeyId).where('user_id', '=', userId).execute();
      if (!(await isOn(userId))) await db.deleteFrom('recovery_codes').where('user_id', '=', userId).execute();
    },

    /**
     * Options for navigator.credentials.get(). Without an account: a discoverable sign-in
     * (no allowCredentials). With one (the second step, a step-up): its passkeys.
     */
    async passkeyOptions(userId: string | null) {
      const allow = userId
        ? await db.selectFrom('passkeys').select(['credential_id', 'transports']).where('user_id', '=', userId).execute()
        : [];
      const options = await generateAuthenticationOptions({
        rpID: rp.id,
        userVerification: 'required',
        ...(userId ? { allowCredentials: allow.map((c) => ({ id: c.credential_id, transports: c.transports })) } : {}),
      });
      await newChallenge(userId, 'webauthn-login', options.challenge);
      return options;
    },

    /** A one-off opaque token, for the pending second step of a sign-in. */
    newPendingToken: newOpaqueToken,
  };
}

export type TwoFactorService = ReturnType<typeof createTwoFactorService>;

/** Operator reset (user:reset-2fa): TOTP off, recovery codes and passkeys gone. Pass the command's transaction. */
export async function resetTwoFactor(db: Kysely<Database>, userId: string): Promise<{ totp: boolean; passkeys: number; recoveryCodes: number }> {
  const before = await db.selectFrom('users').select('totp_secret_enc').where('id', '=', userId).executeTakeFirstOrThrow();
  await db
    .updateTable('users')
    .set({ totp_secret_enc: null, totp_pending_secret_enc: null, totp_enabled_at: null, totp_last_step: null })
    .where('id', '=', userId)
    .execute();
  const codes = await db.deleteFrom('recovery_codes').where('user_id', '=', userId).executeTakeFirst();
  const keys = await db.deleteFrom('passkeys').where('user_id', '=', userId).executeTakeFirst();
  return { totp: Boolean(before.totp_secret_enc), passkeys: Number(keys.numDeletedRows), recoveryCodes: Number(codes.numDeletedRows) };
}
