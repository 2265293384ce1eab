import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema';

/** The database answers a trivial query (false rather than a throw). */
export async function databaseAnswers(db: Kysely<Database>): Promise<boolean> {
  return sql`select 1`.execute(db).then(
    () => true,
    () => false,
  );
}
