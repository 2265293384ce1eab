/**
 * GET /monitoring/report-chart: the caller's matches per UTC day over the last 90 days
 * (docs/charts.md), summed in PostgreSQL from the reports the match job writes.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, startTestServer, stopTestDatabaseServer, type TestServer } from '../support/harness';
import { call } from '../support/helpers';
import { matchValue } from '../../src/common/monitoring-rules';

let server: TestServer;
let owner: { id: string; token: string };
let other: { id: string; token: string };

const DAY = 86_400_000;
/** 00:00 UTC of today, as the test's clock reads it. */
const todayStart = () => Math.floor(Date.now() / DAY) * DAY;
const dayText = (ms: number) => new Date(ms).toISOString().slice(0, 10);

before(async () => {
  server = await startTestServer();
  const make = async () => {
    const user = await server.createUser({ searchDays: 30 });
    return { id: user.id, token: (await server.login(user.email)).token };
  };
  owner = await make();
  other = await make();
});
after(async () => {
  await server?.close();
  await stopTestDatabaseServer();
});

let segment = 0;
/** A report of `userId` written at `created` with `results` matches, as the match job writes one. */
const report = (userId: string, created: Date, results: number) =>
  server.runtime.db.insertInto('monitor_reports').values({ user_id: userId, segment_id: `seg-${++segment}`, well_name: 'Some well', results, created }).execute();

const chart = (token?: string) => call(server.url, 'GET', '/monitoring/report-chart', token ? { token } : {});

test('needs a signed-in caller', async () => {
  assert.equal((await chart()).status, 401);
  assert.equal((await chart('not-a-token')).status, 401);
});

test('no reports: 90 UTC days ending today, every one at 0', async () => {
  const reply = await chart(owner.token);
  assert.equal(reply.status, 200);
  assert.equal(reply.body.days.length, 90);
  assert.equal(reply.body.days.at(-1).day, dayText(todayStart()));
  assert.equal(reply.body.days[0].day, dayText(todayStart() - 89 * DAY));
  assert.ok(reply.body.days.every((d: { matches: number; reports: number }) => d.matches === 0 && d.reports === 0));
  assert.deepEqual([reply.body.total_matches, reply.body.total_reports], [0, 0]);
});

test('sums per UTC day; the bounds of the day and of the period; only the caller’s reports', async () => {
  const today = todayStart();
  await report(owner.id, new Date(today + 1000), 3);
  await report(owner.id, new Date(today + 2000), 4);
  // The last millisecond of yesterday (UTC) is yesterday's.
  await report(owner.id, new Date(today - 1), 5);
  // The first day of the period, and the day before it (left out).
  await report(owner.id, new Date(today - 89 * DAY), 7);
  await report(owner.id, new Date(today - 89 * DAY - 1), 100);
  await report(other.id, new Date(today + 3000), 1000);

  const { status, body } = await chart(owner.token);
  assert.equal(status, 200);
  const byDay = new Map(body.days.map((d: { day: string; matches: number; reports: number }) => [d.day, [d.matches, d.reports]]));
  assert.equal(byDay.size, 90);
  assert.deepEqual(byDay.get(dayText(today)), [7, 2]);
  assert.deepEqual(byDay.get(dayText(today - DAY)), [5, 1]);
  assert.deepEqual(byDay.get(dayText(today - 89 * DAY)), [7, 1]);
  assert.equal(byDay.get(dayText(today - 90 * DAY)), undefined);
  assert.deepEqual([body.total_matches, body.total_reports], [19, 4]);

  const others = await chart(other.token);
  assert.deepEqual([others.body.total_matches, others.body.total_reports], [1000, 1]);
});

test('a report the match job writes counts every task’s matches on its day', async () => {
  const values = ['Chart.Person@example.com', 'chartperson'];
  await server.runtime.db.insertInto('monitor_tasks').values([
    { user_id: other.id, kind: 'email', value: values[0]!, match_value: matchValue('email', values[0]!) },
    { user_id: other.id, kind: 'username', value: values[1]!, match_value: matchValue('username', values[1]!) },
  ]).execute();
  const before = (await chart(other.token)).body.days.at(-1);
  await server.ingest('Chart Dump', [
    { email: 'chart.person@example.com', username: 'chartperson' },
    { email: 'CHART.PERSON@example.com', password: 'x' },
    { email: 'someone@example.com', username: 'other' },
  ]);
  // Two email matches and one username match: 3, as the report's `results`.
  await eventually(async () => (await chart(other.token)).body.days.at(-1).matches === before.matches + 3, 30_000);
  const after = (await chart(other.token)).body.days.at(-1);
  assert.equal(after.reports, before.reports + 1);
});
