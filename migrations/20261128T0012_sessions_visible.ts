import { sql, type Kysely } from 'kysely';

// Frozen: never edit after it lands; add a new migration instead.
// Sessions a person can see (the Profile's "Sessions" card): each session keeps the
// address it signed in from and its user agent, shown to the account's owner only. Both are
// erased when the session ends (see server/src/auth/README.md, "Retention").
// The sign-in history: the account's last sign-ins and failed attempts (time, address,
// device, method, success); only the newest 20 per account are kept.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('sessions').addColumn('ip', 'text').addColumn('user_agent', 'text').execute();
  await db.schema
    .createTable('sign_in_history')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('user_id', 'uuid', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('ip', 'text', (c) => c.notNull())
    .addColumn('user_agent', 'text')
    .addColumn('method', 'text', (c) => c.notNull().check(sql`method IN ('password', 'code', 'recovery code', 'passkey')`))
    .addColumn('success', 'boolean', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('sign_in_history_user_idx').on('sign_in_history').columns(['user_id', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('sign_in_history').execute();
  await db.schema.alterTable('sessions').dropColumn('ip').dropColumn('user_agent').execute();
}
