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
import { spawn, type ChildProcess } from 'node:child_process';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import copyStreams from 'pg-copy-streams';
import { Kysely, Migrator, PostgresDialect } from 'kysely';
import type { Config } from '../config';
import { createPool, migrationProvider } from '../infra/database';
import { MIGRATIONS } from '../../../migrations/index';
import packageJson from '../../../package.json' with { type: 'json' };
import { embeddedConnectionString, startEmbeddedPostgres } from '../infra/embedded-postgres';
import { recordAudit } from '../audit/audit-service';
import type { Database } from '../db/schema';
import { isListening } from '../db/cli-database';

export const BACKUP_FORMAT = 1;
const MANIFEST_FILE = 'backup.json';
/** Kysely's own bookkeeping: the restore rebuilds it by running the migrations. */
const SKIPPED_TABLES = new Set(['kysely_migration', 'kysely_migration_lock']);

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
  counts: { accounts: number; credit_ledger: number; monitor_tasks: number; data_wells: number; catalogue_records: number };
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

function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

interface TableInfo {
  name: string;
  /** Stored columns (generated ones are computed again on restore). */
  columns: string[];
}

/** The public schema's tables (kysely's own left out), parents before the tables whose foreign keys point to them. */
async function listTables(client: pg.Client | pg.PoolClient): Promise<TableInfo[]> {
  const { rows: tables } = await client.query<{ name: string; columns: string[] }>(
    `select c.relname as name,
            array_agg(a.attname::text order by a.attnum) as columns
       from pg_class c
       join pg_namespace n on n.oid = c.relnamespace
       join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped and a.attgenerated = ''
      where n.nspname = 'public' and c.relkind in ('r', 'p') and not c.relispartition
      group by c.relname
      order by c.relname`,
  );
  const { rows: edges } = await client.query<{ child: string; parent: string }>(
    `select distinct c.relname as child, p.relname as parent
       from pg_constraint k
       join pg_class c on c.oid = k.conrelid
       join pg_class p on p.oid = k.confrelid
       join pg_namespace n on n.oid = c.relnamespace
      where k.contype = 'f' and n.nspname = 'public' and c.oid <> p.oid`,
  );
  const wanted = tables.filter((t) => !SKIPPED_TABLES.has(t.name));
  const parents = new Map<string, Set<string>>(wanted.map((t) => [t.name, new Set<string>()]));
  for (const e of edges) parents.get(e.child)?.add(e.parent);
  const ordered: TableInfo[] = [];
  const done = new Set<string>();
  const visit = (table: TableInfo, path: string[]) => {
    if (done.has(table.name)) return;
    if (path.includes(table.name)) throw new Error(`foreign keys form a cycle: ${[...path, table.name].join(' -> ')}`);
    for (const parent of parents.get(table.name) ?? []) {
      const t = wanted.find((w) => w.name === parent);
      if (t) visit(t, [...path, table.name]);
    }
    done.add(table.name);
    ordered.push(table);
  };
  for (const t of wanted) visit(t, []);
  return ordered;
}

/** Holds the index's LOCK (flock(2), as the engine's writers take it) until `release`. */
async function lockIndex(indexDir: string): Promise<{ release(): Promise<void> }> {
  const lockFile = path.join(indexDir, 'LOCK');
  fs.closeSync(fs.openSync(lockFile, 'a'));
  // util-linux flock(1) holds the lock while `cat` waits for its stdin; closing it releases.
  const child: ChildProcess = spawn('flock', ['--exclusive', lockFile, 'sh', '-c', 'echo locked; exec cat >/dev/null'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    child.once('error', (error) => reject(new Error(`cannot lock the index (flock from util-linux is needed): ${error.message}`)));
    child.once('exit', (code) => reject(new Error(`cannot lock the index: flock exited with ${code}`)));
    child.stdout!.once('data', () => resolve());
  });
  return {
    async release() {
      child.stdin!.end();
      await exited;
    },
  };
}

function dirIsEmpty(dir: string): boolean {
  try {
    return fs.readdirSync(dir).length === 0;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return true;
    throw error;
  }
}

/** Links (or, across file systems, copies) every file under `from` into `to`. */
function linkTree(from: string, to: string, tally: { linked: number; copied: number; bytes: number }): void {
  fs.mkdirSync(to, { recursive: true });
  for (const entry of fs.readdirSync(from, { withFileTypes: true })) {
    const source = path.join(from, entry.name);
    const target = path.join(to, entry.name);
    if (entry.isDirectory()) {
      linkTree(source, target, tally);
    } else if (entry.isFile()) {
      tally.bytes += fs.statSync(source).size;
      try {
        fs.linkSync(source, target);
        tally.linked++;
      } catch (error) {
        if (!['EXDEV', 'EPERM', 'EMLINK'].includes((error as NodeJS.ErrnoException).code ?? '')) throw error;
        fs.copyFileSync(source, target);
        tally.copied++;
      }
    }
  }
}

interface IndexManifest {
  generation?: number;
  segments: { id: string; records?: number }[];
}

