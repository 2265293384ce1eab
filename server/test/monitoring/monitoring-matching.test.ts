/**
 * Monitoring's matching (docs/monitoring.md "Segment", "Report"), on both job
 * backends: an operator ingests a dump with the real CLI (another process); the segment is
 * recorded and NOTIFYed, the server queues its match job, and every user whose active
 * tasks match gets one report with the right counts, one notice and one delivery per
 * active channel, however often the job runs. Removed entries never show; another user's
 * task or report never leaks; a baseline segment (published before monitoring) and a
 * replayed one are not matched.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { eventually, sql, startTestServer, type TestServer } from '../support/harness';
import { call, callV2 } from '../support/helpers';
import { matchValue, type TaskKind } from '../../src/common/monitoring-rules';
import { ingestFiles } from '../../../engine/index';
import { upsertDataWell } from '../../src/datawells/datawells-repository';
import { markDomainVerified } from '../../src/monitoring/domain-verification-service';
import { cliArgs } from '../../../scripts/lib/cli-command';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const run = promisify(execFile);
const redisUrl = process.env.TEST_REDIS_URL;

/** `npm run ingest` as an operator runs it, against the test server's database and index. */
async function cliIngest(server: TestServer, well: string, records: object[]): Promise<string> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lw-monitor-ingest-'));
  try {
    const file = path.join(dir, 'dump.jsonl');
    fs.writeFileSync(file, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const { stdout } = await run(process.execPath, [...cliArgs('ingest'), '--well', well, '--max-segments', '0', file], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: server.runtime.config.DATABASE_URL, INDEX_DIR: server.runtime.config.indexDir, DATA_DIR: dir },
    });
    const segment = /segment:\s+(\S+)/.exec(stdout)?.[1];
    assert.ok(segment, stdout);
    return segment;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function addTask(server: TestServer, userId: string, kind: TaskKind, value: string, active = true): Promise<string> {
  const row = await server.runtime.db
    .insertInto('monitor_tasks')
    .values({ user_id: userId, kind, value, match_value: matchValue(kind, value), active })
    .returning('id')
    .executeTakeFirstOrThrow();
  return String(row.id);
}

async function addChannel(server: TestServer, userId: string, kind: 'email' | 'phone' | 'webhook', value: string, active = true): Promise<string> {
  const row = await server.runtime.db
    .insertInto('notification_channels')
    // Email channels confirmed already (channel-confirmation.test.ts covers the unconfirmed ones).
    .values({ user_id: userId, kind, value, active, verified_at: kind === 'email' ? new Date() : null, secret: kind === 'webhook' ? 'whsec_dGVzdHRlc3R0ZXN0dGVzdHRlc3R0ZXN0dGVzdHRlc3Q=' : null })
    .returning('id')
    .executeTakeFirstOrThrow();
  return String(row.id);
}

const WELL = 'Monitored Dump';
const RECORDS = [
  { email: 'Alice.Watch@Example.com', username: 'first-copy', password: 'pw1' },
  { email: 'alice.watch@example.com', username: 'second-copy', password: 'pw2' },
  { username: 'AliceHandle', password: 'pw3' },
  { phone: '+1 (555) 010-9999', name: 'Someone Else' },
  { name: 'Alice   Watcher', address: '1 Main St' },
  { email: 'staff@mail.watched-corp.com', password: 'pw4' },
  { email: 'other@notwatched-corp.com', url: 'https://shop.watched-corp.com/cart' },
  { email: 'nobody@example.org', username: 'unrelated' },
];

const backends = [
  { name: 'PostgreSQL', redis: false, skip: false as string | false },
  { name: 'Redis', redis: true, skip: !redisUrl && 'TEST_REDIS_URL not set' },
];

