/**
 * Every command the documentation shows runs, as a user types it, on the embedded default
 * with nothing configured, so a documented command cannot break unseen.
 *
 * The documented commands are the `npm …` lines of the fenced sh blocks of README.md and
 * docs/*.md, and of the indented code blocks of loadtest/README.md (README links it as the
 * load test's documentation). Each maps to a smoke case by its key (`admin user:create`,
 * `ingest`, `loadtest --scenario floor`: see commandKey); a documented command without a
 * case fails the first test, naming it (a new admin command in the README, such as
 * `domain:verify`, gets its case here when it lands). The README's other developer commands
 * (typecheck, lint, build:*, test:e2e, test:engine-rust) are prose, not sh blocks: .ci/run
 * runs the ones CI needs itself. Each case runs the `npm run …` form with the
 * smallest arguments that do the work end to end, and asserts its exit status and a line
 * of its output that only the work prints (help text exits 0 too).
 *
 * Nothing configured: every setting of the config schema and TEST_DATABASE_URL /
 * TEST_REDIS_URL are removed from the commands' environment; each gets a temporary
 * DATA_DIR (removed at the end), a free PORT and a free EMBEDDED_PG_PORT, so nothing
 * touches ./data or the machine's PostgreSQL and Redis. `npm start` runs once: the admin
 * commands and the ingests find its embedded PostgreSQL through DATA_DIR and
 * EMBEDDED_PG_PORT, as the README says; one admin command runs again after the SIGTERM,
 * starting the embedded PostgreSQL itself.
 *
 * Peers: `npm run bench`'s PostgreSQL peer and `npm run bench:whois` need a PostgreSQL
 * server by nature. They get the embedded one `npm start` runs (its URL as `--pg-url` /
 * `--database-url`), not the machine's: nothing to skip when TEST_DATABASE_URL is unset,
 * and their tables and `whois_bench` database vanish with the temporary DATA_DIR. The bench's
 * other peers are installed by a fresh machine's setup: better-sqlite3 by package.json,
 * ripgrep (`rg`) by .ci/run's Debian packages; a missing one fails the case.
 *
 * `npm test` itself has no smoke case: it is this run. `npm run build` runs after it built
 * everything (nothing to do, it says so); `npm run serve` runs after `npm start` stopped, on
 * its DATA_DIR. `npm run whois-bootstrap` needs
 * the network: offline it must say so and exit 1; online it rewrites the shipped RDAP
 * snapshot, which this test puts back.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import pg from 'pg';
import { ConfigSchema } from '../../server/src/config';
import { embeddedConnectionString } from '../../server/src/infra/embedded-postgres';
import { packForgot, packLogin } from '../../server/src/common/obfuscation';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const DOCUMENTATION = [
  'README.md',
  ...fs
    .readdirSync(path.join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => path.join('docs', name)),
  'loadtest/README.md',
];

/** An `npm` command line, after any leading `NAME=value` settings. */
const NPM_COMMAND = /^(?:[A-Z_][A-Z0-9_]*=\S+\s+)*(npm\s+(?:start|test|run)\b.*)$/;

/**
 * The `npm …` commands of a markdown text: in fenced sh/bash/shell blocks (a trailing
 * backslash continues a line; `#` starts a comment), and on indented code lines
 * (four spaces) outside fences.
 */
