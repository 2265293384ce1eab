import pg from 'pg';
import { Kysely, Migrator, PostgresDialect, type MigrationProvider } from 'kysely';
import { MIGRATIONS } from '../../../migrations/index';
import type { Database } from '../db/schema';
import type { Config } from '../config';
import { startEmbeddedPostgres, type EmbeddedDatabase } from './embedded-postgres';

// Bigint columns (counts) come back as strings by default; ours fit in a double.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

/** The migrations by name (migrations/index.ts): bundled with the built server, no folder read at run time. */
export const migrationProvider: MigrationProvider = {
  getMigrations: async () => ({ ...MIGRATIONS }),
};

export interface DatabaseHandle {
  db: Kysely<Database>;
  pool: pg.Pool;
  connectionString: string;
  /** Closes the pool and, in embedded mode, stops PostgreSQL cleanly. */
  close(): Promise<void>;
}

/** How much longer than the statement timeout the client waits for an answer before it gives up on the connection. */
const READ_GRACE_MS = 250;

/**
 * A pg client fit for a pool that must survive its database going away:
 * - pg-pool listens for errors on idle clients only (pool.query for one error at a time):
 *   a checked-out client whose socket dies (reset, a refused write) emits 'error' with no
 *   listener, which ends the process. This client always has one; the query in flight
 *   still fails with the error (a 503 for a request) and the pool drops the client on
 *   release, as it is no longer queryable.
 * - The statement timeout is enforced by the server, which cannot help when the network
 *   or the server is silent: with `query_timeout` pg gives up waiting ("Query read
 *   timeout") but keeps the connection, whose late answer would block the next query.
 *   This client is ended then, so the pool replaces it.
 * Used by every pool: ours and the job backend's.
 */
export class SafeClient extends pg.Client {
  constructor(config?: string | pg.ClientConfig) {
    super(config);
    this.on('error', () => {});
  }

  override query(...args: unknown[]): any {
    const giveUp = (error: unknown) => {
      if ((error as Error | undefined)?.message === 'Query read timeout') void this.end().catch(() => {});
    };
    const last = args.at(-1);
    if (typeof last === 'function') {
      args[args.length - 1] = (error: unknown, result: unknown) => {
        giveUp(error);
        (last as (error: unknown, result: unknown) => void)(error, result);
      };
    }
    const result = (super.query as (...a: unknown[]) => unknown)(...args);
    if (result instanceof Promise) return result.catch((error: unknown) => {
      giveUp(error);
      throw error;
    });
    return result;
  }
}

export function createPool(
  connectionString: string,
  options: { max?: number; statementTimeoutMs?: number; onError?: (error: Error) => void } = {},
) {
  const timeout = options.statementTimeoutMs;
  const pool = new pg.Pool({
    Client: SafeClient,
    connectionString,
    max: options.max ?? 10,
    // Waiting for a connection (a new one, or a free one of a busy pool) is bounded like a
    // statement: a database that does not answer makes requests fail fast, not queue up.
    connectionTimeoutMillis: timeout ? Math.max(1000, Math.min(5000, timeout)) : 5000,
    idleTimeoutMillis: 30_000,
    statement_timeout: timeout,
    ...(timeout ? { query_timeout: timeout + READ_GRACE_MS } : {}),
  });
  // An idle client dropped by the server (restart, failover, shutdown) is an event to
  // log, not a crash: the pool replaces it on the next query.
  pool.on('error', (error) => options.onError?.(error));
  return pool;
}

export async function migrateToLatest(db: Kysely<any>): Promise<void> {
  const migrator = new Migrator({
    db,
    provider: migrationProvider,
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
