/**
 * The SQL of two-factor authentication (two-factor.ts and its parts hold the rules: secrets
 * encrypted, codes accepted once, step-up, limits): the account's TOTP columns, its recovery
 * codes (HMACs), its passkeys and the WebAuthn challenges (one_time_tokens rows bound to
 * their purpose, account and pending sign-in or session).
 */
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from '../db/schema';

type Db = Kysely<Database> | Transaction<Database>;

/** The open account's two-factor columns; undefined for a closed or unknown account. */
export async function findAccount(db: Db, userId: string) {
  return db
    .selectFrom('users')
    .select(['id', 'email', 'totp_secret_enc', 'totp_pending_secret_enc', 'totp_enabled_at', 'totp_last_step'])
    .where('id', '=', userId)
    .where('closed_at', 'is', null)
    .executeTakeFirst();
}

/** Stores a secret awaiting its first code (encrypted by the caller). */
export async function setPendingTotp(db: Db, userId: string, secretEnc: string): Promise<void> {
  await db.updateTable('users').set({ totp_pending_secret_enc: secretEnc }).where('id', '=', userId).execute();
}

/** TOTP on: the pending secret becomes the secret, its first code's step the last one used. */
export async function enableTotp(db: Db, userId: string, secretEnc: string, step: number): Promise<void> {
  await db
    .updateTable('users')
    .set({ totp_secret_enc: secretEnc, totp_pending_secret_enc: null, totp_enabled_at: sql`now()`, totp_last_step: step })
    .where('id', '=', userId)
    .execute();
}

/** TOTP off: secret, pending secret, when it was turned on and the last step, all cleared. */
export async function clearTotp(db: Db, userId: string): Promise<void> {
  await db
    .updateTable('users')
    .set({ totp_secret_enc: null, totp_pending_secret_enc: null, totp_enabled_at: null, totp_last_step: null })
    .where('id', '=', userId)
    .execute();
}

/** Moves the last used step forward to `step`; false when it is not ahead (a replay or a race). */
export async function advanceTotpStep(db: Db, userId: string, step: number): Promise<boolean> {
  const moved = await db
    .updateTable('users')
    .set({ totp_last_step: step })
    .where('id', '=', userId)
    .where((eb) => eb.or([eb('totp_last_step', 'is', null), eb('totp_last_step', '<', step)]))
    .executeTakeFirst();
  return Number(moved.numUpdatedRows) === 1;
}

/** The account's recovery codes replaced by these HMACs, in one transaction. */
export async function replaceRecoveryCodes(db: Kysely<Database>, userId: string, hashes: string[]): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom('recovery_codes').where('user_id', '=', userId).execute();
    await trx
      .insertInto('recovery_codes')
      .values(hashes.map((code_hash) => ({ user_id: userId, code_hash })))
      .execute();
  });
}

/** Uses up the unused recovery code with this HMAC; false when there is none. */
export async function useRecoveryCode(db: Db, userId: string, codeHash: string): Promise<boolean> {
  const used = await db
    .updateTable('recovery_codes')
    .set({ used_at: sql`now()` })
    .where('user_id', '=', userId)
    .where('code_hash', '=', codeHash)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return Number(used.numUpdatedRows) === 1;
}

