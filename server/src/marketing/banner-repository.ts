import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema';

export interface BannerRow {
  id: string;
  markup: string;
}

/** The current banner: the one not cleared (a unique index keeps it to one). */
export async function findCurrentBanner(db: Kysely<Database>): Promise<BannerRow | undefined> {
  return db.selectFrom('marketing_banners').select(['id', 'markup']).where('cleared_at', 'is', null).executeTakeFirst();
}

/** Clears the current banner, if any; true when there was one. */
export async function clearCurrentBanner(db: Kysely<Database>): Promise<boolean> {
  const result = await db.updateTable('marketing_banners').set({ cleared_at: sql`now()` }).where('cleared_at', 'is', null).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * Replaces the current banner with a new one (a new id, so earlier dismissals do not hide it).
 * In one transaction: the caller's when given one (the operator CLI's, with its audit entry).
 */
export async function replaceBanner(db: Kysely<Database>, markup: string): Promise<string> {
  const replace = async (trx: Kysely<Database>) => {
    await clearCurrentBanner(trx);
    const row = await trx.insertInto('marketing_banners').values({ markup }).returning('id').executeTakeFirstOrThrow();
    return row.id;
  };
  return db.isTransaction ? replace(db) : db.transaction().execute(replace);
}