function readIndexManifest(indexDir: string): IndexManifest | null {
  try {
    return JSON.parse(fs.readFileSync(path.join(indexDir, 'MANIFEST'), 'utf8')) as IndexManifest;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/** Every segment id a published segment answers to: its own and those merged into it. */
function segmentAliases(indexDir: string, id: string): string[] {
  try {
    const meta = JSON.parse(fs.readFileSync(path.join(indexDir, `seg-${id}`, 'segment.json'), 'utf8')) as { aliases?: { id: string }[] };
    return [id, ...(meta.aliases ?? []).map((a) => a.id)];
  } catch {
    return [id];
  }
}

function productVersion(): string {
  return packageJson.version;
}

async function counts(client: pg.Client | pg.PoolClient): Promise<BackupManifest['counts']> {
  const { rows } = await client.query<BackupManifest['counts']>(
    `select (select count(*) from users)::int as accounts,
            (select count(*) from credit_ledger)::int as credit_ledger,
            (select count(*) from monitor_tasks)::int as monitor_tasks,
            (select count(*) from data_wells)::int as data_wells,
            (select coalesce(sum(records), 0) from data_wells)::bigint as catalogue_records`,
  );
  return { ...rows[0]!, catalogue_records: Number(rows[0]!.catalogue_records) };
}

export interface BackupOptions {
  out: string;
  operator: string;
  log?: (line: string) => void;
}

/**
 * Writes a backup into `out` (absent or empty). The manifest file is written last: a folder
 * without it is an interrupted backup, which restore refuses.
 */
export async function createBackup(config: Config, options: BackupOptions): Promise<BackupManifest> {
  const log = options.log ?? (() => {});
  const out = path.resolve(options.out);
  if (!dirIsEmpty(out)) throw new Error(`${out} is not empty: back up into a new folder`);
  const inside = path.relative(config.indexDir, out);
  if (!inside.startsWith('..') && !path.isAbsolute(inside)) throw new Error('the backup folder cannot be inside the index folder');
  fs.mkdirSync(path.join(out, 'database'), { recursive: true, mode: 0o700 });
  fs.chmodSync(out, 0o700);

  const connection = await connect(config);
  const client = new pg.Client({ connectionString: connection.url });
  client.on('error', () => {});
  try {
    await client.connect();
    const indexPresent = fs.existsSync(config.indexDir);
    const lock = indexPresent ? await lockIndex(config.indexDir) : null;
    let indexManifest: IndexManifest | null = null;
    const tally = { linked: 0, copied: 0, bytes: 0 };
    try {
      // The snapshot is the one the first statement of the transaction takes: under the
      // index lock, so database and index agree on every published segment.
      await client.query('begin isolation level repeatable read read only');
      await client.query('select 1');
      if (indexPresent) {
        indexManifest = readIndexManifest(config.indexDir);
        const target = path.join(out, 'index');
        fs.mkdirSync(target, { recursive: true });
        for (const segment of indexManifest?.segments ?? []) linkTree(path.join(config.indexDir, `seg-${segment.id}`), path.join(target, `seg-${segment.id}`), tally);
        // The logs are appended to: copied, never linked. The removals, the opt-outs'
        // suppressions and their key (owner-only, as in the index), the well takedowns and
        // renames; MANIFEST last.
        for (const file of ['tombstones.log', 'suppressions.log', 'suppression.key', 'wells.log', 'MANIFEST']) {
          const source = path.join(config.indexDir, file);
          if (fs.existsSync(source)) {
            fs.copyFileSync(source, path.join(target, file));
            if (file === 'suppression.key') fs.chmodSync(path.join(target, file), 0o600);
            tally.copied++;
            tally.bytes += fs.statSync(source).size;
          }
        }
      }
    } finally {
      await lock?.release();
    }
    const tables = await listTables(client);
    const tableRows: Record<string, number> = {};
    for (const table of tables) {
      const file = path.join(out, 'database', `${table.name}.copy`);
      const columns = table.columns.map(quoteIdent).join(', ');
      const stream = client.query(copyStreams.to(`copy (select ${columns} from ${quoteIdent(table.name)}) to stdout`));
      await pipeline(stream, fs.createWriteStream(file, { mode: 0o600 }));
      tableRows[table.name] = stream.rowCount ?? 0;
      log(`${table.name}: ${tableRows[table.name]} rows`);
    }
    fs.writeFileSync(path.join(out, 'database', 'tables.json'), `${JSON.stringify(tables, null, 2)}\n`);
    const { rows: migrations } = await client.query<{ name: string }>('select name from kysely_migration order by name');
    const { rows: version } = await client.query<{ server_version: string }>('show server_version');
    const dbCounts = await counts(client);
    const { rows: wellSegments } = await client.query<{ id: string }>('select distinct unnest(segment_ids) as id from data_wells');
    await client.query('commit');

    const known = new Set(wellSegments.map((r) => r.id));
    const segments = indexManifest?.segments ?? [];
    const manifest: BackupManifest = {
      format: BACKUP_FORMAT,
      created_at: new Date().toISOString(),
      product_version: productVersion(),
      postgres_version: version[0]!.server_version,
      migrations: migrations.map((m) => m.name),
      tables: tableRows,
      counts: dbCounts,
      index: {
        present: indexPresent && indexManifest !== null,
        generation: indexManifest?.generation ?? null,
        segments: segments.length,
        records: segments.reduce((sum, s) => sum + (s.records ?? 0), 0),
        bytes: tally.bytes,
        linked_files: tally.linked,
        copied_files: tally.copied,
        uncatalogued_segments: segments.filter((s) => !segmentAliases(path.join(out, 'index'), s.id).some((id) => known.has(id))).map((s) => s.id),
      },
    };
    fs.writeFileSync(path.join(out, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`, { mode: 0o600 });

    const pool = createPool(connection.url, { max: 1 });
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    try {
      await recordAudit(db, {
        operator: options.operator,
        action: 'backup',
        target: out,
        details: { counts: manifest.counts, index_segments: manifest.index.segments, index_records: manifest.index.records },
      });
    } finally {
      await db.destroy();
    }
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

  const known = Object.keys(MIGRATIONS);
  const unknown = manifest.migrations.filter((m) => !known.includes(m));
  if (unknown.length) throw new Error(`the backup was made by a newer version (migrations ${unknown.join(', ')} are unknown here): restore it with that version`);

  if (!dirIsEmpty(config.indexDir)) throw new Error(`INDEX_DIR ${config.indexDir} is not empty: restore into an empty one`);
  if (!config.DATABASE_URL) {
    if (!dirIsEmpty(config.dataDir)) throw new Error(`DATA_DIR ${config.dataDir} is not empty: restore into an empty one (or set DATABASE_URL to an empty database)`);
    if (await isListening(config.EMBEDDED_PG_PORT)) throw new Error(`a PostgreSQL already listens on EMBEDDED_PG_PORT ${config.EMBEDDED_PG_PORT}: stop that server, or pick another port`);
    fs.mkdirSync(config.dataDir, { recursive: true });
  }
  const connection = await connect(config);
  const pool = createPool(connection.url, { max: 2 });
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  try {
    const { rows } = await pool.query<{ n: number }>(`select count(*)::int as n from pg_class c join pg_namespace n on n.oid = c.relnamespace where n.nspname = 'public' and c.relkind in ('r', 'p', 'v', 'm', 'S')`);
    if (rows[0]!.n > 0) throw new Error('the database is not empty: restore into an empty database');

    // The schema of the backup's time, then its rows, then any later migrations.
    const migrator = new Migrator({ db, provider: migrationProvider });
    const last = manifest.migrations.at(-1);
    if (last) {
      const { error } = await migrator.migrateTo(last);
      if (error) throw new Error(`migrating to ${last} failed: ${String(error)}`);
    }
    const client = await pool.connect();
    try {
      await client.query('begin');
      // Migrations may seed rows (the product catalogue…): the backup's rows replace them.
      const seeded: string[] = [];
      for (const table of tables) {
        const { rows: any } = await client.query(`select 1 from ${quoteIdent(table.name)} limit 1`);
        if (any.length) seeded.push(quoteIdent(table.name));
      }
      if (seeded.length) await client.query(`truncate ${seeded.join(', ')} cascade`);
      for (const table of tables) {
        const columns = table.columns.map(quoteIdent).join(', ');
        const stream = client.query(copyStreams.from(`copy ${quoteIdent(table.name)} (${columns}) from stdin`));
        await pipeline(fs.createReadStream(path.join(from, 'database', `${table.name}.copy`)), stream);
        if ((stream.rowCount ?? 0) !== manifest.tables[table.name]) throw new Error(`${table.name}: ${stream.rowCount} rows read, the backup says ${manifest.tables[table.name]}`);
        log(`${table.name}: ${stream.rowCount} rows`);
        // Sequences (serial and identity columns) continue after the restored rows.
        for (const column of table.columns) {
          const { rows: sequence } = await client.query<{ s: string | null }>('select pg_get_serial_sequence($1, $2) as s', [quoteIdent(table.name), column]);
          if (!sequence[0]?.s) continue;
          await client.query(`select setval($1, coalesce((select max(${quoteIdent(column)}) from ${quoteIdent(table.name)}), 0) + 1, false)`, [sequence[0].s]);
        }
      }
      await client.query('commit');
    } catch (error) {
      await client.query('rollback').catch(() => {});
      throw error;
    } finally {
      client.release();
    }
    const { error } = await migrator.migrateToLatest();
    if (error) throw new Error(`migrating the restored database failed: ${String(error)}`);

    if (manifest.index.present) {
      fs.mkdirSync(config.indexDir, { recursive: true });
      fs.cpSync(path.join(from, 'index'), config.indexDir, { recursive: true });
    }
    const client2 = await pool.connect();
    let restored: BackupManifest['counts'];
    try {
      restored = await counts(client2);
    } finally {
      client2.release();
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
