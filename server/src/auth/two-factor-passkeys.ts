/**
 * Passkey assertions (WebAuthn, @simplewebauthn/server): the relying party, the challenges
 * and the check of an assertion. A challenge is bound to its purpose (passkey sign-in, a
 * pending sign-in's second step, a session's step-up, a session's new passkey) and to that
 * pending sign-in or session: presented anywhere else, it is refused as a wrong passkey.
 */
import type { Kysely } from 'kysely';
import { generateAuthenticationOptions, verifyAuthenticationResponse, type AuthenticationResponseJSON } from '@simplewebauthn/server';
import type { Database } from '../db/schema';
import type { Config } from '../config';
import { hashToken } from '../infra/secrets';
import * as repo from './two-factor-repository';
import { TwoFactorErrors, type PasskeyStep } from './two-factor-types';

const CHALLENGE_TTL_MS = 5 * 60_000;

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

interface PasskeyDeps {
  db: Kysely<Database>;
  rp: RelyingParty;
}

function bindingOf(step: PasskeyStep): repo.ChallengeBinding {
  if (step.purpose === 'sign-in') return { purpose: 'webauthn-sign-in', userId: null, boundTo: null };
  if (step.purpose === 'second-factor') return { purpose: 'webauthn-second-factor', userId: step.userId, boundTo: step.pendingTokenHash };
  return { purpose: 'webauthn-step-up', userId: step.userId, boundTo: step.sessionId };
}

/** The account a WebAuthn user handle names (we register the account id's UTF-8 bytes); null when unreadable. */
function userHandleAccount(handle: unknown): string | null {
  if (typeof handle !== 'string' || handle.length > 1024) return null;
  return Buffer.from(handle, 'base64url').toString('utf8');
}

/** The challenge a WebAuthn response signed (from its client data); null when unreadable. */
export function challengeOf(response: { response?: { clientDataJSON?: unknown } }): string | null {
  try {
    const raw = response.response?.clientDataJSON;
    if (typeof raw !== 'string' || raw.length > 4096) return null;
    const data = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as { challenge?: unknown };
    return typeof data.challenge === 'string' && data.challenge.length <= 200 ? data.challenge : null;
  } catch {
    return null;
  }
}

/** Stores a challenge by its hash (like the mailed links), bound to where it may be used, 5 minutes, used up once. */
export async function newChallenge(db: Kysely<Database>, binding: repo.ChallengeBinding, challenge: string): Promise<void> {
  await repo.insertChallenge(db, hashToken(challenge), binding, new Date(Date.now() + CHALLENGE_TTL_MS));
}

/** Uses up the challenge a WebAuthn response signed, when it was issued for exactly this binding. */
export async function consumeChallenge(db: Kysely<Database>, binding: repo.ChallengeBinding, challenge: string | null): Promise<boolean> {
  if (!challenge) return false;
  return repo.consumeChallenge(db, hashToken(challenge), binding);
}

/**
 * Options for navigator.credentials.get(), their challenge bound to `step`. A passkey
 * sign-in: any discoverable credential (no allowCredentials). A pending sign-in's second
 * step or a session's step-up: that account's passkeys.
 */
export async function passkeyOptions(deps: PasskeyDeps, step: PasskeyStep) {
  const allow = step.purpose === 'sign-in' ? [] : await repo.listCredentials(deps.db, step.userId);
  const options = await generateAuthenticationOptions({
    rpID: deps.rp.id,
    userVerification: 'required',
    ...(step.purpose === 'sign-in' ? {} : { allowCredentials: allow.map((c) => ({ id: c.credential_id, transports: c.transports })) }),
  });
  await newChallenge(deps.db, bindingOf(step), options.challenge);
  return options;
}

/**
 * The stored passkey an assertion names, when its challenge was issued for this very step
 * (used up here) and, for a second factor, the passkey is the step's account's; a user
 * handle, when the authenticator gives one (always for a passkey sign-in), must name the
 * passkey's account.
 */
async function assertedPasskey(db: Kysely<Database>, assertion: AuthenticationResponseJSON, challenge: string | null, step: PasskeyStep) {
  const invalid = TwoFactorErrors.invalidPasskey;
  if (!(await consumeChallenge(db, bindingOf(step), challenge))) throw invalid();
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
  return stored;
}

/**
 * Verifies a passkey assertion against a challenge passkeyOptions() issued for this very
 * step (purpose, account, pending sign-in or session). Returns the account it signed in.
 */
export async function verifyPasskey(deps: PasskeyDeps, response: unknown, step: PasskeyStep): Promise<string> {
  const invalid = TwoFactorErrors.invalidPasskey;
  if (!response || typeof response !== 'object') throw invalid();
  const assertion = response as AuthenticationResponseJSON;
  const challenge = challengeOf(assertion);
  const stored = await assertedPasskey(deps.db, assertion, challenge, step);
  let verified;
  try {
    verified = await verifyAuthenticationResponse({
      response: assertion,
      expectedChallenge: challenge!,
      expectedOrigin: deps.rp.origin,
      expectedRPID: deps.rp.id,
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
  await repo.notePasskeyUse(deps.db, stored.id, verified.authenticationInfo.newCounter);
  return stored.user_id;
}
