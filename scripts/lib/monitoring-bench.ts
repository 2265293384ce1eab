/**
 * End-to-end monitoring benchmark (`npm run bench -- --monitoring-e2e`): the
 * server runtime (server/src/runtime.ts, the same wiring as `server.ts` and the tests:
 * segment watcher, `monitor-match` worker, `deliver` worker, mail outbox) on a scratch
 * database, users with active tasks and email channels written in bulk, then the bench
 * corpus ingested through `runIngest` (scripts/ingest.ts: engine ingest, catalogue,
 * `recordSegment` + NOTIFY), as an operator's `npm run ingest` does.
 *
 * Measured per ingest: the ingest's wall time, and from its start until the server has
 * matched the segment (every report written: `monitor_segments.matched_at` is set after
 * the last report's commit); from the database's own clock, publish
 * (`monitor_segments.published_at`) → last report (`monitor_reports.created`) and →
 * matched. Rounds alternate 0 active tasks and all tasks active (the same rows, toggled),
 * after one warm-up ingest, so page cache and index size affect both sides alike.
 *
 * Database: DATABASE_URL when set (a scratch database is created on that server and
 * dropped at the end), else embedded PostgreSQL in a temporary DATA_DIR. REDIS_URL, when
 * set, puts the queues on Redis (a namespace of their own); otherwise PostgreSQL queues.
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import pg from 'pg';
import { sql, type Kysely } from 'kysely';
import type { CorpusInfo } from '../corpus';
import { FREE_MAIL } from '../corpus';
import { rng } from './random';
import type { Database } from '../../server/src/db/schema';
import type { TaskKind } from '../../server/src/common/monitoring-rules';

export interface MonitoringE2EOptions {
  records: number;
  tasks: number;
  users: number;
  /** Every `channelEvery`-th user has an email channel (deliveries through the outbox). */
  channelEvery: number;
  rounds: number;
  seed: number;
  /** The corpus folder (flat.tsv) and its description. */
  dir: string;
  info: CorpusInfo;
  log: (s: string) => void;
}

interface IngestRun {
  label: string;
  activeTasks: number;
  ingestMs: number;
  /** Ingest start → the server marked the segment matched (seen by polling, 50 ms). */
  endToEndMs: number;
  /** Database clock: published_at → matched_at. */
  publishToMatchedMs: number;
  /** Database clock: published_at → the last report's created (null: no report). */
  publishToLastReportMs: number | null;
  reports: number;
  tasksMatched: number;
  deliveries: number;
  /** Database clock: published_at → the last delivery sent (null: none or not all sent in time). */
  publishToLastDeliveryMs: number | null;
  deliveriesSent: number;
}

const fmt = (ms: number | null) => (ms === null || Number.isNaN(ms) ? '-' : ms < 1000 ? `${ms.toFixed(0)} ms` : `${(ms / 1000).toFixed(2)} s`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s[Math.floor((s.length - 1) / 2)] as number) : NaN;
};

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

type Pools = Record<TaskKind, string[]>;

/** Values the corpus holds (every 97th line of flat.tsv), company domains for domain tasks. */
async function corpusPools(flatFile: string): Promise<Pools> {
  const pools: Pools = { email: [], username: [], phone: [], name: [], domain: [] };
  const rl = createInterface({ input: createReadStream(flatFile), crlfDelay: Infinity });
  let line = 0;
  for await (const l of rl) {
    if (line++ % 97 !== 0) continue;
    const c = l.split('\t');
    const [email, username, name, phone] = [c[1] ?? '', c[2] ?? '', c[6] ?? '', c[7] ?? ''];
    if (email) pools.email.push(email);
    if (username) pools.username.push(username);
    if (phone && phone.replace(/\D/g, '').length >= 7) pools.phone.push(phone);
    if (name) pools.name.push(name);
    const d = email.slice(email.lastIndexOf('@') + 1);
    if (d && !FREE_MAIL.includes(d)) pools.domain.push(d);
  }
  return pools;
}

