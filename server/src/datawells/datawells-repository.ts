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
 * data types; re-publishing the same segment id is a no-op (a rerun after a crash, or the
 * replay of every published segment at each ingest).
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
      // A segment already recorded (every ingest replays them all) changes nothing, so an
      // operator's correction (well:update) is not overwritten by the ingest's metadata.
      oc.column('name').doUpdateSet({
        date: sql`case when ${well.segmentId} = any(data_wells.segment_ids) then data_wells.date else coalesce(excluded.date, data_wells.date) end`,
        description: sql`case when ${well.segmentId} <> all(data_wells.segment_ids) and excluded.description <> '' then excluded.description else data_wells.description end`,
        records: sql`data_wells.records + case when ${well.segmentId} = any(data_wells.segment_ids) then 0 else excluded.records end`,
        data_types: sql`array(select distinct unnest(data_wells.data_types || excluded.data_types) order by 1)`,
        is_sensitive: sql`case when ${well.segmentId} = any(data_wells.segment_ids) then data_wells.is_sensitive else data_wells.is_sensitive or excluded.is_sensitive end`,
        segment_ids: sql`case when ${well.segmentId} = any(data_wells.segment_ids) then data_wells.segment_ids else data_wells.segment_ids || excluded.segment_ids end`,
        updated_at: sql`now()`,
      }),
    )
    .execute();
}

/** The catalogue orders a client may ask for (column and direction). */
export type DataWellOrder = { by: 'name' | 'records' | 'date' | 'added'; direction: 'asc' | 'desc' };

/** A catalogue row as the service needs it: no ids, segment ids or timestamps. */
export interface DataWellRow {
  name: string;
  image: string | null;
  /** YYYY-MM-DD, formatted by PostgreSQL so no time zone can shift the day. */
  date: string | null;
  records: number;
  description: string;
  data_types: string[];
  is_sensitive: boolean;
}

function selectCatalogue(db: Kysely<Database>) {
  return db
    .selectFrom('data_wells')
    .select([
      'name',
      'image',
      sql<string | null>`to_char(date, 'YYYY-MM-DD')`.as('date'),
      sql<number>`records`.as('records'),
      'description',
      'data_types',
      'is_sensitive',
    ]);
}

/** One page of the catalogue. Ties (and unknown dates, always last) fall back to the name. */
export async function listDataWells(
  db: Kysely<Database>,
  page: { order: DataWellOrder; limit: number; offset: number },
): Promise<DataWellRow[]> {
  const { by, direction } = page.order;
  const column = { name: sql`lower(data_wells.name)`, records: sql`data_wells.records`, date: sql`data_wells.date`, added: sql`data_wells.created_at` }[by];
  return selectCatalogue(db)
    .orderBy(column, (ob) => (direction === 'asc' ? ob.asc() : ob.desc()).nullsLast())
    .orderBy('data_wells.name')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
}

export async function countDataWells(db: Kysely<Database>): Promise<number> {
  const row = await db.selectFrom('data_wells').select(sql<string>`count(*)`.as('total')).executeTakeFirstOrThrow();
  return Number(row.total);
}

/** `%`, `_` and the escape character itself match literally in a LIKE pattern. */
export function escapeLikePattern(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/**
 * Wells whose name or description contains `text`, case-insensitively; name matches
 * first, then the largest wells.
 */
export async function searchDataWells(db: Kysely<Database>, text: string, limit: number): Promise<DataWellRow[]> {
  const pattern = `%${escapeLikePattern(text)}%`;
  const nameMatches = sql<boolean>`name ilike ${pattern} escape '\\'`;
  return selectCatalogue(db)
    .where((eb) => eb.or([nameMatches, sql<boolean>`description ilike ${pattern} escape '\\'`]))
    .orderBy(nameMatches, 'desc')
    .orderBy('records', 'desc')
    .orderBy('name')
    .limit(limit)
    .execute();
}

/** A catalogue row as the operator commands list it (well:list). */
export interface OperatorWellRow {
  name: string;
  records: number;
  date: string | null;
  description: string;
  sensitive: boolean;
  /** When the well was first ingested, ISO 8601. */
  ingested_at: string;
  segment_ids: string[];
}

/** Every well, by name case-insensitively. */
export async function listWellsForOperators(db: Kysely<Database>): Promise<OperatorWellRow[]> {
  const rows = await db
    .selectFrom('data_wells')
    .select([
      'name',
      sql<string>`records`.as('records'),
      sql<string | null>`to_char(date, 'YYYY-MM-DD')`.as('date'),
      'description',
      'is_sensitive',
      'created_at',
      'segment_ids',
    ])
    .orderBy(sql`lower(name)`)
    .orderBy('name')
    .execute();
  return rows.map((r) => ({
    name: r.name,
    records: Number(r.records),
    date: r.date,
    description: r.description,
    sensitive: r.is_sensitive,
    ingested_at: r.created_at.toISOString(),
    segment_ids: r.segment_ids,
  }));
}

/** The well named `name`, locked until the caller's transaction ends; undefined when there is none. */
export async function lockWellByName(trx: Kysely<Database>, name: string) {
  return trx.selectFrom('data_wells').select(['id', 'name', 'segment_ids', sql<string>`records`.as('records')]).where('name', '=', name).forUpdate().executeTakeFirst();
}

export async function wellNameTaken(db: Kysely<Database>, name: string): Promise<boolean> {
  return (await db.selectFrom('data_wells').select('id').where('name', '=', name).executeTakeFirst()) !== undefined;
}

/** An operator's correction of a well's catalogue entry (well:update). */
export interface WellCorrection {
  description?: string;
  /** YYYY-MM-DD. */
  date?: string;
  isSensitive?: boolean;
  name?: string;
}

export async function correctWell(db: Kysely<Database>, id: string, change: WellCorrection): Promise<void> {
  await db
    .updateTable('data_wells')
    .set({
      updated_at: sql`now()`,
      ...(change.description !== undefined ? { description: change.description } : {}),
      ...(change.date !== undefined ? { date: change.date } : {}),
      ...(change.isSensitive !== undefined ? { is_sensitive: change.isSensitive } : {}),
      ...(change.name !== undefined ? { name: change.name } : {}),
    })
    .where('id', '=', id)
    .execute();
}

export async function deleteWell(db: Kysely<Database>, id: string): Promise<void> {
  await db.deleteFrom('data_wells').where('id', '=', id).execute();
}
