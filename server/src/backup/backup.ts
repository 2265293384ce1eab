/**
 * Backup and restore (README.md in this folder): a consistent snapshot of the database and
 * the search index, taken while the server serves, and its restore into an empty target.
 *
 * The database is copied table by table with COPY inside one REPEATABLE READ, READ ONLY
 * transaction (one snapshot of every table), through the same connection the server uses:
 * it needs no pg_dump, so it works alike on the embedded default and with DATABASE_URL,
 * whatever PostgreSQL major version either runs. The index's segments are immutable: they are
 * hard-linked (copied across file systems) while the engine's LOCK is held, and the database
 * snapshot is taken under that same lock, so no ingest, merge or removal publishes between
 * the two.
 */
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { Kysely, Migrator, PostgresDialect } from 'kysely';
import type { Config } from '../config';
import { createPool, migrationProvider } from '../infra/database';
import { MIGRATIONS } from '../../../migrations/index';
import packageJson from '../../../package.json' with { type: 'json' };
import { embeddedConnectionString, startEmbeddedPostgres } from '../infra/embedded-postgres';
import { recordAudit } from '../audit/audit-service';
import type { Database } from '../db/schema';
import { isListening } from '../db/cli-database';
import { copyTablesIn, copyTablesOut, counts, type DatabaseCounts, type TableInfo } from './database-copy';
import { copyIndex, lockIndex, segmentAliases, type CopyTally, type IndexManifest } from './index-copy';

export const BACKUP_FORMAT = 1;
const MANIFEST_FILE = 'backup.json';

export interface BackupManifest {
  format: number;
  created_at: string;
  product_version: string;
  postgres_version: string;
  /** Migrations applied in the backed-up database, oldest first. */
  migrations: string[];
  /** Rows of every table copied (file database/<table>.copy). */
  tables: Record<string, number>;
  /** What the restore is checked against. */
  counts: DatabaseCounts;
  index: {
    present: boolean;
    generation: number | null;
    segments: number;
    /** Records in the index's segments (removed ones included: they stay hidden by their tombstones). */
    records: number;
    bytes: number;
    /** Segment files hard-linked (the rest copied: another file system). */
    linked_files: number;
    copied_files: number;
    /** Published segments no catalogue row names (an ingest caught between its publish and its catalogue write, or a taken-down well's segment awaiting its merge). */
    uncatalogued_segments: string[];
  };
}

/** A database connection string for an operator command, starting the embedded PostgreSQL when no server runs it. */
async function connect(config: Config): Promise<{ url: string; close(): Promise<void> }> {
  if (config.DATABASE_URL) return { url: config.DATABASE_URL, close: async () => {} };
  if (await isListening(config.EMBEDDED_PG_PORT)) return { url: embeddedConnectionString(config.dataDir, config.EMBEDDED_PG_PORT), close: async () => {} };
  const embedded = await startEmbeddedPostgres(config.dataDir, config.EMBEDDED_PG_PORT);
  return { url: embedded.connectionString, close: () => embedded.stop() };
}

function dirIsEmpty(dir: string): boolean {
  try {
    return fs.readdirSync(dir).length === 0;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return true;
    throw error;
  }
}

function productVersion(): string {
  return packageJson.version;
}

/** A Kysely over its own one-connection pool, destroyed after `use`. */
async function withDatabase<T>(url: string, use: (db: Kysely<Database>) => Promise<T>): Promise<T> {
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: createPool(url, { max: 1 }) }) });
  try {
    return await use(db);
  } finally {
    await db.destroy();
  }
}

export interface BackupOptions {
  out: string;
  operator: string;
  log?: (line: string) => void;
}

/** The backup folder, absent or empty and outside the index, created owner-only. */
function prepareBackupFolder(config: Config, outOption: string): string {
  const out = path.resolve(outOption);
  if (!dirIsEmpty(out)) throw new Error(`${out} is not empty: back up into a new folder`);
  const inside = path.relative(config.indexDir, out);
  if (!inside.startsWith('..') && !path.isAbsolute(inside)) throw new Error('the backup folder cannot be inside the index folder');
  fs.mkdirSync(path.join(out, 'database'), { recursive: true, mode: 0o700 });
  fs.chmodSync(out, 0o700);
  return out;
}

