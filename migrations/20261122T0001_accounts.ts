import { sql, type Kysely } from 'kysely';

// Frozen: never edit after it lands; add a new migration instead.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('app_secrets')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  await db.schema
    .createTable('users')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('email_verified_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('closed_at', 'timestamptz')
    .addColumn('search_subscribed_until', 'timestamptz')
    .addColumn('search_is_recurring', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('search_credits', 'integer', (c) => c.notNull().defaultTo(0).check(sql`search_credits >= 0`))
    .addColumn('whois_credits', 'integer', (c) => c.notNull().defaultTo(0).check(sql`whois_credits >= 0`))
    .addColumn('is_enterprise', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('elevated', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('law_enforcement', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('api_key_hash', 'text')
    .addColumn('api_key_hint', 'text')
    .addColumn('api_key_created_at', 'timestamptz')
    .addColumn('notify_search_expiration', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('notify_monitoring_expiration', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('notify_enterprise_expiration', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('notify_low_search_credits', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('notify_low_whois_credits', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('store_invoices', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('store_extra_invoice_data', 'boolean', (c) => c.notNull().defaultTo(false))
    .execute();
  // One open account per address; a closed account frees its address.
  await sql`CREATE UNIQUE INDEX users_email_open_key ON users (lower(email)) WHERE closed_at IS NULL`.execute(db);
  await sql`CREATE UNIQUE INDEX users_api_key_hash_key ON users (api_key_hash) WHERE api_key_hash IS NOT NULL`.execute(db);

  // Single-use links (verification, reset, closure, entry removal). Only hashes are stored.
  await db.schema
    .createTable('one_time_tokens')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('purpose', 'text', (c) => c.notNull())
    .addColumn('user_id', 'uuid', (c) => c.references('users.id').onDelete('cascade'))
    .addColumn('payload', 'jsonb')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('used_at', 'timestamptz')
    .execute();
  await db.schema.createIndex('one_time_tokens_user_idx').on('one_time_tokens').columns(['user_id', 'purpose']).execute();

  // A session is a refresh-token family; every rotation adds a token row.
  await db.schema
    .createTable('sessions')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('user_id', 'uuid', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('remember', 'boolean', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('last_used_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('revoked_at', 'timestamptz')
    .addColumn('revoked_reason', 'text')
    .execute();
  await db.schema.createIndex('sessions_user_idx').on('sessions').column('user_id').execute();

  await db.schema
    .createTable('refresh_tokens')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('session_id', 'uuid', (c) => c.notNull().references('sessions.id').onDelete('cascade'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('used_at', 'timestamptz')
    .execute();
  await db.schema.createIndex('refresh_tokens_session_idx').on('refresh_tokens').column('session_id').execute();

  // Addresses (HMAC-hashed) from which an account has signed in: they keep working while
  // the account is throttled by failures from elsewhere.
  await db.schema
    .createTable('login_known_ips')
    .addColumn('user_id', 'uuid', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('ip_hash', 'text', (c) => c.notNull())
    .addColumn('last_seen_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('login_known_ips_pk', ['user_id', 'ip_hash'])
    .execute();

  await db.schema
    .createTable('outbox')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('to_address', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('text_body', 'text', (c) => c.notNull())
    .addColumn('html_body', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('sent_at', 'timestamptz')
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_error', 'text')
    .execute();

  await db.schema
    .createTable('notifications')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('user_id', 'uuid', (c) => c.references('users.id').onDelete('cascade'))
    .addColumn('global', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('seen', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn('created', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex('notifications_user_idx').on('notifications').columns(['user_id', 'seen']).execute();

  // Only the number of searches per user per day is kept, never the query (product promise).
  await db.schema
    .createTable('search_counts')
    .addColumn('user_id', 'uuid', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('day', 'date', (c) => c.notNull())
    .addColumn('searches', 'integer', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('search_counts_pk', ['user_id', 'day'])
    .execute();

  // The catalogue of breach sources, filled by the ingest CLI.
  await db.schema
    .createTable('data_wells')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull().unique())
    .addColumn('image', 'text')
    .addColumn('date', 'date')
    .addColumn('records', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('data_types', sql`text[]`, (c) => c.notNull().defaultTo(sql`'{}'`))
    .addColumn('is_sensitive', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('segment_ids', sql`text[]`, (c) => c.notNull().defaultTo(sql`'{}'`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of [
    'data_wells',
    'search_counts',
    'notifications',
    'outbox',
    'login_known_ips',
    'refresh_tokens',
    'sessions',
    'one_time_tokens',
    'users',
    'app_secrets',
  ]) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
