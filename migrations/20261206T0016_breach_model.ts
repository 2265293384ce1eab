import { sql, type Kysely } from 'kysely';

// Frozen: never edit after it lands; add a new migration instead.
// The breach model of Breach API v3 (server/src/datawells/breach-model-service.ts): the
// fields the catalogue lacked. `breach_name` is the model's `Name`, a stable identifier without spaces,
// unique case-insensitively (breach/{name} is looked up in any case); `domain` the breached
// site's domain ('' when none); the flags. Existing wells get their Name from their name
// here, by the rule new wells follow (datawells-repository.ts, breachNameBase): the
// PascalCase of its ASCII letters and digits, "Breach" when it has none, made unique with a
// number (Name, Name2, Name3...), oldest well first.

function pascalCase(name: string): string {
  const words = name.split(/[^A-Za-z0-9]+/).filter(Boolean);
  const joined = words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join('');
  return joined.slice(0, 64) || 'Breach';
}

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('data_wells')
    .addColumn('breach_name', 'text')
    .addColumn('domain', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('is_verified', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('is_fabricated', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('is_retired', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('is_spam_list', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('is_malware', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('is_subscription_free', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('is_stealer_log', 'boolean', (c) => c.notNull().defaultTo(false))
    .execute();
  const rows = await db.selectFrom('data_wells').select(['id', 'name']).orderBy('created_at').orderBy('id').execute();
  const taken = new Set<string>();
  for (const row of rows as { id: string; name: string }[]) {
    const base = pascalCase(row.name);
    let name = base;
    for (let n = 2; taken.has(name.toLowerCase()); n++) name = `${base}${n}`;
    taken.add(name.toLowerCase());
    await db.updateTable('data_wells').set({ breach_name: name }).where('id', '=', row.id).execute();
  }
  await db.schema.alterTable('data_wells').alterColumn('breach_name', (c) => c.setNotNull()).execute();
  await sql`create unique index data_wells_breach_name_key on data_wells (lower(breach_name))`.execute(db);
  await sql`create index data_wells_domain_idx on data_wells (lower(domain)) where domain <> ''`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('data_wells')
    .dropColumn('breach_name')
    .dropColumn('domain')
    .dropColumn('is_verified')
    .dropColumn('is_fabricated')
    .dropColumn('is_retired')
    .dropColumn('is_spam_list')
    .dropColumn('is_malware')
    .dropColumn('is_subscription_free')
    .dropColumn('is_stealer_log')
    .execute();
}
