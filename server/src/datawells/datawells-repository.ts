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
  /** Most of this ingest's lines were stealer-log lines (ingests-service.ts, isStealerLogIngest). */
  isStealerLog?: boolean;
  segmentId: string;
}

/**
 * A new well's breach-model Name (Breach API v3): the PascalCase of its name's ASCII letters
 * and digits ("Fresh dump 2024" -> "FreshDump2024"), at most 64 characters, "Breach" when
 * none is left. upsertDataWell makes it unique with a number. The migration that added the
 * column applied the same rule to the wells before it.
 */
export function breachNameBase(name: string): string {
  const words = name.split(/[^A-Za-z0-9]+/).filter(Boolean);
  const joined = words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join('');
  return joined.slice(0, 64) || 'Breach';
}

/**
 * The well's breach name: its own when it exists (stable), else `base`, or `base` and the
 * first number from 2 that no other well has (case-insensitively).
 */
async function breachNameFor(db: Kysely<Database>, wellName: string): Promise<string> {
  const existing = await db.selectFrom('data_wells').select('breach_name').where('name', '=', wellName).executeTakeFirst();
  if (existing) return existing.breach_name;
  const base = breachNameBase(wellName);
  const rows = await db
    .selectFrom('data_wells')
    .select('breach_name')
    .where(sql<boolean>`lower(breach_name) like ${`${escapeLikePattern(base.toLowerCase())}%`} escape '\\'`)
    .execute();
  const taken = new Set(rows.map((r) => r.breach_name.toLowerCase()));
  let candidate = base;
  for (let n = 2; taken.has(candidate.toLowerCase()); n++) candidate = `${base}${n}`;
  return candidate;
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
      is_stealer_log: well.isStealerLog ?? false,
      segment_ids: [well.segmentId],
      // The update below leaves it alone: a well keeps its Name.
      breach_name: await breachNameFor(db, well.name),
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
        is_stealer_log: sql`case when ${well.segmentId} = any(data_wells.segment_ids) then data_wells.is_stealer_log else data_wells.is_stealer_log or excluded.is_stealer_log end`,
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
  /** Breach API v3's Name and Domain. */
  breach_name: string;
  domain: string;
  /** The breach-model flags set, besides is_sensitive (above as `sensitive`). */
  flags: WellFlagColumn[];
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
      'breach_name',
      'domain',
      ...WELL_FLAG_COLUMNS,
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
    breach_name: r.breach_name,
    domain: r.domain,
    flags: WELL_FLAG_COLUMNS.filter((column) => column !== 'is_sensitive' && r[column]),
  }));
}

/** The well named `name`, locked until the caller's transaction ends; undefined when there is none. */
export async function lockWellByName(trx: Kysely<Database>, name: string) {
  return trx.selectFrom('data_wells').select(['id', 'name', 'segment_ids', sql<string>`records`.as('records')]).where('name', '=', name).forUpdate().executeTakeFirst();
}

export async function wellNameTaken(db: Kysely<Database>, name: string): Promise<boolean> {
  return (await db.selectFrom('data_wells').select('id').where('name', '=', name).executeTakeFirst()) !== undefined;
}

export async function breachNameTaken(db: Kysely<Database>, breachName: string, exceptId: string): Promise<boolean> {
  const row = await db.selectFrom('data_wells').select('id').where(sql<boolean>`lower(breach_name) = lower(${breachName})`).where('id', '<>', exceptId).executeTakeFirst();
  return row !== undefined;
}

/** The breach-model flags an operator sets (well:update), by their column. */
export const WELL_FLAG_COLUMNS = [
  'is_sensitive',
  'is_verified',
  'is_fabricated',
  'is_retired',
  'is_spam_list',
  'is_malware',
  'is_subscription_free',
  'is_stealer_log',
] as const;
export type WellFlagColumn = (typeof WELL_FLAG_COLUMNS)[number];

