/**
 * Monitoring reports as their owner reads them (docs/monitoring.md "Calls", "Public API v2"): the
 * dashboard's get-reports / get-report and /v2/monitoring/get-reports / get-report, their
 * paging, the reader's search rules on every path (no values without search access, raw
 * records for law enforcement only: test 24), and 404 for another user's or an unknown
 * report id (test 22).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { eventually, startTestServer, type TestServer } from '../support/harness';
import { call, callV2 } from '../support/helpers';
import { matchValue } from '../../src/common/monitoring-rules';

describe('monitoring reports', () => {
  let server: TestServer;
  type Reader = { id: string; token: string; apiKey: string };
  let subscriber: Reader;
  let free: Reader;
  let officer: Reader;
  let segmentId: string;
  const reportOf: Record<string, string> = {};

  const WATCHED = 'Shared.Person@example.com';

  before(async () => {
    // Each /v2 call from its own address (helpers' freshIp), so the per-address limit stays out of the way.
    server = await startTestServer({ env: { TRUSTED_PROXIES: '127.0.0.1' } });
    const make = async (grant: { searchDays?: number; lawEnforcement?: boolean }) => {
      const user = await server.createUser({ ...grant, apiKey: true });
      return { id: user.id, apiKey: user.apiKey!, token: (await server.login(user.email)).token };
    };
    subscriber = await make({ searchDays: 30 });
    free = await make({});
    officer = await make({ searchDays: 30, lawEnforcement: true });
    for (const user of [subscriber, free, officer]) {
      await server.runtime.db.insertInto('monitor_tasks').values({ user_id: user.id, kind: 'email', value: WATCHED, match_value: matchValue('email', WATCHED) }).execute();
    }
    // The test harness publishes through the shared ingest code (scripts/lib/ingest-records.ts),
    // which records the segment for monitoring as `npm run ingest` does.
    segmentId = await server.ingest('Reports Dump', [
      { email: 'shared.person@example.com', username: 'sharedp', password: 'hunter2' },
      { email: 'SHARED.PERSON@example.com', ip_address: '203.0.113.7' },
      { email: 'someone@example.com', username: 'other' },
    ]);
    await eventually(async () => {
      const rows = await server.runtime.db.selectFrom('monitor_reports').select(['id', 'user_id']).where('segment_id', '=', segmentId).execute();
      for (const r of rows) reportOf[r.user_id] = r.id;
      return rows.length === 3;
    }, 30_000);
  });
  after(() => server?.close());

  const getReport = (reader: Reader, id: string) => call(server.url, 'POST', '/monitoring/reports/get-report', { token: reader.token, body: { id } });
  const getReportV2 = (reader: Reader, id: string) => callV2(server, reader.apiKey, { id }, { path: '/v2/monitoring/get-report' });

  test('a subscriber sees the entries, without raw records, on the dashboard and in /v2', async () => {
    const id = reportOf[subscriber.id]!;
    const dashboard = await getReport(subscriber, id);
    assert.equal(dashboard.status, 200);
    assert.equal(dashboard.body.id, id);
    assert.equal(dashboard.body.database_name, 'Reports Dump');
    assert.equal(dashboard.body.results, 2);
    assert.equal(dashboard.body.values_hidden, false);
    assert.equal(dashboard.body.records.length, 1);
    const [record] = dashboard.body.records;
    assert.deepEqual([record.task_type, record.task_value, record.key, record.value, record.results_count], ['email', WATCHED, 'email', WATCHED, 2]);
    assert.equal(record.data.length, 2);
    for (const entry of record.data) {
      assert.equal(entry.primary_field, 'email');
      assert.equal(entry.raw_record, undefined);
      assert.equal(entry.database_name, 'Reports Dump');
    }

    const v2 = await getReportV2(subscriber, id);
    assert.equal(v2.status, 200);
    assert.equal(v2.body.tasks.length, 1);
    const [task] = v2.body.tasks;
    assert.equal(task.key, 'email');
    assert.equal(task.value, WATCHED);
    assert.equal(task.results_count, 2);
    assert.match(task.id, /^\d+$/);
    assert.ok(!Number.isNaN(Date.parse(task.timestamp)));
    assert.equal(task.results.length, 2);
    const withIp = task.results.find((e: { ip_address?: string[] }) => e.ip_address);
    assert.deepEqual(withIp.ip_address, ['203.0.113.7']);
    // Null fields are omitted, as in /v2/search; no raw record for this reader.
    assert.ok(!('username' in withIp) && !('phone' in withIp) && !('raw_record' in withIp));
    assert.ok(task.results.every((e: { primary_field?: string }) => e.primary_field === undefined));
  });

  test('without search access the counts show and the values do not (dashboard and /v2)', async () => {
    const id = reportOf[free.id]!;
    const dashboard = await getReport(free, id);
    assert.equal(dashboard.status, 200);
    assert.equal(dashboard.body.values_hidden, true);
    assert.equal(dashboard.body.results, 2);
    assert.equal(dashboard.body.records[0].results_count, 2);
    assert.deepEqual(dashboard.body.records[0].data, []);
    const v2 = await getReportV2(free, id);
    assert.equal(v2.status, 200);
    assert.equal(v2.body.tasks[0].results_count, 2);
    assert.deepEqual(v2.body.tasks[0].results, []);
    assert.ok(!JSON.stringify(dashboard.body).includes('hunter2') && !JSON.stringify(v2.body).includes('hunter2'));
  });

  test('law enforcement gets the raw records, in each path’s shape', async () => {
    const id = reportOf[officer.id]!;
    const dashboard = await getReport(officer, id);
    const entries = dashboard.body.records[0].data;
    assert.equal(entries.length, 2);
    assert.ok(entries.every((e: { raw_record?: unknown }) => typeof e.raw_record === 'string' && e.raw_record.length > 0));
    const v2 = await getReportV2(officer, id);
    for (const entry of v2.body.tasks[0].results) {
      assert.equal(entry.raw_record.le_only, true);
      assert.equal(typeof entry.raw_record.unstructured, 'string');
    }
  });

  test("another user's report, an unknown id or a malformed one: 404 on every path (test 22)", async () => {
    for (const id of [reportOf[officer.id]!, randomUUID(), 'not-a-uuid', "'; drop table monitor_reports; --"]) {
      assert.equal((await getReport(subscriber, id)).status, 404, id);
      assert.equal((await getReportV2(subscriber, id)).status, 404, id);
    }
    // Nor do list calls show another user's reports.
    const list = await call(server.url, 'POST', '/monitoring/reports/get-reports', { token: subscriber.token, body: { page: 1, page_size: 20 } });
    assert.deepEqual(
      list.body.reports.map((r: { id: string }) => r.id),
      [reportOf[subscriber.id]],
    );
    const listV2 = await callV2(server, subscriber.apiKey, {}, { path: '/v2/monitoring/get-reports' });
    assert.deepEqual(listV2.body, { reports: [{ id: reportOf[subscriber.id], timestamp: list.body.reports[0].created }], next_page: null });
  });

  test('paging: the dashboard 20 at most a page, /v2 100 a page with next_page, newest first', async () => {
    const db = server.runtime.db;
    // 104 older reports of other segments (what a long-monitored account has).
    await db
      .insertInto('monitor_reports')
      .values(
        Array.from({ length: 104 }, (_, i) => ({
          user_id: subscriber.id,
          segment_id: `older-${i}`,
          well_name: `Older ${i}`,
          results: i + 1,
          created: new Date(Date.now() - (i + 1) * 60_000),
        })),
      )
      .execute();
    const page = (n: number, size: number) => call(server.url, 'POST', '/monitoring/reports/get-reports', { token: subscriber.token, body: { page: n, page_size: size } });
    const first = await page(1, 20);
    assert.equal(first.body.total_reports, 105);
    assert.equal(first.body.reports.length, 20);
    assert.equal(first.body.reports[0].id, reportOf[subscriber.id]);
    assert.equal(first.body.reports[1].database_name, 'Older 0');
    assert.deepEqual(first.body.reports[1].tasks, []);
    const last = await page(6, 20);
    assert.deepEqual(
      last.body.reports.map((r: { database_name: string }) => r.database_name),
      ['Older 99', 'Older 100', 'Older 101', 'Older 102', 'Older 103'],
    );
    assert.equal((await page(1, 21)).status, 400);
    assert.equal((await page(0, 20)).status, 400);

    const v2 = async (body: object) => (await callV2(server, subscriber.apiKey, body, { path: '/v2/monitoring/get-reports' })).body;
    const one = await v2({ page: 1 });
    assert.equal(one.reports.length, 100);
    assert.equal(one.next_page, 2);
    const two = await v2({ page: 2 });
    assert.equal(two.reports.length, 5);
    assert.equal(two.next_page, null);
    assert.deepEqual(Object.keys(two.reports[0]).sort(), ['id', 'timestamp']);
    // An undeclared property is dropped on /v2, never acted on: another user's id reads nothing of theirs.
    const extra = await callV2(server, subscriber.apiKey, { page: 1, user_id: free.id }, { path: '/v2/monitoring/get-reports' });
    assert.equal(extra.status, 200);
    assert.deepEqual(extra.body.reports, one.reports, 'the caller\'s own first page');
    await db.deleteFrom('monitor_reports').where('segment_id', 'like', 'older-%').execute();
  });

  test('the /v2 report calls need the API key', async () => {
    assert.equal((await callV2(server, undefined, {}, { path: '/v2/monitoring/get-reports' })).status, 400);
    assert.equal((await callV2(server, 'f'.repeat(48), { id: reportOf[subscriber.id] }, { path: '/v2/monitoring/get-report' })).status, 400);
    assert.equal((await call(server.url, 'POST', '/monitoring/reports/get-reports', { body: { page: 1, page_size: 20 } })).status, 401);
  });
});
