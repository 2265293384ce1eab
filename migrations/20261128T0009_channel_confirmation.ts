import { sql, type Kysely } from 'kysely';

// Frozen: never edit after it lands; add a new migration instead.
// Email alert channels are confirmed by a mailed link before an alert goes there, so no one
// can send alerts to an address that is not theirs (docs/monitoring.md 'Email channel
// confirmation'). `verified_at` is
// when the current value was confirmed (null: awaiting confirmation; phones and webhooks do
// not use it). The pending link is kept as its SHA-256 only, with its expiry; `confirm_sent_at`
// throttles resends. Existing email channels at their owner's verified sign-in address are
// confirmed; the others wait for a confirmation (mailed at their next alert, or on Resend).
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('notification_channels')
    .addColumn('verified_at', 'timestamptz')
    .addColumn('confirm_token_hash', 'text')
    .addColumn('confirm_expires_at', 'timestamptz')
    .addColumn('confirm_sent_at', 'timestamptz')
    .execute();
  await sql`CREATE UNIQUE INDEX notification_channels_confirm_token_key ON notification_channels (confirm_token_hash) WHERE confirm_token_hash IS NOT NULL`.execute(db);
  await sql`
    UPDATE notification_channels c SET verified_at = now()
    FROM users u
    WHERE u.id = c.user_id AND c.kind = 'email' AND c.value <> '' AND lower(c.value) = lower(u.email) AND u.email_verified_at IS NOT NULL
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP INDEX IF EXISTS notification_channels_confirm_token_key`.execute(db);
  await db.schema
    .alterTable('notification_channels')
    .dropColumn('verified_at')
    .dropColumn('confirm_token_hash')
    .dropColumn('confirm_expires_at')
    .dropColumn('confirm_sent_at')
    .execute();
}