/** well:update's flags of the breach model (Breach API v3): `--X` sets one, `--no-X` clears it. */
export const WELL_FLAGS: readonly { option: string; column: WellFlagColumn; model: string }[] = [
  { option: 'sensitive', column: 'is_sensitive', model: 'IsSensitive' },
  { option: 'verified', column: 'is_verified', model: 'IsVerified' },
  { option: 'fabricated', column: 'is_fabricated', model: 'IsFabricated' },
  { option: 'retired', column: 'is_retired', model: 'IsRetired' },
  { option: 'spam-list', column: 'is_spam_list', model: 'IsSpamList' },
  { option: 'malware', column: 'is_malware', model: 'IsMalware' },
  { option: 'subscription-free', column: 'is_subscription_free', model: 'IsSubscriptionFree' },
  { option: 'stealer-log', column: 'is_stealer_log', model: 'IsStealerLog' },
];

/** An operator's correction of a well's catalogue entry (well:update). */
export interface WellCorrection {
  description?: string;
  /** YYYY-MM-DD. */
  date?: string;
  name?: string;
  breachName?: string;
  domain?: string;
  /** A same-origin path, or null: no logo. */
  image?: string | null;
  flags?: Partial<Record<WellFlagColumn, boolean>>;
}

export async function correctWell(db: Kysely<Database>, id: string, change: WellCorrection): Promise<void> {
  await db
    .updateTable('data_wells')
    .set({
      updated_at: sql`now()`,
      ...(change.description !== undefined ? { description: change.description } : {}),
      ...(change.date !== undefined ? { date: change.date } : {}),
      ...(change.name !== undefined ? { name: change.name } : {}),
      ...(change.breachName !== undefined ? { breach_name: change.breachName } : {}),
      ...(change.domain !== undefined ? { domain: change.domain } : {}),
      ...(change.image !== undefined ? { image: change.image } : {}),
      ...change.flags,
    })
    .where('id', '=', id)
    .execute();
}

export async function deleteWell(db: Kysely<Database>, id: string): Promise<void> {
  await db.deleteFrom('data_wells').where('id', '=', id).execute();
}

/** Wells and records per breach year, every year from the first to the last (0 between), then the undated (year null). */
async function wellsPerYear(db: Kysely<Database>) {
  const { rows } = await sql<{ year: number | null; wells: string; records: string }>`
    with per_year as (
      select extract(year from date)::int as year, count(*) as wells, coalesce(sum(records), 0) as records
      from data_wells group by 1
    ), span as (
      select generate_series(min(year), max(year)) as year from per_year where year is not null
    )
    select span.year, coalesce(per_year.wells, 0) as wells, coalesce(per_year.records, 0) as records
    from span left join per_year on per_year.year = span.year
    union all
    select null, wells, records from per_year where year is null
    order by 1 nulls last`.execute(db);
  return rows.map((r) => ({ year: r.year, wells: Number(r.wells), records: Number(r.records) }));
}

/** How the wells expose passwords, by their data types (`password`, `hashed_password`). */
async function passwordShares(db: Kysely<Database>) {
  const plain = sql<boolean>`'password' = any(data_types)`;
  const hashed = sql<boolean>`'hashed_password' = any(data_types)`;
  const row = await db
    .selectFrom('data_wells')
    .select([
      sql<string>`count(*) filter (where ${plain} and not ${hashed})`.as('plain'),
      sql<string>`count(*) filter (where ${hashed} and not ${plain})`.as('hashed'),
      sql<string>`count(*) filter (where ${plain} and ${hashed})`.as('both'),
      sql<string>`count(*) filter (where not ${plain} and not ${hashed})`.as('neither'),
    ])
    .executeTakeFirstOrThrow();
  return { plain: Number(row.plain), hashed: Number(row.hashed), both: Number(row.both), neither: Number(row.neither) };
}