export function documentedCommands(markdown: string): string[] {
  const commands: string[] = [];
  let fence: string | null = null;
  let pending = '';
  for (const line of markdown.split('\n')) {
    const opening = /^\s*```(\w*)/.exec(line);
    if (opening) {
      fence = fence === null ? opening[1]! : null;
      continue;
    }
    let text: string;
    if (fence !== null) {
      if (!['sh', 'bash', 'shell'].includes(fence)) continue;
      text = pending + line.replace(/\s#\s.*$/, '').trim();
    } else if (line.startsWith('    ')) text = line.trim();
    else continue;
    if (text.endsWith('\\')) {
      pending = text.slice(0, -1) + ' ';
      continue;
    }
    pending = '';
    const npm = NPM_COMMAND.exec(text);
    if (npm) commands.push(npm[1]!.replace(/\s+/g, ' '));
  }
  return commands;
}

/**
 * The smoke case a command maps to: `start`, `test`, the script name (`ingest`), the admin
 * subcommand (`admin user:create`), and the mode a flag selects (`whois-ingest --samples`,
 * `loadtest --scenario floor`). Options in brackets are optional, so never part of a key.
 */
export function commandKey(command: string): string {
  const words = command.replace(/\[[^\]]*\]/g, ' ').trim().split(/\s+/);
  if (words[1] !== 'run') return words[1]!;
  const script = words[2]!;
  const rest = words.slice(words.indexOf('--') + 1 || words.length);
  if (script === 'admin') return `admin ${rest[0] ?? ''}`.trim();
  const scenario = rest.indexOf('--scenario');
  if (scenario >= 0 && rest[scenario + 1]) return `${script} --scenario ${rest[scenario + 1]}`;
  if (rest.includes('--samples')) return `${script} --samples`;
  return script;
}

function documentedKeys(): Map<string, string> {
  const keys = new Map<string, string>();
  for (const file of DOCUMENTATION) {
    for (const command of documentedCommands(fs.readFileSync(path.join(ROOT, file), 'utf8'))) keys.set(commandKey(command), `${file}: ${command}`);
  }
  return keys;
}

// ---------------------------------------------------------------------------------------
// Running commands

interface Finished {
  code: number | null;
  /** stdout and stderr, interleaved as written. */
  out: string;
}

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'lw-commands-'));
fs.chmodSync(scratch, 0o755); // the embedded PostgreSQL runs as another user when we are root
const dataDir = path.join(scratch, 'data');

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** The process environment without any setting: the embedded default, nothing configured. */
function unconfigured(settings: Record<string, string>): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of [...Object.keys(ConfigSchema.properties), 'TEST_DATABASE_URL', 'TEST_REDIS_URL']) delete env[name];
  return { ...env, ...settings };
}

let env: NodeJS.ProcessEnv;
const children = new Set<number>();

/** Starts `npm args…` in its own process group (so a timeout or the end takes its children too). */
function npm(args: string[], output: (text: string) => void, extraEnv: NodeJS.ProcessEnv = {}) {
  const child = spawn('npm', args, { cwd: ROOT, env: { ...env, ...extraEnv }, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child.pid!);
  child.stdout.on('data', (d: Buffer) => output(d.toString()));
  child.stderr.on('data', (d: Buffer) => output(d.toString()));
  // 'close': every process that holds its output is gone, not only npm.
  const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('close', (code, signal) => {
      children.delete(child.pid!);
      resolve({ code, signal });
    }),
  );
  return { child, closed };
}

async function run(args: string[], timeoutMs = 120_000, extraEnv: NodeJS.ProcessEnv = {}): Promise<Finished> {
  let out = '';
  const { child, closed } = npm(args, (text) => (out += text), extraEnv);
  const timer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), timeoutMs);
  const { code } = await closed;
  clearTimeout(timer);
  return { code, out };
}

const times = new Map<string, number>();

/** Runs one documented command: the exit status and one line that only its work prints. */
async function smoke(key: string, args: string[], expect: { line: RegExp; timeoutMs?: number; env?: NodeJS.ProcessEnv }): Promise<Finished> {
  const started = Date.now();
  const finished = await run(args, expect.timeoutMs, expect.env);
  times.set(key, (times.get(key) ?? 0) + (Date.now() - started));
  const shown = `npm ${args.join(' ')} exited ${finished.code}:\n${finished.out.slice(-4000)}`;
  assert.equal(finished.code, 0, shown);
  assert.match(finished.out, expect.line, shown);
  return finished;
}

// ---------------------------------------------------------------------------------------
// The server every admin command and ingest talks to (`npm start`)

let server: ReturnType<typeof npm> | undefined;
let serverOut = '';
let url = '';
let embeddedPort = 0;
/** The running server's embedded PostgreSQL, with the password it made at its first start (DATA_DIR/postgres-password). */
const embeddedUrl = () => embeddedConnectionString(dataDir, embeddedPort);

async function waitFor(what: string, check: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function http(method: string, route: string, body?: unknown, token?: string): Promise<any> {
  const response = await fetch(url + route, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...(token ? { authorization: `Bearer ${token}` } : {}) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  assert.ok(response.ok, `${method} ${route}: ${response.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

async function query<T>(sql: string, params: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: embeddedUrl() });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows as T[];
  } finally {
    await client.end();
  }
}

