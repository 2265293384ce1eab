import { sql, type Kysely } from 'kysely';

// Frozen: never edit after it lands; add a new migration instead.
// The marketing banner: every banner ever set, the current one being the
// newest not cleared. Rows are never changed except to clear them, so an id names one text.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('marketing_banners')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('markup', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('cleared_at', 'timestamptz')
    .execute();
  // At most one current banner, and finding it is an index lookup.
  await sql`create unique index marketing_banners_one_current on marketing_banners ((true)) where cleared_at is null`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('marketing_banners').execute();
}