/** The catalogue's charts (docs/charts.md): per breach year, the largest wells, password exposure. */
export async function catalogueCharts(db: Kysely<Database>, largestCount: number) {
  const [years, largest, passwords] = await Promise.all([
    wellsPerYear(db),
    db
      .selectFrom('data_wells')
      .select(['name', sql<string>`records`.as('records'), sql<string | null>`to_char(date, 'YYYY-MM-DD')`.as('date')])
      .orderBy('records', 'desc')
      .orderBy('name')
      .limit(largestCount)
      .execute(),
    passwordShares(db),
  ]);
  return {
    years: years.filter((y): y is typeof y & { year: number } => y.year !== null),
    undated: years.find((y) => y.year === null) ?? { wells: 0, records: 0 },
    largest: largest.map((w) => ({ name: w.name, records: Number(w.records), date: w.date })),
    passwords,
  };
}

/** The breach date (YYYY-MM-DD or null) and data types of the named wells; unknown names are left out. */
export async function wellDatesAndTypes(db: Kysely<Database>, names: readonly string[]) {
  if (names.length === 0) return [];
  return db
    .selectFrom('data_wells')
    .select(['name', sql<string | null>`to_char(date, 'YYYY-MM-DD')`.as('date'), 'data_types'])
    .where('name', 'in', [...names])
    .execute();
}

const ISO_SECONDS = `'YYYY-MM-DD"T"HH24:MI:SS"Z"'`;

/** The catalogue's columns of a breach model (breach-model-service.ts), dates formatted by PostgreSQL in UTC. */
function selectBreachRows(db: Kysely<Database>) {
  return db
    .selectFrom('data_wells')
    .select([
      'name',
      'breach_name',
      'domain',
      sql<string>`to_char(coalesce(date, (created_at at time zone 'UTC')::date), 'YYYY-MM-DD')`.as('breach_date'),
      sql<string>`to_char(created_at at time zone 'UTC', ${sql.raw(ISO_SECONDS)})`.as('added_date'),
      sql<string>`to_char(updated_at at time zone 'UTC', ${sql.raw(ISO_SECONDS)})`.as('modified_date'),
      sql<string>`records`.as('records'),
      'description',
      'image',
      'data_types',
      'is_verified',
      'is_fabricated',
      'is_sensitive',
      'is_retired',
      'is_spam_list',
      'is_malware',
      'is_subscription_free',
      'is_stealer_log',
    ]);
}

export type BreachModelRow = Awaited<ReturnType<ReturnType<typeof selectBreachRows>['executeTakeFirstOrThrow']>>;

/** Every well, by breach Name case-insensitively; `domain` any case, spam lists or not. */
export function breachRows(db: Kysely<Database>, filter: { domain?: string; isSpamList?: boolean }): Promise<BreachModelRow[]> {
  let query = selectBreachRows(db);
  if (filter.domain !== undefined) query = query.where(sql<boolean>`lower(domain) = lower(${filter.domain})`);
  if (filter.isSpamList !== undefined) query = query.where('is_spam_list', '=', filter.isSpamList);
  return query.orderBy(sql`lower(breach_name)`).execute();
}

/** The well whose breach Name is `name` in any case. */
export function breachRowByName(db: Kysely<Database>, name: string): Promise<BreachModelRow | undefined> {
  return selectBreachRows(db).where(sql<boolean>`lower(breach_name) = lower(${name})`).executeTakeFirst();
}

/** The well added last. */
export function latestBreachRow(db: Kysely<Database>): Promise<BreachModelRow | undefined> {
  return selectBreachRows(db).orderBy('created_at', 'desc').orderBy('id', 'desc').limit(1).executeTakeFirst();
}

/** The wells named `names` (their catalogue names). */
export async function breachRowsByWellName(db: Kysely<Database>, names: string[]): Promise<BreachModelRow[]> {
  if (names.length === 0) return [];
  return selectBreachRows(db).where('name', 'in', names).execute();
}
