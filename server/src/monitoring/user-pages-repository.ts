/** A page of one user's rows, newest first: the inbox and the reports list read their pages so. */
import { sql, type Kysely, type SelectQueryBuilder, type Transaction } from 'kysely';
import type { Database } from '../db/schema';

type Db = Kysely<Database> | Transaction<Database>;

/** The tables read a page at a time by their owner (`user_id`), newest (`created`, then `id`) first. */
export type UserPagedTable = 'notifications' | 'monitor_reports';

/** The user's rows of `table` (the columns `columns` selects), newest first, ties by id; with the user's whole count. */
export async function newestFirstPage<T extends UserPagedTable, O>(
  db: Db,
  table: T,
  userId: string,
  columns: (query: SelectQueryBuilder<Database, T, object>) => SelectQueryBuilder<Database, T, O>,
  page: { limit: number; offset: number },
): Promise<{ rows: O[]; total: number }> {
  const owned = sql<boolean>`user_id = ${userId}`;
  const [rows, count] = await Promise.all([
    columns(db.selectFrom(table) as SelectQueryBuilder<Database, T, object>)
      .where(owned)
      .orderBy('created', 'desc')
      .orderBy('id', 'desc')
      .limit(page.limit)
      .offset(page.offset)
      .execute(),
    db
      .selectFrom(table as UserPagedTable)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where(owned)
      .executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.n) };
}