/** Users, their email channels and tasks (inactive: each round turns them on or off), multi-row inserts. */
async function seed(db: Kysely<Database>, o: MonitoringE2EOptions, pools: Pools): Promise<{ tasks: number; hits: number; channels: number }> {
  const { matchValue } = await import('../../server/src/common/monitoring-rules');
  const userIds: string[] = [];
  const CHUNK = 1000;
  for (let i = 0; i < o.users; i += CHUNK) {
    const rows = Array.from({ length: Math.min(CHUNK, o.users - i) }, (_, j) => ({
      email: `bench-user-${i + j}@bench.example`,
      password_hash: 'bench-no-login',
      email_verified_at: new Date(),
    }));
    const ids = await db.insertInto('users').values(rows).returning('id').execute();
    userIds.push(...ids.map((r) => r.id));
  }
  const channels = userIds
    .map((id, i) => ({ id, i }))
    .filter(({ i }) => i % o.channelEvery === 0)
    .map(({ id, i }) => ({ user_id: id, kind: 'email' as const, value: `bench-user-${i}@bench.example` }));
  for (let i = 0; i < channels.length; i += CHUNK) await db.insertInto('notification_channels').values(channels.slice(i, i + CHUNK)).execute();

  const kinds: TaskKind[] = [];
  for (const [k, n] of [['email', 40], ['username', 25], ['phone', 15], ['name', 10], ['domain', 10]] as const) for (let i = 0; i < n; i++) kinds.push(k);
  const r = rng(o.seed + 10);
  let tasks = 0;
  let hits = 0;
  const TASK_CHUNK = 5000;
  for (let i = 0; i < o.tasks; i += TASK_CHUNK) {
    const rows = Array.from({ length: Math.min(TASK_CHUNK, o.tasks - i) }, (_, j) => {
      const n = i + j;
      const kind = kinds[n % kinds.length] as TaskKind;
      const pool = pools[kind];
      const hit = r() < 0.01 && pool.length > 0;
      const miss = { email: `nomatch.${n}@nowhere.example`, username: `nomatch_${n}`, phone: `000${String(n).padStart(12, '0')}`, name: `Nomatch Person${n}`, domain: `nomatch${n}.example` }[kind];
      const value = hit ? (pool[Math.floor(r() * pool.length)] as string) : miss;
      return { user_id: userIds[n % userIds.length] as string, kind, value, match_value: matchValue(kind, value), active: false, hit };
    });
    // A repeated value of a user and kind (a hit drawn twice) is skipped, as the API refuses it.
    const inserted = await db
      .insertInto('monitor_tasks')
      .values(rows.map(({ hit: _hit, ...row }) => row))
      .onConflict((oc) => oc.constraint('monitor_tasks_user_kind_value').doNothing())
      .returning('id')
      .execute();
    tasks += inserted.length;
    hits += rows.filter((x) => x.hit).length;
  }
  await sql`analyze`.execute(db);
  return { tasks, hits, channels: channels.length };
}