interface IndexSnapshot {
  present: boolean;
  manifest: IndexManifest | null;
  tally: CopyTally;
}

/**
 * Begins the backup's transaction and copies the index, both under the index lock: the
 * snapshot is the one the transaction's first statement takes, so database and index agree
 * on every published segment.
 */
async function snapshotUnderIndexLock(client: pg.Client, indexDir: string, out: string): Promise<IndexSnapshot> {
  const present = fs.existsSync(indexDir);
  const lock = present ? await lockIndex(indexDir) : null;
  let manifest: IndexManifest | null = null;
  const tally = { linked: 0, copied: 0, bytes: 0 };
  try {
    await client.query('begin isolation level repeatable read read only');
    await client.query('select 1');
    if (present) manifest = copyIndex(indexDir, path.join(out, 'index'), tally);
  } finally {
    await lock?.release();
  }
  return { present, manifest, tally };
}

/** The rest of the backup's snapshot: migrations, server version, counts, the segments the catalogue names. */
async function databaseFacts(client: pg.Client) {
  const { rows: migrations } = await client.query<{ name: string }>('select name from kysely_migration order by name');
  const { rows: version } = await client.query<{ server_version: string }>('show server_version');
  const dbCounts = await counts(client);
  const { rows: wellSegments } = await client.query<{ id: string }>('select distinct unnest(segment_ids) as id from data_wells');
  return { migrations: migrations.map((m) => m.name), postgresVersion: version[0]!.server_version, counts: dbCounts, wellSegments: new Set(wellSegments.map((r) => r.id)) };
}

function backupManifest(out: string, index: IndexSnapshot, tables: Record<string, number>, facts: Awaited<ReturnType<typeof databaseFacts>>): BackupManifest {
  const segments = index.manifest?.segments ?? [];
  return {
    format: BACKUP_FORMAT,
    created_at: new Date().toISOString(),
    product_version: productVersion(),
    postgres_version: facts.postgresVersion,
    migrations: facts.migrations,
    tables,
    counts: facts.counts,
    index: {
      present: index.present && index.manifest !== null,
      generation: index.manifest?.generation ?? null,
      segments: segments.length,
      records: segments.reduce((sum, s) => sum + (s.records ?? 0), 0),
      bytes: index.tally.bytes,
      linked_files: index.tally.linked,
      copied_files: index.tally.copied,
      uncatalogued_segments: segments.filter((s) => !segmentAliases(path.join(out, 'index'), s.id).some((id) => facts.wellSegments.has(id))).map((s) => s.id),
    },
  };
}

/**
 * Writes a backup into `out` (absent or empty). The manifest file is written last: a folder
 * without it is an interrupted backup, which restore refuses.
 */
