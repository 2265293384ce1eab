/**
 * For operator CLIs (admin, ingest): open the configured database, run `fn`, close.
 * Works whether or not the server is running: with DATABASE_URL both talk to the same
 * server; on the embedded default, when the server already runs PostgreSQL on
 * EMBEDDED_PG_PORT, the CLI connects to it instead of starting a second one.
 */
import net from 'node:net';
import { Kysely, PostgresDialect } from 'kysely';
import { loadConfig, type Config } from '../config';
import { createPool, migrateToLatest, openDatabase } from '../infra/database';
import { embeddedConnectionString } from '../infra/embedded-postgres';
import type { Database } from './schema';

/** True when something accepts connections on 127.0.0.1:`port` (the embedded PostgreSQL of a running server). */
export function isListening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

export async function withDatabase<T>(fn: (db: Kysely<Database>, config: Config) => Promise<T>, config = loadConfig()): Promise<T> {
  if (!config.DATABASE_URL && (await isListening(config.EMBEDDED_PG_PORT))) {
    const pool = createPool(embeddedConnectionString(config.dataDir, config.EMBEDDED_PG_PORT), { max: 2, onError: () => {} });
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    try {
      await migrateToLatest(db);
      return await fn(db, config);
    } finally {
      await db.destroy();
    }
  }
  const handle = await openDatabase(config);
  try {
    return await fn(handle.db, config);
  } finally {
    await handle.close();
  }
}