for (const backend of backends) {
  describe(`matching, jobs on ${backend.name}`, { skip: backend.skip }, () => {
    let server: TestServer;
    let alice: { id: string; token: string; apiKey: string };
    let bob: { id: string; token: string; apiKey: string };
    let carol: { id: string; token: string };
    let segmentId: string;
    let aliceReportId: string;

    before(async () => {
      // No timed sweep during the test (one at start only): a segment is queued by its NOTIFY,
      // or by the sweep after the listener reconnects.
      server = await startTestServer({ redis: backend.redis, env: { MONITOR_SWEEP_MS: '3600000', TRUSTED_PROXIES: '127.0.0.1' } });
      const make = async () => {
        const user = await server.createUser({ searchDays: 30, apiKey: true });
        return { id: user.id, apiKey: user.apiKey!, token: (await server.login(user.email)).token };
      };
      [alice, bob, carol] = [await make(), await make(), await make()];
      await addTask(server, alice.id, 'email', 'Alice.Watch@example.com');
      await addTask(server, alice.id, 'username', 'alicehandle');
      await addTask(server, alice.id, 'phone', '15550109999');
      await addTask(server, alice.id, 'name', 'alice watcher');
      await addTask(server, alice.id, 'domain', 'Watched-Corp.com');
      // Its records show only once the domain is verified (the operator's override).
      await markDomainVerified(server.runtime.db, alice.id, 'watched-corp.com');
      await addTask(server, alice.id, 'username', 'unrelated', false); // inactive: never matched
      await addTask(server, alice.id, 'email', 'absent@example.com'); // not in the dump
      await addChannel(server, alice.id, 'email', 'alice-alerts@example.com');
      await addChannel(server, alice.id, 'webhook', 'https://hooks.example.com/alice');
      await addChannel(server, alice.id, 'phone', ''); // disabled: no delivery
      await addChannel(server, alice.id, 'email', 'old@example.com', false); // inactive: no delivery
      await addTask(server, bob.id, 'username', 'AliceHandle'); // the same value, another user
      await addChannel(server, bob.id, 'email', 'bob-alerts@example.com');
      await addTask(server, carol.id, 'email', 'carol@example.com'); // nothing for carol

      segmentId = await cliIngest(server, WELL, RECORDS);
    });
    after(() => server?.close());

    test('the ingest records the segment and the server matches it (NOTIFY, queue, job)', { timeout: 60_000 }, async () => {
      const row = await eventually(async () => {
        const s = await server.runtime.db.selectFrom('monitor_segments').selectAll().where('segment_id', '=', segmentId).executeTakeFirst();
        return s?.status === 'matched' ? s : undefined;
      }, 30_000);
      assert.equal(row.well_name, WELL);
      assert.equal(Number(row.records), RECORDS.length);
      // Alice's five matching tasks and Bob's one.
      assert.equal(row.tasks_matched, 6);
    });

    test('one report per user with the count of every kind, a notice and a delivery per active channel', async () => {
      const list = await call(server.url, 'POST', '/monitoring/reports/get-reports', { token: alice.token, body: { page: 1, page_size: 20 } });
      assert.equal(list.status, 200);
      assert.equal(list.body.total_reports, 1);
      const [report] = list.body.reports;
      aliceReportId = report.id;
      assert.equal(report.database_name, WELL);
      const counts = Object.fromEntries(report.tasks.map((t: { key: string; value: string; results_count: number }) => [`${t.key}:${t.value}`, t.results_count]));
      assert.deepEqual(counts, {
        'domain:Watched-Corp.com': 2, // an e-mail in a subdomain, a URL host in a subdomain; not notwatched-corp.com
        'email:Alice.Watch@example.com': 2, // case-folded
        'name:alice watcher': 1, // spaces folded
        'phone:15550109999': 1, // digits of a formatted number
        'username:alicehandle': 1,
      });
      assert.equal(report.results, 7);

      const detail = await call(server.url, 'POST', '/monitoring/reports/get-report', { token: alice.token, body: { id: report.id } });
      assert.equal(detail.status, 200);
      assert.equal(detail.body.values_hidden, false);
      const email = detail.body.records.find((r: { key: string }) => r.key === 'email');
      assert.equal(email.task_type, 'email');
      assert.equal(email.value, 'Alice.Watch@example.com');
      assert.deepEqual(email.data.map((e: { username: string[] }) => e.username[0]).sort(), ['first-copy', 'second-copy']);
      assert.ok(email.data.every((e: { database_name: string; raw_record?: string }) => e.database_name === WELL && e.raw_record === undefined));
      const domain = detail.body.records.find((r: { key: string }) => r.key === 'domain');
      assert.deepEqual(domain.data.map((e: { email: string[] }) => e.email[0]).sort(), ['other@notwatched-corp.com', 'staff@mail.watched-corp.com']);

      // (The daily job may have written its own notices: low search credits.)
      const notices = await server.runtime.db.selectFrom('notifications').selectAll().where('user_id', '=', alice.id).where('type', '=', 'report').execute();
      assert.equal(notices.length, 1);
      assert.equal(notices[0]!.type, 'report');
      assert.equal(notices[0]!.data, `New monitoring report: 7 results in ${WELL}`);
      assert.equal(notices[0]!.link, `/monitoring/reports/${report.id}`);

      const deliveries = await server.runtime.db.selectFrom('deliveries').select(['kind', 'target', 'user_id']).where('report_id', '=', report.id).orderBy('kind').execute();
      assert.deepEqual(
        deliveries.map((d) => [d.kind, d.target, d.user_id]),
        [
          ['email', 'alice-alerts@example.com', alice.id],
          ['webhook', 'https://hooks.example.com/alice', alice.id],
        ],
      );
    });

    test('the match job run again writes no second report, notice or delivery', async () => {
      const match = server.runtime.app.jobProcessors['monitor-match']!;
      await match({ segmentId }, 2);
      await match({ segmentId }, 3);
      const db = server.runtime.db;
      const reports = await db.selectFrom('monitor_reports').select(['id', 'user_id']).where('segment_id', '=', segmentId).execute();
      assert.equal(reports.filter((r) => r.user_id === alice.id).length, 1);
      assert.equal(reports.filter((r) => r.user_id === bob.id).length, 1);
      assert.equal(reports.length, 2);
      const notices = await db.selectFrom('notifications').select('id').where('type', '=', 'report').execute();
      assert.equal(notices.length, 2);
      const deliveries = await db.selectFrom('deliveries').select(['report_id', 'channel_id']).execute();
      assert.equal(deliveries.length, 3); // alice: email + webhook; bob: email
      assert.equal(new Set(deliveries.map((d) => `${d.report_id}/${d.channel_id}`)).size, 3);
    });

    test("another user's task does not leak: each report holds its owner's tasks only, foreign ids are 404", async () => {
      const bobs = await call(server.url, 'POST', '/monitoring/reports/get-reports', { token: bob.token, body: { page: 1, page_size: 20 } });
      assert.equal(bobs.body.total_reports, 1);
      assert.deepEqual(bobs.body.reports[0].tasks, [{ key: 'username', value: 'AliceHandle', results_count: 1 }]);
      assert.equal(bobs.body.reports[0].results, 1);
      assert.notEqual(bobs.body.reports[0].id, aliceReportId);

      const foreign = await call(server.url, 'POST', '/monitoring/reports/get-report', { token: bob.token, body: { id: aliceReportId } });
      assert.equal(foreign.status, 404);
      const foreignV2 = await callV2(server, bob.apiKey, { id: aliceReportId }, { path: '/v2/monitoring/get-report' });
      assert.equal(foreignV2.status, 404);
      const carols = await call(server.url, 'POST', '/monitoring/reports/get-reports', { token: carol.token, body: { page: 1, page_size: 20 } });
      assert.deepEqual(carols.body, { reports: [], total_reports: 0 });
      assert.equal((await server.runtime.db.selectFrom('notifications').select('id').where('user_id', '=', carol.id).where('type', '=', 'report').execute()).length, 0);
    });

    test('a removed entry never appears in a report (dashboard and /v2)', async () => {
      const before = await call(server.url, 'POST', '/monitoring/reports/get-report', { token: alice.token, body: { id: aliceReportId } });
      const email = before.body.records.find((r: { key: string }) => r.key === 'email');
      const removed = email.data.find((e: { username: string[] }) => e.username[0] === 'first-copy');
      assert.ok(await server.runtime.engine.remove(removed.id));

      const after = await call(server.url, 'POST', '/monitoring/reports/get-report', { token: alice.token, body: { id: aliceReportId } });
      const ids = after.body.records.flatMap((r: { data: { id: string }[] }) => r.data.map((e) => e.id));
      assert.ok(!ids.includes(removed.id));
      assert.equal(after.body.records.find((r: { key: string }) => r.key === 'email').data.length, 1);
      const v2 = await callV2(server, alice.apiKey, { id: aliceReportId }, { path: '/v2/monitoring/get-report' });
      assert.equal(v2.status, 200);
      assert.ok(!JSON.stringify(v2.body).includes(removed.id));
      assert.ok(!JSON.stringify(v2.body).includes('first-copy'));
    });

    test('a lost notify or delivery job only delays: the listener reconnects after its connection drops and sweeps what is pending', { timeout: 60_000 }, async () => {
      const { db, config } = server.runtime;
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lw-lost-notify-'));
      let lost: string;
      try {
        const file = path.join(dir, 'quiet.jsonl');
        fs.writeFileSync(file, JSON.stringify({ phone: '15550109999', username: 'quiet-copy' }) + '\n');
        const result = await ingestFiles(config.indexDir, { well: 'Quiet Dump', files: [file], format: 'jsonl', maxSegments: 0 });
        lost = result.segmentId!;
        // Recorded, but its NOTIFY never sent (a crash between the two).
        await db.insertInto('monitor_segments').values({ segment_id: lost, well_name: 'Quiet Dump', records: 1 }).execute();
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
      // And a delivery whose job was lost (made over a minute ago, still pending, never queued).
      const channel = await addChannel(server, alice.id, 'email', 'alice-second@example.com');
      const orphan = await db
        .insertInto('deliveries')
        .values({ user_id: alice.id, report_id: aliceReportId, channel_id: channel, kind: 'email', target: 'alice-second@example.com', created: new Date(Date.now() - 120_000) })
        .returning('id')
        .executeTakeFirstOrThrow();
      await new Promise((r) => setTimeout(r, 1000));
      assert.equal((await db.selectFrom('monitor_segments').select('status').where('segment_id', '=', lost).executeTakeFirst())?.status, 'pending');
      assert.equal((await db.selectFrom('deliveries').select('status').where('id', '=', orphan.id).executeTakeFirst())?.status, 'pending');
      const killed = await sql<{ n: number }>`
        select count(pg_terminate_backend(pid))::int as n from pg_stat_activity
         where datname = current_database() and query ilike 'LISTEN monitor_segments%'`.execute(db);
      assert.equal(killed.rows[0]!.n, 1, 'one listener');
      await eventually(async () => (await db.selectFrom('monitor_segments').select('status').where('segment_id', '=', lost).executeTakeFirst())?.status === 'matched', 30_000);
      const report = await db.selectFrom('monitor_reports').select('results').where('user_id', '=', alice.id).where('segment_id', '=', lost).executeTakeFirstOrThrow();
      assert.equal(report.results, 1);
      await db.deleteFrom('monitor_reports').where('segment_id', '=', lost).execute();
      // The sweep queued the orphan delivery too; the deliver job sent it.
      await eventually(async () => (await db.selectFrom('deliveries').select('status').where('id', '=', orphan.id).executeTakeFirst())?.status === 'sent', 30_000);
      await db.deleteFrom('deliveries').where('id', '=', orphan.id).execute();
      await db.deleteFrom('notification_channels').where('id', '=', channel).execute();
    });

    test('a baseline segment (published before monitoring) and a replayed one are never matched', { timeout: 60_000 }, async () => {
      const { db, config } = server.runtime;
      // Data published before monitoring existed: in the index and the catalogue, recorded as
      // baseline (what migration 0005 does for every segment the catalogue knows).
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lw-baseline-'));
      let baseline: string;
      try {
        const file = path.join(dir, 'old.jsonl');
        fs.writeFileSync(file, JSON.stringify({ email: 'alice.watch@example.com', username: 'old-data' }) + '\n');
        const result = await ingestFiles(config.indexDir, { well: 'Old Dump', files: [file], format: 'jsonl', maxSegments: 0 });
        baseline = result.segmentId!;
        await upsertDataWell(db, { name: 'Old Dump', date: null, description: '', recordCount: 1, dataTypes: result.fields, isSensitive: false, segmentId: baseline });
        await db.insertInto('monitor_segments').values({ segment_id: baseline, well_name: 'Old Dump', records: 1, status: 'baseline' }).execute();
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
      await server.runtime.engine.refresh();
      // Its job, were it queued, writes nothing.
      await server.runtime.app.jobProcessors['monitor-match']!({ segmentId: baseline }, 1);
      // The next CLI ingest replays every published segment (the baseline and the first one):
      // neither is matched again; only the new one is.
      const next = await cliIngest(server, 'Later Dump', [{ username: 'AliceHandle', email: 'late@example.net' }]);
      await eventually(async () => (await db.selectFrom('monitor_segments').select('status').where('segment_id', '=', next).executeTakeFirst())?.status === 'matched', 30_000);
      const segments = await db.selectFrom('monitor_segments').select(['segment_id', 'status']).execute();
      assert.equal(segments.find((s) => s.segment_id === baseline)?.status, 'baseline');
      const aliceReports = await db.selectFrom('monitor_reports').select(['segment_id', 'results']).where('user_id', '=', alice.id).orderBy('created').execute();
      assert.deepEqual(
        aliceReports.map((r) => [r.segment_id, r.results]),
        [
          [segmentId, 7],
          [next, 1],
        ],
      );
    });
  });
}