export async function createBackup(config: Config, options: BackupOptions): Promise<BackupManifest> {
  const log = options.log ?? (() => {});
  const out = prepareBackupFolder(config, options.out);
  const connection = await connect(config);
  const client = new pg.Client({ connectionString: connection.url });
  client.on('error', () => {});
  try {
    await client.connect();
    const index = await snapshotUnderIndexLock(client, config.indexDir, out);
    const tables = await copyTablesOut(client, path.join(out, 'database'), log);
    const facts = await databaseFacts(client);
    await client.query('commit');

    const manifest = backupManifest(out, index, tables, facts);
    fs.writeFileSync(path.join(out, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`, { mode: 0o600 });
    await withDatabase(connection.url, (db) =>
      recordAudit(db, {
        operator: options.operator,
        action: 'backup',
        target: out,
        details: { counts: manifest.counts, index_segments: manifest.index.segments, index_records: manifest.index.records },
      }),
    );
    return manifest;
  } catch (error) {
    await client.query('rollback').catch(() => {});
    throw error;
  } finally {
    await client.end().catch(() => {});
    await connection.close();
  }
}

export function readBackupManifest(from: string): BackupManifest {
  const file = path.join(from, MANIFEST_FILE);
  let manifest: BackupManifest;
  try {
    manifest = JSON.parse(fs.readFileSync(file, 'utf8')) as BackupManifest;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new Error(`${from} holds no complete backup (no ${MANIFEST_FILE}: an interrupted backup, or not a backup folder)`, { cause: error });
    throw new Error(`${file} is not readable: ${(error as Error).message}`, { cause: error });
  }
  if (manifest.format !== BACKUP_FORMAT) throw new Error(`${file} is backup format ${String(manifest.format)}; this version restores format ${BACKUP_FORMAT}`);
  return manifest;
}

export interface RestoreOptions {
  from: string;
  operator: string;
  log?: (line: string) => void;
}

/** Refuses a backup made by a newer version, and a target that holds anything, before writing. */
async function checkRestoreTarget(config: Config, manifest: BackupManifest) {
  const known = Object.keys(MIGRATIONS);
  const unknown = manifest.migrations.filter((m) => !known.includes(m));
  if (unknown.length) throw new Error(`the backup was made by a newer version (migrations ${unknown.join(', ')} are unknown here): restore it with that version`);

  if (!dirIsEmpty(config.indexDir)) throw new Error(`INDEX_DIR ${config.indexDir} is not empty: restore into an empty one`);
  if (!config.DATABASE_URL) {
    if (!dirIsEmpty(config.dataDir)) throw new Error(`DATA_DIR ${config.dataDir} is not empty: restore into an empty one (or set DATABASE_URL to an empty database)`);
    if (await isListening(config.EMBEDDED_PG_PORT)) throw new Error(`a PostgreSQL already listens on EMBEDDED_PG_PORT ${config.EMBEDDED_PG_PORT}: stop that server, or pick another port`);
    fs.mkdirSync(config.dataDir, { recursive: true });
  }
}

async function checkDatabaseEmpty(pool: pg.Pool) {
  const { rows } = await pool.query<{ n: number }>(`select count(*)::int as n from pg_class c join pg_namespace n on n.oid = c.relnamespace where n.nspname = 'public' and c.relkind in ('r', 'p', 'v', 'm', 'S')`);
  if (rows[0]!.n > 0) throw new Error('the database is not empty: restore into an empty database');
}

/** The schema of the backup's time, then its rows, then any later migrations. */
async function restoreDatabase(db: Kysely<Database>, pool: pg.Pool, from: string, backup: { manifest: BackupManifest; tables: TableInfo[] }, log: (line: string) => void) {
  const { manifest, tables } = backup;
  const migrator = new Migrator({ db, provider: migrationProvider });
  const last = manifest.migrations.at(-1);
  if (last) {
    const { error } = await migrator.migrateTo(last);
    if (error) throw new Error(`migrating to ${last} failed: ${String(error)}`);
  }
  await copyTablesIn(pool, tables, path.join(from, 'database'), manifest.tables, log);
  const { error } = await migrator.migrateToLatest();
  if (error) throw new Error(`migrating the restored database failed: ${String(error)}`);
}

/**
 * Restores a backup into an empty target: an empty (or absent) DATA_DIR for the embedded
 * default, or with DATABASE_URL an empty database, and an empty (or absent) INDEX_DIR.
 * Refuses a target that holds anything, before writing.
 */
export async function restoreBackup(config: Config, options: RestoreOptions): Promise<{ manifest: BackupManifest; counts: BackupManifest['counts'] }> {
  const log = options.log ?? (() => {});
  const from = path.resolve(options.from);
  const manifest = readBackupManifest(from);
  const tables = JSON.parse(fs.readFileSync(path.join(from, 'database', 'tables.json'), 'utf8')) as TableInfo[];
  await checkRestoreTarget(config, manifest);
  const connection = await connect(config);
  const pool = createPool(connection.url, { max: 2 });
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  try {
    await checkDatabaseEmpty(pool);
    await restoreDatabase(db, pool, from, { manifest, tables }, log);
    if (manifest.index.present) {
      fs.mkdirSync(config.indexDir, { recursive: true });
      fs.cpSync(path.join(from, 'index'), config.indexDir, { recursive: true });
    }
    const client = await pool.connect();
    let restored: BackupManifest['counts'];
    try {
      restored = await counts(client);
    } finally {
      client.release();
    }
    // Written into the restored database: its history says where it came from.
    await recordAudit(db, {
      operator: options.operator,
      action: 'restore',
      target: from,
      details: { backup_created_at: manifest.created_at, counts: restored, index_segments: manifest.index.segments },
    });
    return { manifest, counts: restored };
  } finally {
    await db.destroy();
    await connection.close();
  }
}
