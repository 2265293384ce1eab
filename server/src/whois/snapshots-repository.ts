/** The SQL of kept WHOIS records (snapshots.ts shapes them): a record's row, and which row is current per domain. */
import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema';

export interface SnapshotRow {
  domain: string;
  observed_at: Date;
  last_observed_at: Date;
  source: string;
  record: string;
  registrar_name: string | null;
  created_date: Date | null;
  updated_date: Date | null;
  expires_date: Date | null;
  search_text: string;
  content_sha256: Buffer;
}

/** A new row, or, when the same content is already kept, a wider observation window. */
export async function upsertSnapshot(db: Kysely<Database>, row: SnapshotRow): Promise<void> {
  await db
    .insertInto('whois_snapshots')
    .values(row)
    .onConflict((oc) =>
      oc.columns(['domain', 'content_sha256']).doUpdateSet({
        observed_at: sql`least(whois_snapshots.observed_at, excluded.observed_at)`,
        last_observed_at: sql`greatest(whois_snapshots.last_observed_at, excluded.last_observed_at)`,
      }),
    )
    .execute();
}

/**
 * Makes the newest snapshot of each given domain (by last observation) its current one.
 * Two statements, so the unique index on current snapshots never sees two at once.
 */
export async function refreshCurrent(db: Kysely<Database>, domains: readonly string[]): Promise<void> {
  if (domains.length === 0) return;
  const list = sql.join(domains.map((d) => sql`${d}`));
  await sql`
    with newest as (
      select distinct on (domain) domain, id from whois_snapshots
      where domain in (${list}) order by domain, last_observed_at desc, id desc
    )
    update whois_snapshots s set is_current = false
    from newest where s.domain = newest.domain and s.is_current and s.id <> newest.id`.execute(db);
  await sql`
    with newest as (
      select distinct on (domain) domain, id from whois_snapshots
      where domain in (${list}) order by domain, last_observed_at desc, id desc
    )
    update whois_snapshots s set is_current = true
    from newest where s.id = newest.id and not s.is_current`.execute(db);
}
