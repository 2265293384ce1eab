import { sql, type Kysely } from 'kysely';

// Frozen: never edit after it lands; add a new migration instead.
export async function up(db: Kysely<any>): Promise<void> {
  // Every change of a credit balance leaves a row, written in the same transaction.
  await db.schema
    .createTable('credit_ledger')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('user_id', 'uuid', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('search', 'whois')`))
    .addColumn('delta', 'integer', (c) => c.notNull())
    .addColumn('balance_after', 'integer', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('reference', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex('credit_ledger_user_idx').on('credit_ledger').columns(['user_id', 'created_at']).execute();

  // Abuse limiting: too many searches lock search for a while; repeated locks bar the
  // account from paid features (free monitoring stays).
  await db.schema
    .alterTable('users')
    .addColumn('search_locked_until', 'timestamptz')
    .addColumn('search_lock_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('search_barred', 'boolean', (c) => c.notNull().defaultTo(false))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('users').dropColumn('search_locked_until').dropColumn('search_lock_count').dropColumn('search_barred').execute();
  await db.schema.dropTable('credit_ledger').ifExists().execute();
}
