import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promises as fs } from 'node:fs';
import pg from 'pg';
import { FileMigrationProvider, Kysely, Migrator, PostgresDialect } from 'kysely';
import type { Database } from '../db/schema';
import type { Config } from '../config';
import { startEmbeddedPostgres, type EmbeddedDatabase } from './embedded-postgres';

// Bigint columns (counts) come back as strings by default; ours fit in a double.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

export const MIGRATIONS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../migrations');

export interface DatabaseHandle {
  db: Kysely<Database>;
  pool: pg.Pool;
  connectionString: string;
  /** Closes the pool and, in embedded mode, stops PostgreSQL cleanly. */
  close(): Promise<void>;
}

export function createPool(
  connectionString: string,
  options: { max?: number; statementTimeoutMs?: number; onError?: (error: Error) => void } = {},
) {
  const pool = new pg.Pool({
    connectionString,
    max: options.max ?? 10,
    connectionTimeoutMillis: 5000,
    idleTimeoutMillis: 30_000,
    statement_timeout: options.statementTimeoutMs,
  });
  // An idle client dropped by the server (restart, failover, shutdown) is an event to
  // log, not a crash: the pool replaces it on the next query.
  pool.on('error', (error) => options.onError?.(error));
  return pool;
}

export async function migrateToLatest(db: Kysely<any>): Promise<void> {
  const migrator = new Migrator({
    db,
    provider: new FileMigrationProvider({ fs, path, migrationFolder: MIGRATIONS_DIR }),
  });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    throw new Error(`Migration failed${failed ? ` at ${failed.migrationName}` : ''}: ${String(error)}`);
  }
}

/**
 * Opens the configured database: DATABASE_URL, or embedded PostgreSQL under DATA_DIR.
 * Runs migrations. The caller owns the handle and must close it.
 */
export async function openDatabase(
  config: Config,
  log: (line: string) => void = () => {},
): Promise<DatabaseHandle> {
  let embedded: EmbeddedDatabase | undefined;
  let connectionString = config.DATABASE_URL;
  if (!connectionString) {
    embedded = await startEmbeddedPostgres(config.dataDir, config.EMBEDDED_PG_PORT, log);
    connectionString = embedded.connectionString;
  }
  const pool = createPool(connectionString, {
    max: config.DB_POOL_SIZE,
    statementTimeoutMs: config.DB_STATEMENT_TIMEOUT_MS,
    onError: (error) => log(`pool: ${error.message}`),
  });
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  try {
    await migrateToLatest(db);
  } catch (error) {
    await db.destroy();
    await embedded?.stop();
    throw error;
  }
  return {
    db,
    pool,
    connectionString,
    async close() {
      await db.destroy();
      await embedded?.stop();
    },
  };
}