export async function monitoringE2E(o: MonitoringE2EOptions): Promise<string> {
  const { log } = o;
  const admin = process.env.DATABASE_URL;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lw-bench-mon-'));
  fs.chmodSync(dataDir, 0o755);
  let dbUrl: string | undefined;
  let dbName: string | undefined;
  if (admin) {
    dbName = `lw_bench_${randomBytes(5).toString('hex')}`;
    const c = new pg.Client({ connectionString: admin });
    await c.connect();
    await c.query(`CREATE DATABASE ${dbName}`);
    await c.end();
    const u = new URL(admin);
    u.pathname = `/${dbName}`;
    dbUrl = u.toString();
  }
  const env: Record<string, string> = {
    NODE_ENV: 'development',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    EMBEDDED_PG_PORT: String(await freePort()),
    ...(dbUrl ? { DATABASE_URL: dbUrl } : {}),
    ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}),
  };
  // runIngest's catalogue step reads the configuration from the environment, as the CLI does.
  Object.assign(process.env, env);
  if (!dbUrl) delete process.env.DATABASE_URL;
  const { loadConfig } = await import('../../server/src/config');
  const { startRuntime } = await import('../../server/src/runtime');
  const { runIngest } = await import('../ingest');
  const config = loadConfig(env);
  log(`bench --monitoring-e2e: database ${dbUrl ? `${dbName} on DATABASE_URL's server` : `embedded in ${dataDir}`}, queues on ${config.REDIS_URL ? 'Redis' : 'PostgreSQL'}, index ${config.indexDir}`);
  const warnings: string[] = [];
  const logStream = new Writable({
    write(chunk: Buffer, _e, cb) {
      const s = chunk.toString();
      warnings.push(s);
      process.stderr.write(s);
      cb();
    },
  });
  const runtime = await startRuntime(config, { logStream, mailConsole: null, namespace: `lwbench${randomBytes(3).toString('hex')}` });
  const db = runtime.db;
  const runs: IngestRun[] = [];
  const phases = { readMs: NaN, matchMs: NaN, calls: 0 };
  const seeding = { seeded: { tasks: 0, hits: 0, channels: 0 }, ms: 0 };
  try {
    // The segment watcher (LISTEN + sweep) starts when the app is ready, as a listening server's does.
    await runtime.app.ready();
    const pools = await corpusPools(path.join(o.dir, 'flat.tsv'));
    const t = performance.now();
    seeding.seeded = await seed(db, o, pools);
    seeding.ms = performance.now() - t;
    const { seeded } = seeding;
    log(`bench: ${o.users.toLocaleString('en-US')} users, ${seeded.channels} email channels, ${seeded.tasks.toLocaleString('en-US')} tasks (${seeded.hits} drawn from the corpus) written in ${fmt(seeding.ms)}`);
    const files = o.info.sources.map((s) => s.file);

    const ingestOnce = async (label: string, activeTasks: number): Promise<IngestRun> => {
      await db.updateTable('monitor_tasks').set({ active: activeTasks > 0 }).execute();
      await sql`vacuum analyze monitor_tasks`.execute(db);
      const well = `Monitoring Bench ${runs.length + 1}`;
      const t0 = performance.now();
      const res = await runIngest({ well, files, format: 'auto', date: null, description: '', sensitive: false, map: {}, indexDir: config.indexDir, maxSegments: 0, merge: false, catalogue: true });
      const t1 = performance.now();
      const segmentId = res.segmentId;
      if (!segmentId || res.records < o.records * 0.9) throw new Error(`ingest ${label}: ${res.records} records, segment ${segmentId ?? 'none'}`);
      let seg;
      for (;;) {
        seg = await db.selectFrom('monitor_segments').select(['status', 'published_at', 'matched_at', 'tasks_matched']).where('segment_id', '=', segmentId).executeTakeFirstOrThrow();
        if (seg.status === 'matched') break;
        if (performance.now() - t1 > 120_000) throw new Error(`segment ${segmentId} not matched 2 minutes after publishing`);
        await sleep(50);
      }
      const t2 = performance.now();
      const rep = await db
        .selectFrom('monitor_reports')
        .select([sql<number>`count(*)::int`.as('n'), sql<Date | null>`max(created)`.as('last')])
        .where('segment_id', '=', segmentId)
        .executeTakeFirstOrThrow();
      // Deliveries of the segment's reports: wait (up to 60 s) until none is pending.
      const deliveriesOf = () =>
        db
          .selectFrom('deliveries')
          .innerJoin('monitor_reports', 'monitor_reports.id', 'deliveries.report_id')
          .select([
            sql<number>`count(*)::int`.as('n'),
            sql<number>`count(*) filter (where deliveries.status = 'sent')::int`.as('sent'),
            sql<number>`count(*) filter (where deliveries.status = 'pending')::int`.as('pending'),
            sql<Date | null>`max(deliveries.sent_at)`.as('last'),
          ])
          .where('monitor_reports.segment_id', '=', segmentId)
          .executeTakeFirstOrThrow();
      let del = await deliveriesOf();
      for (const until = performance.now() + 60_000; del.pending > 0 && performance.now() < until; del = await deliveriesOf()) await sleep(200);
      const published = seg.published_at.getTime();
      const run: IngestRun = {
        label,
        activeTasks,
        ingestMs: t1 - t0,
        endToEndMs: t2 - t0,
        publishToMatchedMs: seg.matched_at!.getTime() - published,
        publishToLastReportMs: rep.last ? new Date(rep.last).getTime() - published : null,
        reports: rep.n,
        tasksMatched: seg.tasks_matched,
        deliveries: del.n,
        deliveriesSent: del.sent,
        publishToLastDeliveryMs: del.n > 0 && del.pending === 0 && del.last ? new Date(del.last).getTime() - published : null,
      };
      log(
        `bench: ${label}: ingest ${fmt(run.ingestMs)} (${res.records.toLocaleString('en-US')} records), start → matched ${fmt(run.endToEndMs)}; publish → last report ${fmt(run.publishToLastReportMs)}, → matched ${fmt(run.publishToMatchedMs)}; ${run.tasksMatched} tasks matched, ${run.reports} reports, ${run.deliveriesSent}/${run.deliveries} deliveries sent (last ${fmt(run.publishToLastDeliveryMs)} after publish)`,
      );
      runs.push(run);
      lastSegment = segmentId;
      return run;
    };
    let lastSegment = '';

    await ingestOnce('warm-up, 0 active tasks', 0);
    for (let i = 1; i <= o.rounds; i++) {
      await ingestOnce(`round ${i}, 0 active tasks`, 0);
      await ingestOnce(`round ${i}, ${seeded.tasks.toLocaleString('en-US')} active tasks`, seeded.tasks);
    }
    // Where the match job's time goes: its first two steps again, timed alone (tasks still
    // active, the last segment): reading the active tasks, and the engine's matchWatches.
    const { MATCH_BATCH_SIZE, activeWatches } = await import('../../server/src/monitoring/matching-service');
    const { REPORT_RECORDS_PER_TASK } = await import('../../server/src/common/monitoring-rules');
    let t0 = performance.now();
    const watches = await activeWatches(db);
    phases.readMs = performance.now() - t0;
    t0 = performance.now();
    for (let i = 0; i < watches.length; i += MATCH_BATCH_SIZE) {
      await runtime.engine.matchWatches(lastSegment, watches.slice(i, i + MATCH_BATCH_SIZE), { limit: REPORT_RECORDS_PER_TASK });
      phases.calls++;
    }
    phases.matchMs = performance.now() - t0;
    log(`bench: match job phases: read the active tasks (one query) ${fmt(phases.readMs)}, matchWatches (${phases.calls} call${phases.calls === 1 ? '' : 's'}) ${fmt(phases.matchMs)}`);
  } finally {
    await runtime.close();
    if (admin && dbName) {
      const c = new pg.Client({ connectionString: admin });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
      await c.end();
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
  }

  const { seeded, ms: seedMs } = seeding;
  const zero = runs.filter((r) => r.activeTasks === 0 && !r.label.startsWith('warm'));
  const full = runs.filter((r) => r.activeTasks > 0);
  const ratioIngest = median(full.map((r) => r.ingestMs)) / median(zero.map((r) => r.ingestMs));
  const ratioE2E = median(full.map((r) => r.endToEndMs)) / median(zero.map((r) => r.endToEndMs));
  const worstReport = Math.max(...full.map((r) => r.publishToMatchedMs));
  const pass = (ok: boolean) => (ok ? 'PASS' : 'MISS');
  const load = os.loadavg().map((x) => x.toFixed(1)).join(', ');
  const out: string[] = [];
  out.push(`## Monitoring end to end: ${o.records.toLocaleString('en-US')} records, ${seeded.tasks.toLocaleString('en-US')} tasks, ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC`);
  out.push('');
  out.push(
    `Machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? '?'}, ${Math.round(os.totalmem() / 2 ** 30)} GB, load average at the end ${load}. Database: ${dbUrl ? 'PostgreSQL of DATABASE_URL (scratch database)' : 'embedded PostgreSQL'}; queues on ${config.REDIS_URL ? 'Redis' : 'PostgreSQL'}. ${o.users.toLocaleString('en-US')} users (${seeded.channels} with an email channel), ${seeded.tasks.toLocaleString('en-US')} tasks (40% email, 25% username, 15% phone, 10% name, 10% domain; ${seeded.hits} values drawn from the corpus), written in ${fmt(seedMs)}. Corpus ${(o.info.bytes / 1e6).toFixed(0)} MB raw, ${o.info.sources.length} files, one data well per ingest, through \`runIngest\`; one warm-up ingest, then ${o.rounds} round(s) of 0 active tasks / all active.`,
  );
  out.push('');
  out.push('| ingest | ingest | start → matched | publish → last report | publish → matched | tasks matched | reports | deliveries sent | publish → last delivery |');
  out.push('|---|---|---|---|---|---|---|---|---|');
  for (const r of runs)
    out.push(`| ${r.label} | ${fmt(r.ingestMs)} | ${fmt(r.endToEndMs)} | ${fmt(r.publishToLastReportMs)} | ${fmt(r.publishToMatchedMs)} | ${r.tasksMatched.toLocaleString('en-US')} | ${r.reports.toLocaleString('en-US')} | ${r.deliveriesSent}/${r.deliveries} | ${fmt(r.publishToLastDeliveryMs)} |`);
  out.push('');
  out.push(`- ingest start → segment matched (every report written), ${seeded.tasks.toLocaleString('en-US')} tasks / 0 tasks (medians): **${ratioE2E.toFixed(3)}** (target ≤ 1.10) ${pass(ratioE2E <= 1.1)}`);
  out.push(`- ingest alone (the CLI's part), with tasks / without (medians): ${ratioIngest.toFixed(3)} (target ≤ 1.10) ${pass(ratioIngest <= 1.1)}`);
  out.push(`- publish → last report written (segment matched), worst of the runs with tasks: **${fmt(worstReport)}** (target ≤ 10 s) ${pass(worstReport <= 10_000)}`);
  const lastFull = full[full.length - 1];
  if (lastFull)
    out.push(
      `- the match job's ${fmt(lastFull.publishToMatchedMs)} after publish (last run with tasks), by step timed alone afterwards: reading the ${seeded.tasks.toLocaleString('en-US')} active tasks (one query) ${fmt(phases.readMs)}, \`matchWatches\` (${phases.calls} call${phases.calls === 1 ? '' : 's'}) ${fmt(phases.matchMs)}; the rest (queue pickup, ${lastFull.reports} report transactions, queueing ${lastFull.deliveries} deliveries, marking the segment) about ${fmt(lastFull.publishToMatchedMs - phases.readMs - phases.matchMs)}`,
    );
  if (warnings.length) out.push(`- server warnings during the run: ${warnings.length} (printed on stderr)`);
  return out.join('\n');
}
