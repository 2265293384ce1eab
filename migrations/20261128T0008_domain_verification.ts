import { sql, type Kysely } from 'kysely';

// Frozen: never edit after it lands; add a new migration instead.
// Domain verification (docs/monitoring.md "Domain verification"): a domain
// task shows record values only once its owner proved control of the domain. One row per
// account and domain: the token the owner publishes (DNS TXT or the .well-known file), how
// and when the domain was last verified, and the pending role-address mail (its link's
// token stored hashed, single use, expiring).
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('domain_verifications')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('user_id', 'uuid', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('domain', 'text', (c) => c.notNull())
    .addColumn('token', 'text', (c) => c.notNull())
    .addColumn('method', 'text', (c) => c.check(sql`method in ('dns', 'file', 'email', 'operator')`))
    .addColumn('verified_at', 'timestamptz')
    .addColumn('checked_at', 'timestamptz')
    .addColumn('mail_address', 'text')
    .addColumn('mail_token_hash', 'text', (c) => c.unique())
    .addColumn('mail_expires_at', 'timestamptz')
    .addColumn('created', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint('domain_verifications_user_domain', ['user_id', 'domain'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('domain_verifications').ifExists().execute();
}
