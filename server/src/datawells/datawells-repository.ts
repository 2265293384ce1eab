import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema';

export interface DataWellUpsert {
  name: string;
  /** YYYY-MM-DD, or null when unknown. */
  date: string | null;
  description: string;
  /** Records added by this ingest. */
  recordCount: number;
  /** Field names that had values in this ingest (the exposed data types). */
  dataTypes: string[];
  isSensitive: boolean;
  segmentId: string;
}

/**
 * Adds an ingest to the catalogue. A second ingest into the same well adds its count and
 * data types; re-publishing the same segment id is a no-op (a rerun after a crash).
 */
export async function upsertDataWell(db: Kysely<Database>, well: DataWellUpsert): Promise<void> {
  const types = [...new Set(well.dataTypes)].sort();
  await db
    .insertInto('data_wells')
    .values({
      name: well.name,
      date: well.date,
      description: well.description,
      records: well.recordCount,
      data_types: types,
      is_sensitive: well.isSensitive,
      segment_ids: [well.segmentId],
    })
    .onConflict((oc) =>
      oc.column('name').doUpdateSet({
        date: sql`coalesce(excluded.date, data_wells.date)`,
        description: sql`case when excluded.description <> '' then excluded.description else data_wells.description end`,
        records: sql`data_wells.records + case when ${well.segmentId} = any(data_wells.segment_ids) then 0 else excluded.records end`,
        data_types: sql`array(select distinct unnest(data_wells.data_types || excluded.data_types) order by 1)`,
        is_sensitive: sql`data_wells.is_sensitive or excluded.is_sensitive`,
        segment_ids: sql`case when ${well.segmentId} = any(data_wells.segment_ids) then data_wells.segment_ids else data_wells.segment_ids || excluded.segment_ids end`,
        updated_at: sql`now()`,
      }),
    )
    .execute();
}
