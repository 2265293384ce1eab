/**
 * The profile's passkeys: options for a new one, adding it (the account's first second factor
 * also brings recovery codes) and removing one. Both changes take a step-up when two-factor
 * is on; a new passkey's challenge serves only its own session.
 */
import type { Kysely } from 'kysely';
import { generateRegistrationOptions, verifyRegistrationResponse, type RegistrationResponseJSON } from '@simplewebauthn/server';
import type { Database } from '../db/schema';
import { Errors } from '../infra/errors';
import * as repo from './two-factor-repository';
import { isTwoFactorOn, twoFactorAccount } from './two-factor-account';
import { challengeOf, consumeChallenge, newChallenge, type RelyingParty } from './two-factor-passkeys';
import { replaceRecoveryCodes } from './two-factor-recovery-codes';
import type { TwoFactorSecrets } from './two-factor-secrets';
import { stepUpOf, type Actor, type CheckSecondFactor, type SecondFactorProof } from './two-factor-types';

interface PasskeySettingsDeps {
  db: Kysely<Database>;
  rp: RelyingParty;
  secrets: TwoFactorSecrets;
  check: CheckSecondFactor;
}

const registerBinding = (actor: Actor): repo.ChallengeBinding => ({ purpose: 'webauthn-register', userId: actor.userId, boundTo: actor.sessionId });

/** The new credential a registration response proves, when its challenge was issued to this session for a new passkey. */
async function registeredCredential(deps: Pick<PasskeySettingsDeps, 'db' | 'rp'>, actor: Actor, response: unknown) {
  const invalid = () => Errors.badRequest('The passkey could not be added; please try again');
  if (!response || typeof response !== 'object') throw invalid();
  const registration = response as RegistrationResponseJSON;
  const challenge = challengeOf(registration);
  if (!(await consumeChallenge(deps.db, registerBinding(actor), challenge))) throw invalid();
  let verified;
  try {
    verified = await verifyRegistrationResponse({
      response: registration,
      expectedChallenge: challenge!,
      expectedOrigin: deps.rp.origin,
      expectedRPID: deps.rp.id,
      requireUserVerification: true,
    });
  } catch {
    throw invalid();
  }
  if (!verified.verified) throw invalid();
  return verified.registrationInfo.credential;
}

export function createPasskeySettings(deps: PasskeySettingsDeps) {
  const { db, rp, check } = deps;
  return {
    /**
     * Options for navigator.credentials.create(): a discoverable credential, user verification
     * required; the challenge serves only this session's addPasskey().
     */
    async passkeyRegistrationOptions(actor: Actor, proof: SecondFactorProof, ip: string) {
      const { userId } = actor;
      const row = await twoFactorAccount(db, userId);
      if (await isTwoFactorOn(db, userId)) await check(stepUpOf(actor), proof, ip);
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
      await newChallenge(db, registerBinding(actor), options.challenge);
      return options;
    },

    /** Stores a new passkey; the first second factor of an account also brings recovery codes. */
    async addPasskey(actor: Actor, name: string, response: unknown): Promise<{ recovery_codes: string[] | null }> {
      const { userId } = actor;
      const label = name.trim();
      if (!label) throw Errors.badRequest('Please name the passkey');
      if (label.length > 64) throw Errors.badRequest('Passkey name too long (max 64 characters)');
      const credential = await registeredCredential(deps, actor, response);
      const wasOn = await isTwoFactorOn(db, userId);
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
      return { recovery_codes: !wasOn || left === 0 ? await replaceRecoveryCodes(deps, userId) : null };
    },

    async removePasskey(actor: Actor, passkeyId: string, proof: SecondFactorProof, ip: string): Promise<void> {
      const { userId } = actor;
      if (!/^[0-9a-f-]{36}$/i.test(passkeyId)) throw Errors.notFound('No such passkey');
      const found = await repo.findOwnPasskey(db, userId, passkeyId);
      if (!found) throw Errors.notFound('No such passkey');
      await check(stepUpOf(actor), proof, ip);
      await repo.deletePasskey(db, userId, passkeyId);
      if (!(await isTwoFactorOn(db, userId))) await repo.deleteRecoveryCodes(db, userId);
    },
  };
}
