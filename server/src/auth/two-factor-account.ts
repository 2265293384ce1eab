/**
 * An account's two-factor state: its row, whether two-factor is on (TOTP on, or at least one
 * passkey) and the profile's status of it.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import { Errors } from '../infra/errors';
import * as repo from './two-factor-repository';

/** The open account's two-factor columns; 401 when it is closed or unknown. */
export async function twoFactorAccount(db: Kysely<Database>, userId: string) {
  const row = await repo.findAccount(db, userId);
  if (!row) throw Errors.unauthorized();
  return row;
}

export async function isTwoFactorOn(db: Kysely<Database>, userId: string): Promise<boolean> {
  const row = await twoFactorAccount(db, userId);
  return Boolean(row.totp_secret_enc) || (await repo.countPasskeys(db, userId)) > 0;
}

export async function twoFactorStatus(db: Kysely<Database>, userId: string) {
  const row = await twoFactorAccount(db, userId);
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
}
