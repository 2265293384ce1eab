/**
 * The client of the bench's paced side-by-side (`npm run bench -- --paced`,
 * scripts/lib/paced-bench.ts forks it so that it has an event loop of its own, apart from
 * the server's): ONE keep-alive HTTP connection to the product, ONE `pg.Client` to the
 * bench's PostgreSQL (its `bench_records` table and indexes) and DuckDB in this process (the
 * same table read from the flat file). Each class in rounds: `GET /livez`, the class's
 * `POST /v2/search`, the PostgreSQL query and the DuckDB query, each followed by a pause of
 * `paceMs`, the sides' order rotated every round so that none always goes first. Every
 * answer is checked: 200, and the total the engine gives for the query (> 0).
 *
 * The job comes in as the first IPC message, the report goes back as one.
 */
import http from 'node:http';
import pg from 'pg';
import { duckLoadSql, duckSql } from './duck-peer';

/** One query class: the /v2/search body and the peers' statement (`select * … limit 20`). */
export interface PacedClass {
  cls: string;
  /** The JSON body of POST /v2/search. */
  body: string;
  /** The engine's total for the query (every answer must have it, and it must be > 0). */
  expectTotal: number;
  sql: string;
  params: unknown[];
}

export interface PacedJob {
  url: string;
  /** The API key header's name (config.apiKeyHeader) and the subscriber's key. */
  header: string;
  key: string;
  classes: PacedClass[];
  /** The bench's PostgreSQL (its `bench_records`); none: no PostgreSQL side. */
  pgUrl?: string;
  /** The bench's flat file, loaded into DuckDB here; none: no DuckDB side. */
  duckFlat?: string;
  paceMs: number;
  /** Rounds kept, after `warmupRounds` that are not. */
  rounds: number;
  warmupRounds: number;
}

/** A class's round trips (ms, client side) by side, kept rounds only. */
export interface PacedSamples {
  cls: string;
  livez: number[];
  search: number[];
  /** The engine's own `took` of each kept answer, µs. */
  tookMicros: number[];
  pg: number[];
  duck: number[];
  /** Rows the peers returned (the last round's). */
  pgRows: number;
  duckRows: number;
  /** Answers that were not 200 with the expected total, warm-up rounds included. */
  failures: number;
  failureSample?: string;
}

export interface PacedReport {
  classes: PacedSamples[];
  /** TCP connections the HTTP side opened (1 when keep-alive held all along). */
  connections: number;
}

type Side = 'livez' | 'search' | 'pg' | 'duck';
/** A round trip: its time, status and body, and whether it went over a connection already open. */
type Answer = { ms: number; status: number; text: string; reused: boolean };

function request(agent: http.Agent, url: URL, method: 'GET' | 'POST', path: string, headers: Record<string, string>, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const req = http.request({ host: url.hostname, port: url.port, method, path, agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ ms: Number(process.hrtime.bigint() - t0) / 1e6, status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8'), reused: req.reusedSocket }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** `took` as the API writes it ("179µs", "12ms", "1.25s") in µs; undefined when absent. */
function tookMicros(took: unknown): number | undefined {
  const m = typeof took === 'string' ? /^([\d.]+)(µs|ms|s)$/.exec(took) : null;
  if (!m) return undefined;
  return Number(m[1]) * (m[2] === 'µs' ? 1 : m[2] === 'ms' ? 1000 : 1_000_000);
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

async function time<T>(f: () => Promise<T>): Promise<[number, T]> {
  const t0 = process.hrtime.bigint();
  const v = await f();
  return [Number(process.hrtime.bigint() - t0) / 1e6, v];
}

/** The DuckDB side: the flat file loaded into an in-memory table; a statement's rows read in full. */
async function openDuck(flat: string): Promise<{ rows(sql: string, params: unknown[]): Promise<unknown[]>; close(): void }> {
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  await connection.run(duckLoadSql(flat));
  return {
    rows: async (sql, params) => (await connection.runAndReadAll(duckSql(sql), params as never)).getRowObjects(),
    close: () => connection.closeSync(),
  };
}

async function run(job: PacedJob): Promise<PacedReport> {
  const url = new URL(job.url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  let connections = 0;
  const headers = { 'content-type': 'application/json', [job.header]: job.key };
  const pgc = job.pgUrl ? new pg.Client({ connectionString: job.pgUrl }) : undefined;
  await pgc?.connect();
  const duck = job.duckFlat ? await openDuck(job.duckFlat) : undefined;
  const classes: PacedSamples[] = [];
  try {
    for (const c of job.classes) {
      const s: PacedSamples = { cls: c.cls, livez: [], search: [], tookMicros: [], pg: [], duck: [], pgRows: 0, duckRows: 0, failures: 0 };
      const fail = (what: string) => {
        s.failures++;
        s.failureSample ??= what.slice(0, 300);
      };
      /** One request of a side: its round trip, checked; whether it is kept is the caller's. */
      const once = async (side: Side, keep: boolean): Promise<void> => {
        if (side === 'livez' || side === 'search') {
          const answer = side === 'livez' ? await request(agent, url, 'GET', '/livez', {}) : await request(agent, url, 'POST', '/v2/search', headers, c.body);
          if (!answer.reused) connections++;
          if (side === 'search') {
            const reply = answer.status === 200 ? (JSON.parse(answer.text) as { total?: number; took?: string; entries?: unknown[] }) : undefined;
            if (!reply || reply.total !== c.expectTotal || !(c.expectTotal > 0) || !reply.entries?.length) fail(`${answer.status} ${answer.text}`);
            const took = tookMicros(reply?.took);
            if (keep && took !== undefined) s.tookMicros.push(took);
          } else if (answer.status !== 200) fail(`/livez ${answer.status} ${answer.text}`);
          if (keep) s[side].push(answer.ms);
          return;
        }
        const [ms, rows] = side === 'pg' ? await time(async () => (await pgc!.query(c.sql, c.params)).rows) : await time(() => duck!.rows(c.sql, c.params));
        if (side === 'pg') s.pgRows = rows.length;
        else s.duckRows = rows.length;
        if (keep) s[side].push(ms);
      };
      const sides: Side[] = ['livez', 'search', ...(pgc ? (['pg'] as const) : []), ...(duck ? (['duck'] as const) : [])];
      for (let round = 0; round < job.warmupRounds + job.rounds; round++) {
        for (let k = 0; k < sides.length; k++) {
          await once(sides[(round + k) % sides.length]!, round >= job.warmupRounds);
          await sleep(job.paceMs);
        }
      }
      classes.push(s);
    }
  } finally {
    await pgc?.end();
    duck?.close();
    agent.destroy();
  }
  return { classes, connections };
}

process.once('message', (job: PacedJob) => {
  run(job).then(
    (report) => process.send!(report, () => process.exit(0)),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
});
