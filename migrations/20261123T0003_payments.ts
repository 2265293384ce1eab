import { sql, type Kysely } from 'kysely';
import { DEFAULT_PRICE_CENTS } from '../server/src/common/catalogue';

// Frozen: never edit after it lands; add a new migration instead.
// Buying access (docs/payments.md): the catalogue, payments and the events of
// their providers, subscriptions, the user's invoices, event codes.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('products')
    .addColumn('sku', 'text', (c) => c.primaryKey())
    .addColumn('price_cents', 'integer', (c) => c.notNull().check(sql`price_cents > 0`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  // The catalogue's default prices, written once in common/catalogue.ts: the same rows this
  // migration has always seeded, so no database, applied or new, differs. A later change of
  // a default price or a new SKU comes with a migration of its own that upserts it into
  // existing databases, so a new one, seeded here from the changed table, ends the same.
  const rows = Object.entries(DEFAULT_PRICE_CENTS).map(([sku, price_cents]) => ({ sku, price_cents }));
  await db.insertInto('products').values(rows).execute();

  // Enterprise bought for a period (the is_enterprise flag stays for accounts granted by operators).
  await db.schema.alterTable('users').addColumn('enterprise_until', 'timestamptz').execute();

  // Every payment, card or crypto, from checkout to paid or refunded. Kept whatever the
  // user's invoice settings: renewals and refunds need it.
  await db.schema
    .createTable('payments')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('user_id', 'uuid', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('sku', 'text', (c) => c.notNull().references('products.sku'))
    .addColumn('quantity', 'integer', (c) => c.notNull().check(sql`quantity > 0`))
    .addColumn('amount_cents', 'integer', (c) => c.notNull().check(sql`amount_cents >= 0`))
    .addColumn('method', 'text', (c) => c.notNull().check(sql`method in ('card', 'crypto')`))
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('provider_ref', 'text')
    .addColumn('provider_subscription_id', 'text')
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('pending').check(sql`status in ('pending', 'paid', 'refunded', 'expired')`))
    .addColumn('details', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('last_event_at', 'timestamptz')
    .addColumn('expires_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('paid_at', 'timestamptz')
    .addColumn('refunded_at', 'timestamptz')
    .execute();
  await sql`CREATE UNIQUE INDEX payments_provider_ref_key ON payments (provider, provider_ref) WHERE provider_ref IS NOT NULL`.execute(db);
  await db.schema.createIndex('payments_user_idx').on('payments').columns(['user_id', 'created_at']).execute();

  // Every provider event as received (after its signature was checked), once per provider and id.
  await db.schema
    .createTable('payment_events')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('event_type', 'text', (c) => c.notNull())
    .addColumn('occurred_at', 'timestamptz', (c) => c.notNull())
    .addColumn('payload', 'jsonb', (c) => c.notNull())
    .addColumn('received_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('processed_at', 'timestamptz')
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_error', 'text')
    .addUniqueConstraint('payment_events_provider_event_key', ['provider', 'event_id'])
    .execute();

  // Plans: search and enterprise one row per user; domain monitoring a row per purchase.
  await db.schema
    .createTable('subscriptions')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('user_id', 'uuid', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('plan', 'text', (c) => c.notNull().check(sql`plan in ('search', 'domain', 'enterprise')`))
    .addColumn('billing_interval', 'text', (c) => c.notNull().check(sql`billing_interval in ('weekly', 'monthly', 'yearly')`))
    .addColumn('recurring', 'boolean', (c) => c.notNull())
    .addColumn('quantity', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('period_end', 'timestamptz', (c) => c.notNull())
    .addColumn('provider', 'text')
    .addColumn('provider_subscription_id', 'text')
    .addColumn('cancel_requested_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await sql`CREATE UNIQUE INDEX subscriptions_user_plan_key ON subscriptions (user_id, plan) WHERE plan IN ('search', 'enterprise')`.execute(db);
  await sql`CREATE UNIQUE INDEX subscriptions_provider_key ON subscriptions (provider, provider_subscription_id) WHERE provider_subscription_id IS NOT NULL`.execute(db);

  // The monitored-domain slots a domain subscription bought ('Not set' until the user names one).
  await db.schema
    .createTable('subscription_domains')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('subscription_id', 'uuid', (c) => c.notNull().references('subscriptions.id').onDelete('cascade'))
    .addColumn('user_id', 'uuid', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('domain', 'text')
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex('subscription_domains_user_idx').on('subscription_domains').column('user_id').execute();

  // The user's payment history: written only with store_invoices on; clearing deletes these rows.
  await db.schema
    .createTable('invoices')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'uuid', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('payment_id', 'uuid', (c) => c.references('payments.id').onDelete('set null'))
    .addColumn('item_type', 'text', (c) => c.notNull())
    .addColumn('quantity', 'integer', (c) => c.notNull())
    .addColumn('amount_cents', 'integer', (c) => c.notNull())
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('extra_info', 'jsonb')
    .addColumn('created', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex('invoices_user_idx').on('invoices').columns(['user_id', 'created']).execute();

  await db.schema
    .createTable('event_codes')
    .addColumn('code', 'text', (c) => c.primaryKey())
    .addColumn('grants', 'jsonb', (c) => c.notNull())
    .addColumn('max_uses', 'integer', (c) => c.notNull().defaultTo(1).check(sql`max_uses > 0`))
    .addColumn('uses', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('expires_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addCheckConstraint('event_codes_uses_check', sql`uses <= max_uses`)
    .execute();
  await db.schema
    .createTable('event_code_redemptions')
    .addColumn('code', 'text', (c) => c.notNull().references('event_codes.code').onDelete('cascade'))
    .addColumn('user_id', 'uuid', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('redeemed_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('event_code_redemptions_pkey', ['code', 'user_id'])
    .execute();

  // A grant's source (payment, event code) is written once per credit kind: never applied twice.
  await sql`CREATE UNIQUE INDEX credit_ledger_source_key ON credit_ledger (kind, reference) WHERE reference IS NOT NULL`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP INDEX IF EXISTS credit_ledger_source_key`.execute(db);
  for (const table of ['event_code_redemptions', 'event_codes', 'invoices', 'subscription_domains', 'subscriptions', 'payment_events', 'payments']) {
    await db.schema.dropTable(table).ifExists().execute();
  }
  await db.schema.alterTable('users').dropColumn('enterprise_until').execute();
  await db.schema.dropTable('products').ifExists().execute();
}
