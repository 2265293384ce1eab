/**
 * Operator commands for data wells (server/src/datawells/README.md, "Operator commands"):
 * list the catalogue with what each well holds in the index, correct a well's metadata or
 * name, take a well down. The catalogue is PostgreSQL (read by every server on each
 * request: a change is seen at once); a well's records are in the index, where a rename or
 * a takedown is an entry of `wells.log` (engine/FORMAT.md) that every server applies at
 * its next check, within a second.
 */
import fs from 'node:fs';
import path from 'node:path';
import { sql, type Kysely } from 'kysely';
import { withDatabase } from '../../server/src/db/cli-database';
import type { Database } from '../../server/src/db/schema';
import { recordAudit } from '../../server/src/audit/audit-service';
import { openEngine, type Engine } from '../../engine/index';
import { loadConfig } from '../../server/src/config';
import { UsageError } from '../lib/cli';
import { treeBytes } from '../../server/src/infra/tree-bytes';
import type { AdminCommands, OptionValues } from '../lib/admin-command';

/** A well name as the engine and the catalogue keep it. */
export function wellNameProblem(name: string): string | null {
  if (!name.trim()) return 'a well name must not be empty';
  if (Buffer.byteLength(name) > 256) return 'a well name must be at most 256 bytes';
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f-\u009f]/.test(name)) return 'a well name must not contain control characters';
  return null;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const MAX_DESCRIPTION = 10_000;
const MAX_REASON = 2_000;

function indexDirOf(values: OptionValues): string {
  return (values['index-dir'] as string | undefined) ?? loadConfig().indexDir;
}

function str(values: OptionValues, key: string): string | undefined {
  const v = values[key];
  return typeof v === 'string' ? v : undefined;
}

interface SegmentSources {
  id: string;
  records: number;
  bytes: number;
  /** Source id (an ingest's segment id) -> its records in this segment. */
  sources: Map<string, number>;
}

/** The published segments and the ingests each holds (segment.json, `sources` when merged). */
function readSegments(indexDir: string): SegmentSources[] {
  let manifest: { segments: { id: string }[] };
  try {
    manifest = JSON.parse(fs.readFileSync(path.join(indexDir, 'MANIFEST'), 'utf8')) as typeof manifest;
  } catch {
    return [];
  }
  return manifest.segments.map(({ id }) => {
    const dir = path.join(indexDir, `seg-${id}`);
    const meta = JSON.parse(fs.readFileSync(path.join(dir, 'segment.json'), 'utf8')) as { id: string; records: number; sources?: { id: string; records: number }[] };
    const sources = new Map<string, number>((meta.sources ?? [{ id: meta.id, records: meta.records }]).map((s) => [s.id, s.records]));
    return { id, records: meta.records, bytes: treeBytes(dir), sources };
  });
}

/**
 * A well's share of the index bytes: each segment holding one of its ingests counts in
 * proportion to the records it holds there (a merged segment's bytes are not kept per well).
 */
function wellIndexBytes(segments: SegmentSources[], sourceIds: string[]): number {
  let bytes = 0;
  for (const seg of segments) {
    const mine = sourceIds.reduce((n, id) => n + (seg.sources.get(id) ?? 0), 0);
    if (mine > 0 && seg.records > 0) bytes += (seg.bytes * mine) / seg.records;
  }
  return Math.round(bytes);
}

interface WellRow {
  name: string;
  records: number;
  date: string | null;
  description: string;
  sensitive: boolean;
  ingested_at: string;
  segment_ids: string[];
}