// ---------------------------------------------------------------------------------------

const EMAIL = 'smoke@example.com';
const PASSWORD = 'Smoke-Test-Pw1';

/** The smoke cases by key; `null`: no smoke run, for the reason given in the header. */
const CASES: Record<string, ((key: string) => Promise<void>) | null> = {
  start: async (key) => {
    // Up here; SIGTERM and a clean exit in the last server test (timed with it).
    const started = Date.now();
    await waitFor('npm start to print its URL', () => /is running at http:\/\/localhost:\d+/.test(serverOut), 180_000);
    const live = await fetch(`${url}/livez`);
    assert.equal(live.status, 200);
    times.set(key, Date.now() - started);
  },
  test: null,
  // Everything current after `npm test`'s own build: it checks, builds nothing, says so.
  build: (key) => smoke(key, ['run', 'build'], { line: /^Built: dist\/ \(server, admin, ingest, whois-ingest, web\) and engine\/build\/engine\.node$/m }).then(() => undefined),
  serve: async (key) => {
    // After `npm start` stopped: the built server on the same DATA_DIR, then SIGTERM to npm.
    const started = Date.now();
    let out = '';
    const serve = npm(['run', 'serve'], (text) => (out += text));
    await waitFor('npm run serve to print its URL', () => /is running at http:\/\/localhost:\d+/.test(out), 120_000);
    assert.equal((await fetch(`${url}/livez`)).status, 200);
    serve.child.kill('SIGTERM');
    const { code, signal } = await serve.closed;
    assert.ok(code === 0 || signal === 'SIGTERM', `npm ended with ${code ?? signal}:\n${out.slice(-4000)}`);
    assert.match(out, /"msg":"shutting down"/, out.slice(-4000));
    assert.ok(!fs.existsSync(path.join(dataDir, 'postgres', 'postmaster.pid')), 'the embedded PostgreSQL stopped');
    times.set(key, Date.now() - started);
  },
  'admin user:create': (key) =>
    smoke(key, ['run', 'admin', '--', 'user:create', '--email', EMAIL, '--password', PASSWORD, '--verified', '--search-days', '30', '--search-credits', '100', '--api-key'], {
      line: /^Created smoke@example\.com \([0-9a-f-]{36}\)$/m,
    }).then(() => undefined),
  'admin user:grant': (key) => smoke(key, ['run', 'admin', '--', 'user:grant', '--email', EMAIL, '--whois-credits', '5'], { line: /^Updated smoke@example\.com /m }).then(() => undefined),
  'admin outbox': async (key) => {
    // One mail to list: a password reset asked over HTTP (mailed after the answer).
    await http('POST', '/authentication/forgot-password', packForgot(EMAIL));
    await waitFor('the reset mail', async () => (await query('select id from outbox where to_address = $1', [EMAIL])).length > 0, 30_000);
    await smoke(key, ['run', 'admin', '--', 'outbox', '--to', EMAIL, '--limit', '5'], { line: /^#\d+ \S+ to smoke@example\.com: /m });
  },
  'admin event-code:create': (key) =>
    smoke(key, ['run', 'admin', '--', 'event-code:create', '--code', 'SMOKE-33', '--grant', 'search-credits:10', '--uses', '2'], {
      line: /^Created event code SMOKE-33: 10 × search-credits; 2 use\(s\)$/m,
    }).then(() => undefined),
  'admin product:set': (key) =>
    smoke(key, ['run', 'admin', '--', 'product:set', '--sku', 'search-credits', '--price', '0.05'], { line: /^search-credits: \$0\.05 per unit from the next checkout$/m }).then(() => undefined),
  'admin banner:set': (key) => smoke(key, ['run', 'admin', '--', 'banner:set', '--message', '<b>Smoke</b>'], { line: /^[0-9a-f-]{36}$/m }).then(() => undefined),
  'admin banner:clear': (key) => smoke(key, ['run', 'admin', '--', 'banner:clear'], { line: /^Banner cleared\.$/m }).then(() => undefined),
  'admin domain:verify': (key) =>
    smoke(key, ['run', 'admin', '--', 'domain:verify', '--email', EMAIL, '--domain', 'Smoke.Example'], { line: /^smoke\.example verified for smoke@example\.com \(operator\)\.$/m }).then(() => undefined),
  'admin user:list': (key) =>
    smoke(key, ['run', 'admin', '--', 'user:list', '--query', 'smoke@'], { line: /^smoke@example\.com {2}\| {2}created \d{4}-\d{2}-\d{2} {2}\| {2}verified {2}\| /m }).then(() => undefined),
  'admin user:set-le': (key) =>
    smoke(key, ['run', 'admin', '--', 'user:set-le', '--email', EMAIL, '--reference', 'KYC-SMOKE-1'], { line: /^Law-enforcement status set \(smoke@example\.com, /m }).then(() => undefined),
  'admin user:unset-le': (key) =>
    smoke(key, ['run', 'admin', '--', 'user:unset-le', '--email', EMAIL], { line: /^Law-enforcement status removed \(smoke@example\.com, /m }).then(() => undefined),
  'admin user:suspend': async (key) => {
    await smoke(key, ['run', 'admin', '--', 'user:suspend', '--email', EMAIL, '--reason', 'smoke test'], { line: /^Suspended \(smoke@example\.com, /m });
    // Its sessions ended: the next sign-in (after user:unsuspend) makes a new one.
    token = '';
  },
  'admin user:unsuspend': (key) =>
    smoke(key, ['run', 'admin', '--', 'user:unsuspend', '--email', EMAIL], { line: /^Unsuspended \(smoke@example\.com, /m }).then(() => undefined),
  'admin audit:list': (key) =>
    smoke(key, ['run', 'admin', '--', 'audit:list', '--since', '2026-01-01'], { line: /^#\d+ \S+Z \S+ user:suspend smoke@example\.com \(reason: "smoke test"\)/m }).then(() => undefined),
  'admin user:reset-2fa': (key) =>
    smoke(key, ['run', 'admin', '--', 'user:reset-2fa', '--email', EMAIL, '--reason', 'smoke'], {
      line: /^Two-factor reset for smoke@example\.com: TOTP was off, 0 passkey\(s\) and 0 recovery code\(s\) removed\.$/m,
    }).then(() => undefined),
  'admin payment:simulate': async (key) => {
    const invoice = await http('POST', '/payments/crypto-invoice', { sku: 'search-credits', quantity: 100 }, await signIn());
    await smoke(key, ['run', 'admin', '--', 'payment:simulate', '--invoice', invoice.id], { line: new RegExp(`^Simulated settled for invoice ${invoice.id} `, 'm') });
    await waitFor('the simulated payment applied', async () => (await query<{ status: string }>('select status from payments where id = $1', [invoice.id]))[0]?.status === 'paid', 30_000);
  },
  'admin payment:renew': async (key) => {
    const paymentId = await payByCard('search-sub-monthly');
    const [sub] = await query<{ id: string }>('select provider_subscription_id as id from payments where id = $1', [paymentId]);
    assert.ok(sub?.id, 'the sandbox subscription id');
    await smoke(key, ['run', 'admin', '--', 'payment:renew', '--subscription', sub.id], { line: /^Renewal sent \(event \S+\); the server applies it\.$/m });
  },
  'admin payment:refund': async (key) => {
    const paymentId = await payByCard('search-credits', 10);
    await smoke(key, ['run', 'admin', '--', 'payment:refund', '--payment', paymentId], { line: /^Refund sent \(event \S+\); the server applies it\.$/m });
    await waitFor('the refund applied', async () => (await query<{ status: string }>('select status from payments where id = $1', [paymentId]))[0]?.status === 'refunded', 30_000);
  },
  ingest: async (key) => {
    // Each input format, and gzip, in one run (each file's format found by --format auto,
    // the default) into the running server's index (DATA_DIR/index).
    const dumps = path.join(scratch, 'dumps');
    fs.mkdirSync(dumps, { recursive: true });
    const files = {
      'dump.jsonl': '{"email":"alice@smoke.test","password":"hunter2"}\n{"email":"bob@smoke.test","username":"bob"}\n',
      'dump.csv': 'email,username,password\ncarol@smoke.test,carol,pw1\ndave@smoke.test,dave,pw2\n',
      'dump.txt': 'erin@smoke.test:pw3\nfrank@smoke.test:pw4\n',
      'dump.jsonl.gz': gzipSync('{"email":"grace@smoke.test"}\n'),
    };
    for (const [name, content] of Object.entries(files)) fs.writeFileSync(path.join(dumps, name), content);
    const args = ['--well', 'Smoke', '--date', '2026-01-02', '--description', 'smoke test', '--sensitive', ...Object.keys(files).map((name) => path.join(dumps, name))];
    const { out } = await smoke(key, ['run', 'ingest', '--', ...args], { line: /^records: {5}7 in /m });
    for (const line of [/\/dump\.jsonl: jsonl, 2 records, 0 bad$/m, /\/dump\.csv: csv, 2 records, 0 bad$/m, /\/dump\.txt: combo, 2 records, 0 bad$/m, /\/dump\.jsonl\.gz: jsonl \(gzip\), 1 records, 0 bad$/m]) {
      assert.match(out, line);
    }
    // Recorded in the running server's catalogue.
    assert.deepEqual(await query('select records::int, is_sensitive from data_wells where name = $1', ['Smoke']), [{ records: 7, is_sensitive: true }]);
  },
  'admin well:list': (key) => smoke(key, ['run', 'admin', '--', 'well:list'], { line: /^Smoke\n {2}records 7, date 2026-01-02, sensitive, ingested \S+, index [\d,]+ bytes$/m }).then(() => undefined),
  'admin well:update': async (key) => {
    await smoke(key, ['run', 'admin', '--', 'well:update', '--well', 'Smoke', '--description', 'smoke test, corrected', '--no-sensitive'], { line: /^Smoke: updated description, sensitive\.$/m });
    assert.deepEqual(await query('select description, is_sensitive from data_wells where name = $1', ['Smoke']), [{ description: 'smoke test, corrected', is_sensitive: false }]);
  },
  'admin well:delete': async (key) => {
    // A well of its own, taken down and purged; the Smoke well stays.
    const file = path.join(scratch, 'takedown.jsonl');
    fs.writeFileSync(file, '{"email":"gone@smoke.test"}\n');
    await smoke('ingest', ['run', 'ingest', '--', '--well', 'Smoke Takedown', file], { line: /^records: {5}1 in /m });
    await smoke(key, ['run', 'admin', '--', 'well:delete', '--well', 'Smoke Takedown', '--reason', 'smoke', '--purge'], { line: /^purged: 1 segment\(s\) dropped, 0 rewritten; index /m });
    assert.deepEqual(await query('select name from data_wells order by name'), [{ name: 'Smoke' }]);
    assert.deepEqual(await query("select action, target, reason from audit_log where action = 'well:delete'"), [{ action: 'well:delete', target: 'Smoke Takedown', reason: 'smoke' }]);
  },
  'admin index:upgrade': async (key) => {
    // While the server serves: its index is current; a copy of a format 6 index is upgraded
    // and audited.
    await smoke(key, ['run', 'admin', '--', 'index:upgrade'], { line: /^Every segment is in format 12 already: nothing to upgrade \(\d+ segments?\)\.$/m });
    const old = path.join(scratch, 'format6-index');
    fs.cpSync(path.join(ROOT, 'engine', 'test', 'fixtures', 'format6', 'index'), old, { recursive: true });
    await smoke(key, ['run', 'admin', '--', 'index:upgrade', '--index-dir', old], { line: /^0mwu9jz0hmaywz: format 6 -> 12 as \w+, 404 records$/m });
    assert.deepEqual(await query("select action, target from audit_log where action = 'index:upgrade'"), [{ action: 'index:upgrade', target: old }]);
  },
  'admin backup': async (key) => {
    // After the ingest: the running server's accounts and the Smoke well's records.
    const { out } = await smoke(key, ['run', 'admin', '--', 'backup', '--out', path.join(scratch, 'backup')], { line: /^Backup written to \S+: [1-9]\d* accounts, .* data wells; index [1-9]\d* segments, [1-9]\d* records, \d+ bytes$/m });
    assert.ok(fs.existsSync(path.join(scratch, 'backup', 'backup.json')), out);
  },
  'admin restore': async (key) => {
    // With the server stopped, into a new empty DATA_DIR on another port: the backup's counts come back.
    const manifest = JSON.parse(fs.readFileSync(path.join(scratch, 'backup', 'backup.json'), 'utf8')) as { counts: { accounts: number; catalogue_records: number } };
    const restoredDir = path.join(scratch, 'restored');
    await smoke(key, ['run', 'admin', '--', 'restore', '--from', path.join(scratch, 'backup')], {
      line: new RegExp(`^Restored the backup of \\S+: ${manifest.counts.accounts} accounts, .* records$`, 'm'),
      env: { DATA_DIR: restoredDir, EMBEDDED_PG_PORT: String(await freePort()) },
    });
    assert.ok(fs.existsSync(path.join(restoredDir, 'index', 'MANIFEST')));
  },
  'whois-ingest': async (key) => {
    const file = path.join(scratch, 'pdns.ndjson');
    fs.writeFileSync(file, '{"rrname": "smoke.test", "rrtype": "A", "rdata": "192.0.2.33", "time_first": 1546300800, "time_last": 1767225600, "count": 3}\n');
    await smoke(key, ['run', 'whois-ingest', '--', '--format', 'pdns', file], { line: /imported: 1 records \(1 passive DNS rows/ });
  },
  'whois-ingest --samples': (key) => smoke(key, ['run', 'whois-ingest', '--', '--samples'], { line: /imported: \d+ records/ }).then(() => undefined),
  'ingest --samples': async (key) => {
    // The sample wells of samples/breaches into the running server's index and catalogue.
    await smoke(key, ['run', 'ingest', '--', '--samples'], { line: /^samples: 10 wells ingested \(1,142 records\), 0 already there$/m });
    const wells = await query<{ name: string; is_stealer_log: boolean }>("select name, is_stealer_log from data_wells where name <> 'Smoke' order by name");
    assert.equal(wells.length, 10, JSON.stringify(wells));
    assert.deepEqual(wells.filter((w) => w.is_stealer_log).map((w) => w.name), ['Nightjar Stealer Logs']);
  },
  bench: async (key) => {
    // Every peer in one run (the default --peers), the PostgreSQL one on the embedded server.
    const out = await smoke(key, ['run', 'bench', '--', '--records', '2000', '--dir', path.join(scratch, 'bench'), '--pg-url', embeddedUrl()], {
      line: /^\| exact email \(1 hit\) \| 1 \| /m,
      timeoutMs: 240_000,
    });
    const row = out.out.split('\n').find((line) => line.startsWith('| exact email (1 hit) |'))!;
    // engine, repeat, PostgreSQL, ratio, SQLite FTS5, ratio, ripgrep, ratio: every peer measured.
    const cells = row.split('|').slice(3, 11).map((cell) => cell.trim());
    for (const [i, peer] of [[2, 'PostgreSQL'], [4, 'SQLite FTS5'], [6, 'ripgrep']] as const) assert.match(cells[i]!, /\d/, `${peer} measured in: ${row}`);
  },
  'bench:whois': (key) =>
    smoke(key, ['run', 'bench:whois', '--', '--database-url', embeddedUrl(), '--scale', '0.001', '--runs', '3', '--drop'], { line: /^\| reverse IP /m, timeoutMs: 180_000 }).then(() => undefined),
  'whois-bootstrap': async (key) => {
    const snapshot = path.join(ROOT, 'server/src/whois/live/rdap-bootstrap.json');
    const shipped = fs.readFileSync(snapshot);
    const started = Date.now();
    const finished = await run(['run', 'whois-bootstrap']);
    times.set(key, Date.now() - started);
    fs.writeFileSync(snapshot, shipped);
    if (finished.code === 0) assert.match(finished.out, /^wrote .*rdap-bootstrap\.json$/m, finished.out);
    else {
      assert.equal(finished.code, 1, finished.out);
      assert.match(finished.out, /^whois-bootstrap: cannot reach https:\/\/\S+ over the network \(.+\); the shipped snapshot is unchanged$/m);
    }
  },
  corpus: (key) =>
    smoke(key, ['run', 'corpus', '--', '--records', '2000', '--seed', '1', '--out', path.join(scratch, 'corpus')], { line: /^corpus: 2,000 records, \d+ sources, /m }).then(() => undefined),
  loadtest: (key) =>
    // The three scenarios in one run (the default, all), as small as they go.
    smoke(key, ['run', 'loadtest', '--', '--seconds', '2', '--records', '2000', '--keys', '5', '--users', '2', '--clients', '10'], {
      line: /^api-keys: [^]*^ {2}ok$[^]*^dashboard: [^]*^ {2}ok$[^]*^one-key: [^]*^ {2}ok$/m,
      timeoutMs: 180_000,
    }).then(() => undefined),
  'loadtest --scenario floor': (key) =>
    smoke(key, ['run', 'loadtest', '--', '--scenario', 'floor', '--seconds', '2', '--records', '2000', '--customers', '5', '--connections', '4'], {
      line: /^throughput: .*: (met|missed)$/m,
      timeoutMs: 180_000,
    }).then(() => undefined),
  'loadtest --scenario serve': async (key) => {
    const fixtures = path.join(scratch, 'k6', 'fixtures.json');
    const port = await freePort();
    const started = Date.now();
    let out = '';
    const serve = npm(['run', 'loadtest', '--', '--scenario', 'serve', '--port', String(port), '--fixtures', fixtures, '--records', '2000', '--keys', '2', '--users', '1'], (text) => (out += text));
    try {
      await waitFor('the k6 commands', () => /^Ctrl-C stops the server\.$/m.test(out), 120_000);
      assert.match(out, new RegExp(`^ {2}k6 run -e BASE_URL=http://127\\.0\\.0\\.1:${port} -e FIXTURES=${fixtures} loadtest/one-key\\.k6\\.js$`, 'm'));
      assert.equal(JSON.parse(fs.readFileSync(fixtures, 'utf8')).keys.length, 2);
      assert.equal((await fetch(`http://127.0.0.1:${port}/livez`)).status, 200);
    } finally {
      // Ctrl-C, as it says: SIGINT to the terminal's whole process group.
      process.kill(-serve.child.pid!, 'SIGINT');
    }
    const { code, signal } = await serve.closed;
    assert.ok(code === 0 || signal === 'SIGINT', `npm ended with ${code ?? signal}:\n${out}`);
    assert.ok(!fs.existsSync(fixtures), 'the fixtures file is removed at exit');
    times.set(key, Date.now() - started);
  },
};

let token = '';
async function signIn(): Promise<string> {
  if (!token) token = (await http('POST', '/authentication/login', packLogin({ email: EMAIL, password: PASSWORD, remember: false }))).auth_token;
  return token;
}

/** A sandbox card payment, paid through the overlay's Pay (as the browser does); its id. */
async function payByCard(sku: string, quantity = 1): Promise<string> {
  const { checkout_id: id } = await http('POST', '/payments/checkout', { sku, quantity }, await signIn());
  await http('POST', `/sandbox/checkouts/${id}/pay`);
  await waitFor(`${sku} paid`, async () => (await query<{ status: string }>('select status from payments where id = $1', [id]))[0]?.status === 'paid', 30_000);
  return id;
}

// ---------------------------------------------------------------------------------------

test('every documented command has a smoke case', (t) => {
  const documented = documentedKeys();
  t.diagnostic(`documented: ${[...documented.keys()].join(', ')}`);
  assert.ok(documented.has('start') && documented.has('admin user:create'), `the parser finds the README's commands: ${[...documented.keys()].join(', ')}`);
  const missing = [...documented].filter(([key]) => !(key in CASES)).map(([key, where]) => `${key} (${where})`);
  assert.deepEqual(missing, [], `documented commands without a smoke case in scripts/test/commands.test.ts:\n${missing.join('\n')}`);
});

test('the command parser: continuation lines, comments, optional options, modes', () => {
  const markdown = [
    '```sh',
    'npm run admin -- user:create --email E --password P [--verified] \\',
    '    [--json]                 # a comment',
    'npm run loadtest -- [--scenario all] --seconds 2',
    'REDIS_URL=redis://x npm run loadtest -- --scenario floor --rounds 3',
    'npm start   # runs it',
    '```',
    '```js',
    'npm run not-a-command',
    '```',
    '    npm run whois-ingest -- --samples',
  ].join('\n');
  const commands = documentedCommands(markdown);
  assert.deepEqual(commands.map(commandKey), ['admin user:create', 'loadtest', 'loadtest --scenario floor', 'start', 'whois-ingest --samples']);
  assert.equal(commands[0], 'npm run admin -- user:create --email E --password P [--verified] [--json]');
});

describe('documented commands, on the embedded default with nothing configured', { concurrency: false }, () => {
  before(async () => {
    const port = await freePort();
    const pgPort = await freePort();
    env = unconfigured({ DATA_DIR: dataDir, PORT: String(port), EMBEDDED_PG_PORT: String(pgPort) });
    url = `http://127.0.0.1:${port}`;
    embeddedPort = pgPort;
    server = npm(['start'], (text) => (serverOut += text));
  });

  after(async () => {
    for (const pid of children) {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    fs.rmSync(scratch, { recursive: true, force: true });
    const width = Math.max(...[...times.keys()].map((key) => key.length));
    const lines = [...times].map(([key, ms]) => `  ${key.padEnd(width)}  ${(ms / 1000).toFixed(1)} s`);
    const total = [...times.values()].reduce((sum, ms) => sum + ms, 0);
    process.stdout.write(`smoke times (load average ${os.loadavg()[0]!.toFixed(1)}):\n${lines.join('\n')}\n  ${'total'.padEnd(width)}  ${(total / 1000).toFixed(1)} s\n`);
  });

  const serverKeys = [
    'start',
    'admin user:create',
    'admin user:grant',
    'admin outbox',
    'admin event-code:create',
    'admin product:set',
    'admin banner:set',
    'admin banner:clear',
    'admin domain:verify',
    'admin user:list',
    'admin user:set-le',
    'admin user:unset-le',
    'admin user:suspend',
    'admin user:unsuspend',
    'admin audit:list',
    'admin payment:simulate',
    'admin payment:renew',
    'admin payment:refund',
    'ingest',
    'admin well:list',
    'admin well:update',
    'admin well:delete',
    'admin backup',
    'admin index:upgrade',
    'whois-ingest',
    'whois-ingest --samples',
    'ingest --samples',
    'bench',
    'bench:whois',
  ];
  for (const key of serverKeys) test(key, () => CASES[key]!(key));

  test('start: SIGTERM, a clean exit', async () => {
    const started = Date.now();
    // To npm's pid, as `kill PID` does (a terminal's Ctrl-C signals the whole group instead):
    // npm passes it to its script's shell, and start.mjs, orphaned by the shell's death,
    // passes it to the server.
    server!.child.kill('SIGTERM');
    const { code, signal } = await server!.closed;
    const shown = serverOut.slice(-4000);
    assert.ok(code === 0 || signal === 'SIGTERM', `npm ended with ${code ?? signal}:\n${shown}`);
    assert.match(serverOut, /"msg":"shutting down"/, shown);
    assert.doesNotMatch(serverOut, /Shutdown failed|Shutdown took too long/, shown);
    // PostgreSQL stopped cleanly (it removes its pid file), not left running or killed.
    assert.ok(!fs.existsSync(path.join(dataDir, 'postgres', 'postmaster.pid')), 'the embedded PostgreSQL stopped');
    times.set('start', (times.get('start') ?? 0) + (Date.now() - started));
  });

  test('admin with the server stopped: it starts the embedded PostgreSQL itself', () =>
    smoke('admin (server stopped)', ['run', 'admin', '--', 'banner:set', '--message', 'after'], { line: /^[0-9a-f-]{36}$/m }).then(() => undefined));

  for (const key of Object.keys(CASES).filter((key) => !serverKeys.includes(key) && CASES[key])) test(key, () => CASES[key]!(key));
});
