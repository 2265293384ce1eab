/**
 * HTTP throughput of POST /v2/search (exact query, a subscriber with credits: every request
 * checks the key, counts the search, charges a credit with a ledger row and searches)
 * against the machine's Fastify floor (the same 20-row JSON reply with no work), measured
 * side by side with wrk. Target (benchmark.md): ≥ 50% of the floor.
 *
 *   npm run loadtest -- [--seconds 10] [--connections 32] [--records 100000] [--customers 200]
 *
 * Uses DATABASE_URL when set, else an embedded PostgreSQL in a temporary DATA_DIR.
 * Only loopback addresses are targeted.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import net from 'node:net';
import { spawn, spawnSync } from 'node:child_process';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../server/src/config';
import { startRuntime } from '../server/src/runtime';
import { hashPassword } from '../server/src/auth/passwords';
import { applyGrant, insertUser } from '../server/src/users/user-repository';
import { createUserService } from '../server/src/users/user-service';
import { ingestRecords } from '../scripts/lib/ingest-records';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '10' },
    connections: { type: 'string', default: '32' },
    records: { type: 'string', default: '100000' },
    customers: { type: 'string', default: '200' },
  },
});
const seconds = Number(values.seconds);
const connections = Number(values.connections);
const recordCount = Number(values.records);
const customers = Number(values.customers);

if (spawnSync('wrk', ['--version']).error) {
  process.stderr.write('wrk is needed: apt-get install -y wrk\n');
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

/** Runs wrk as a child process; asynchronously, since the server under test lives in this process. */
async function wrk(url: string, env: Record<string, string> = {}, script?: string): Promise<number> {
  const args = ['-t2', `-c${connections}`, `-d${seconds}s`, ...(script ? ['-s', script] : []), url];
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
const port = await freePort();
const config = loadConfig({
  ...process.env,
  // Not production: that refuses the sandbox payment providers, and changes nothing measured here.
  NODE_ENV: 'development',
  PORT: String(port),
  DATA_DIR: dataDir,
  EMBEDDED_PG_PORT: String(await freePort()),
  LOG_LEVEL: 'warn',
  API_RATE_PER_SECOND: '10000',
  API_RATE_BURST: '100000',
  SEARCH_DAILY_LIMIT: '10000000',
});
const runtime = await startRuntime(config, { mailConsole: null, logStream: fs.createWriteStream('/dev/null') });
const floor = spawn(process.execPath, ['--import', 'tsx', path.join(HERE, 'floor-server.ts'), String(await freePort())], { stdio: ['ignore', 'pipe', 'inherit'] });
try {
  await runtime.app.listen({ port, host: '127.0.0.1' });
  const floorPort = await new Promise<number>((resolve) => floor.stdout!.on('data', (d) => resolve(Number(/ready (\d+)/.exec(String(d))![1]))));

  process.stdout.write(`ingesting ${recordCount} records…\n`);
  const records = Array.from({ length: recordCount }, (_, i) => ({ email: `person${i}@example${i % 50}.com`, username: `person${i}`, password: `pw${i % 1000}` }));
  await ingestRecords({ indexDir: config.indexDir, scratchDir: dataDir, db: runtime.db, engine: runtime.engine }, 'Load Test', records);
  // Many customers, each under the per-credential limit, as production sees them.
  const passwordHash = await hashPassword('Load-Test-Pw1');
  const keys: string[] = [];
  for (let i = 0; i < customers; i++) {
    const id = (await insertUser(runtime.db, { email: `load${i}@example.com`, passwordHash, verified: true }))!;
    await applyGrant(runtime.db, id, { searchDays: 30, searchCredits: 100_000_000 });
    keys.push(await createUserService(runtime.db).regenerateApiKey(id));
  }

  const search = { LW_BODY: JSON.stringify({ query: 'email:person4242@example42.com', size: 20 }), LW_HEADER: config.apiKeyHeader, LW_KEYS: keys.join(',') };
  const floorEnv = { LW_BODY: '{}' };
  const script = path.join(HERE, 'v2-search.lua');
  // Warm both, then measure side by side.
  await wrk(`http://127.0.0.1:${floorPort}/rows`, floorEnv, script);
  await wrk(`http://127.0.0.1:${port}/v2/search`, search, script);
  const floorRps = await wrk(`http://127.0.0.1:${floorPort}/rows`, floorEnv, script);
  const searchRps = await wrk(`http://127.0.0.1:${port}/v2/search`, search, script);
  const ratio = searchRps / floorRps;
  process.stdout.write(
    [
      `machine: ${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB; wrk -t2 -c${connections} -d${seconds}s; ${customers} API keys; ${config.DATABASE_URL ? 'DATABASE_URL' : 'embedded PostgreSQL'}`,
      `Fastify floor, 20-row JSON reply   ${floorRps.toFixed(0).padStart(8)} req/s`,
      `POST /v2/search exact, 20 rows     ${searchRps.toFixed(0).padStart(8)} req/s`,
      `ratio ${(ratio * 100).toFixed(1)}% of the floor (target ≥ 50%): ${ratio >= 0.5 ? 'met' : 'NOT met'}`,
    ].join('\n') + '\n',
  );
} finally {
  floor.kill();
  await runtime.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