async function selectWells(db: Kysely<Database>): Promise<WellRow[]> {
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

/** Opens the index, runs `fn`, closes it. */
async function withIndex<T>(indexDir: string, fn: (engine: Engine) => Promise<T>): Promise<T> {
  const engine = await openEngine(indexDir);
  try {
    return await fn(engine);
  } finally {
    await engine.close();
  }
}

async function findWell(db: Kysely<Database>, name: string) {
  const row = await db.selectFrom('data_wells').select(['id', 'name', 'segment_ids', sql<string>`records`.as('records')]).where('name', '=', name).forUpdate().executeTakeFirst();
  if (!row) throw new Error(`no data well named ${JSON.stringify(name)} (see npm run admin -- well:list)`);
  return row;
}

export const WELL_COMMANDS: AdminCommands = {
  'well:list': {
    options: { json: { type: 'boolean', default: false }, 'index-dir': { type: 'string' } },
    async run(values) {
      const segments = readSegments(indexDirOf(values));
      const wells = await withDatabase((db) => selectWells(db));
      const listed = wells.map(({ segment_ids, ...w }) => ({ ...w, index_bytes: wellIndexBytes(segments, segment_ids) }));
      if (values.json) {
        process.stdout.write(`${JSON.stringify(listed, null, 2)}\n`);
        return 0;
      }
      if (listed.length === 0) {
        process.stdout.write('No data wells.\n');
        return 0;
      }
      for (const w of listed) {
        process.stdout.write(
          `${w.name}\n  records ${w.records.toLocaleString('en-US')}, date ${w.date ?? '-'}, ${w.sensitive ? 'sensitive' : 'not sensitive'}, ` +
            `ingested ${w.ingested_at}, index ${w.index_bytes.toLocaleString('en-US')} bytes\n  ${w.description || '(no description)'}\n`,
        );
      }
      return 0;
    },
  },

  'well:update': {
    options: {
      well: { type: 'string' },
      description: { type: 'string' },
      date: { type: 'string' },
      sensitive: { type: 'boolean' },
      'no-sensitive': { type: 'boolean' },
      rename: { type: 'string' },
      reason: { type: 'string' },
      'index-dir': { type: 'string' },
    },
    async run(values, { operator }) {
      const name = str(values, 'well');
      if (!name) throw new UsageError('well:update needs --well NAME');
      const description = str(values, 'description');
      const date = str(values, 'date');
      const rename = str(values, 'rename')?.trim();
      const reason = str(values, 'reason');
      if (values.sensitive && values['no-sensitive']) throw new UsageError('give --sensitive or --no-sensitive, not both');
      const sensitive = values.sensitive ? true : values['no-sensitive'] ? false : undefined;
      if (date !== undefined && (!DATE.test(date) || Number.isNaN(Date.parse(`${date}T00:00:00Z`)) || new Date(`${date}T00:00:00Z`).toISOString().slice(0, 10) !== date)) {
        throw new UsageError('--date must be a real day, YYYY-MM-DD');
      }
      if (description !== undefined && description.length > MAX_DESCRIPTION) throw new UsageError(`--description is at most ${MAX_DESCRIPTION} characters`);
      if (reason !== undefined && reason.length > MAX_REASON) throw new UsageError(`--reason is at most ${MAX_REASON} characters`);
      if (rename !== undefined) {
        const problem = wellNameProblem(rename);
        if (problem) throw new UsageError(`--rename: ${problem}`);
      }
      if (description === undefined && date === undefined && sensitive === undefined && rename === undefined) {
        throw new UsageError('nothing to change: give --description, --date, --sensitive/--no-sensitive or --rename');
      }
      const indexDir = indexDirOf(values);
      const changed = await withDatabase((db) =>
        db.transaction().execute(async (trx) => {
          const well = await findWell(trx, name);
          if (rename !== undefined && rename !== name) {
            const taken = await trx.selectFrom('data_wells').select('id').where('name', '=', rename).executeTakeFirst();
            if (taken) throw new Error(`a data well named ${JSON.stringify(rename)} already exists`);
          }
          const set: Record<string, unknown> = { updated_at: sql`now()` };
          const details: Record<string, unknown> = {};
          if (description !== undefined) set.description = details.description = description;
          if (date !== undefined) set.date = details.date = date;
          if (sensitive !== undefined) set.is_sensitive = details.sensitive = sensitive;
          if (rename !== undefined && rename !== name) set.name = details.rename = rename;
          await trx.updateTable('data_wells').set(set).where('id', '=', well.id).execute();
          await recordAudit(trx, { operator, action: 'well:update', target: name, reason: reason ?? null, details });
          // The index last, inside the transaction: if it fails, the catalogue is unchanged;
          // if the commit fails after it, running the command again repairs the catalogue.
          if (details.rename !== undefined && well.segment_ids.length > 0) {
            await withIndex(indexDir, (engine) => engine.editWells({ rename: well.segment_ids.map((id) => [id, rename!] as [string, string]) }));
          }
          return details;
        }),
      );
      process.stdout.write(`${name}: updated ${Object.keys(changed).join(', ')}.\n`);
      return 0;
    },
  },

  'well:delete': {
    options: {
      well: { type: 'string' },
      reason: { type: 'string' },
      purge: { type: 'boolean', default: false },
      'index-dir': { type: 'string' },
    },
    async run(values, { operator }) {
      const name = str(values, 'well');
      if (!name) throw new UsageError('well:delete needs --well NAME');
      const reason = str(values, 'reason');
      if (reason !== undefined && reason.length > MAX_REASON) throw new UsageError(`--reason is at most ${MAX_REASON} characters`);
      const indexDir = indexDirOf(values);
      const removed = await withDatabase((db) =>
        db.transaction().execute(async (trx) => {
          const well = await findWell(trx, name);
          await trx.deleteFrom('data_wells').where('id', '=', well.id).execute();
          await recordAudit(trx, {
            operator,
            action: 'well:delete',
            target: name,
            reason: reason ?? null,
            details: { records: Number(well.records), segment_ids: well.segment_ids, purge: Boolean(values.purge) },
          });
          // The takedown itself, last inside the transaction (see well:update).
          if (well.segment_ids.length > 0) await withIndex(indexDir, (engine) => engine.editWells({ delete: well.segment_ids }));
          return well;
        }),
      );
      process.stdout.write(`${name}: taken down (${Number(removed.records).toLocaleString('en-US')} records hidden on every server).\n`);
      if (values.purge) {
        const before = treeBytes(indexDir);
        const result = await withIndex(indexDir, (engine) => engine.purge());
        const after = treeBytes(indexDir);
        process.stdout.write(
          `purged: ${result.dropped.length} segment(s) dropped, ${result.rewritten.length} rewritten; index ${before.toLocaleString('en-US')} -> ${after.toLocaleString('en-US')} bytes.\n`,
        );
      }
      return 0;
    },
  },
};
