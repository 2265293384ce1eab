import { sql, type Kysely } from 'kysely';

// Frozen: never edit after it lands; add a new migration instead.
// Two-factor sign-in: a TOTP secret per account (encrypted, with the last accepted time step
// so a code is accepted once), single-use recovery codes (hashed) and WebAuthn passkeys.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('users')
    // AES-256-GCM ciphertext of the base32 secret; the pending one awaits its first code.
    .addColumn('totp_secret_enc', 'text')
    .addColumn('totp_pending_secret_enc', 'text')
    .addColumn('totp_enabled_at', 'timestamptz')
    // The last accepted 30-second step: a code of this step or an earlier one is refused.
    .addColumn('totp_last_step', 'bigint')
    .execute();
  await db.schema
    .createTable('recovery_codes')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('user_id', 'uuid', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('code_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('used_at', 'timestamptz')
    .execute();
  await db.schema.createIndex('recovery_codes_user_idx').on('recovery_codes').columns(['user_id', 'code_hash']).execute();
  await db.schema
    .createTable('passkeys')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('user_id', 'uuid', (c) => c.notNull().references('users.id').onDelete('cascade'))
    // base64url credential id, unique across accounts (a discoverable sign-in finds its account by it).
    .addColumn('credential_id', 'text', (c) => c.notNull().unique())
    .addColumn('public_key', 'bytea', (c) => c.notNull())
    .addColumn('counter', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('transports', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('last_used_at', 'timestamptz')
    .execute();
  await db.schema.createIndex('passkeys_user_idx').on('passkeys').column('user_id').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('passkeys').execute();
  await db.schema.dropTable('recovery_codes').execute();
  await db.schema
    .alterTable('users')
    .dropColumn('totp_secret_enc')
    .dropColumn('totp_pending_secret_enc')
    .dropColumn('totp_enabled_at')
    .dropColumn('totp_last_step')
    .execute();
}