export async function countUnusedRecoveryCodes(db: Db, userId: string): Promise<number> {
  const left = await db
    .selectFrom('recovery_codes')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('user_id', '=', userId)
    .where('used_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(left.n);
}

/** Deletes the account's recovery codes; how many. */
export async function deleteRecoveryCodes(db: Db, userId: string): Promise<number> {
  const codes = await db.deleteFrom('recovery_codes').where('user_id', '=', userId).executeTakeFirst();
  return Number(codes.numDeletedRows);
}

export async function countPasskeys(db: Db, userId: string): Promise<number> {
  const row = await db.selectFrom('passkeys').select((eb) => eb.fn.countAll<number>().as('n')).where('user_id', '=', userId).executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The account's passkeys as the status lists them, oldest first. */
export async function listPasskeys(db: Db, userId: string) {
  return db.selectFrom('passkeys').select(['id', 'name', 'created_at', 'last_used_at']).where('user_id', '=', userId).orderBy('created_at', 'asc').execute();
}

/** The account's credentials, as WebAuthn options name them. */
export async function listCredentials(db: Db, userId: string) {
  return db.selectFrom('passkeys').select(['credential_id', 'transports']).where('user_id', '=', userId).execute();
}

export async function findPasskeyByCredential(db: Db, credentialId: string) {
  return db.selectFrom('passkeys').selectAll().where('credential_id', '=', credentialId).executeTakeFirst();
}

/** The account's passkey of that id, if it is the account's. */
export async function findOwnPasskey(db: Db, userId: string, passkeyId: string) {
  return db.selectFrom('passkeys').select('id').where('id', '=', passkeyId).where('user_id', '=', userId).executeTakeFirst();
}

/** A passkey used: its new signature counter and when. */
export async function notePasskeyUse(db: Db, passkeyId: string, counter: number): Promise<void> {
  await db.updateTable('passkeys').set({ counter, last_used_at: sql`now()` }).where('id', '=', passkeyId).execute();
}

/** Stores a passkey; false when its credential is registered already. */
export async function insertPasskey(
  db: Db,
  passkey: { userId: string; credentialId: string; publicKey: Buffer; counter: number; transports: unknown[]; name: string },
): Promise<boolean> {
  const inserted = await db
    .insertInto('passkeys')
    .values({
      user_id: passkey.userId,
      credential_id: passkey.credentialId,
      public_key: passkey.publicKey,
      counter: passkey.counter,
      transports: JSON.stringify(passkey.transports),
      name: passkey.name,
    })
    .onConflict((oc) => oc.column('credential_id').doNothing())
    .returning('id')
    .executeTakeFirst();
  return inserted !== undefined;
}

/** Deletes the account's passkey of that id. */
export async function deletePasskey(db: Db, userId: string, passkeyId: string): Promise<void> {
  await db.deleteFrom('passkeys').where('id', '=', passkeyId).where('user_id', '=', userId).execute();
}

/** Deletes every passkey of the account; how many. */
export async function deletePasskeys(db: Db, userId: string): Promise<number> {
  const keys = await db.deleteFrom('passkeys').where('user_id', '=', userId).executeTakeFirst();
  return Number(keys.numDeletedRows);
}

/** Whether the account has TOTP set (operator reset's report). */
export async function hasTotpSecret(db: Db, userId: string): Promise<boolean> {
  const before = await db.selectFrom('users').select('totp_secret_enc').where('id', '=', userId).executeTakeFirstOrThrow();
  return Boolean(before.totp_secret_enc);
}

/** What a WebAuthn challenge was issued for: its `one_time_tokens` purpose. */
export type ChallengePurpose = 'webauthn-sign-in' | 'webauthn-second-factor' | 'webauthn-step-up' | 'webauthn-register';

/** Where a challenge may be used: its purpose, account (null for a passkey sign-in) and what it is bound to. */
export interface ChallengeBinding {
  purpose: ChallengePurpose;
  userId: string | null;
  /** The pending sign-in's token hash or the session id; null for a passkey sign-in. */
  boundTo: string | null;
}

/** Stores a challenge by its hash with where it may be used (`payload.bound_to`). */
export async function insertChallenge(db: Db, challengeHash: string, binding: ChallengeBinding, expiresAt: Date): Promise<void> {
  await db
    .insertInto('one_time_tokens')
    .values({
      token_hash: challengeHash,
      purpose: binding.purpose,
      user_id: binding.userId,
      expires_at: expiresAt,
      payload: binding.boundTo === null ? null : JSON.stringify({ bound_to: binding.boundTo }),
    })
    .execute();
}

/**
 * Uses up a live challenge issued for exactly this purpose, account and pending sign-in or
 * session; false otherwise (a challenge presented elsewhere stays unused, for its own step).
 */
export async function consumeChallenge(db: Db, challengeHash: string, binding: ChallengeBinding): Promise<boolean> {
  const used = await db
    .updateTable('one_time_tokens')
    .set({ used_at: sql`now()` })
    .where('token_hash', '=', challengeHash)
    .where('purpose', '=', binding.purpose)
    .where('used_at', 'is', null)
    .where('expires_at', '>', sql<Date>`now()`)
    .where((eb) => (binding.userId === null ? eb('user_id', 'is', null) : eb('user_id', '=', binding.userId)))
    .where((eb) => (binding.boundTo === null ? eb('payload', 'is', null) : eb(sql<string>`payload->>'bound_to'`, '=', binding.boundTo)))
    .executeTakeFirst();
  return Number(used.numUpdatedRows) === 1;
}
