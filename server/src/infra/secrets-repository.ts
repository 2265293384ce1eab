import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';

type Db = Kysely<Database>;

/** Stores a generated secret unless one of that name exists (the first writer wins); returns the stored one. */
export async function storeSecretOnce(db: Db, name: string, value: string): Promise<string> {
  await db.insertInto('app_secrets').values({ name, value }).onConflict((oc) => oc.column('name').doNothing()).execute();
  const row = await db.selectFrom('app_secrets').select('value').where('name', '=', name).executeTakeFirstOrThrow();
  return row.value;
}
