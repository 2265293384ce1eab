/** GET /datawells/charts: the Data Wells page's chart numbers, aggregated in PostgreSQL (docs/charts.md). */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { upsertDataWell, type DataWellUpsert } from '../../src/datawells/datawells-repository';
import { startTestServer, stopTestDatabaseServer, type TestServer } from '../support/harness';
import { call, freshIp } from '../support/helpers';

let server: TestServer;

before(async () => {
  server = await startTestServer({ env: { TRUSTED_PROXIES: '127.0.0.1' } });
});
after(async () => {
  await server?.close();
  await stopTestDatabaseServer();
});

const seed = (well: Pick<DataWellUpsert, 'name' | 'date' | 'recordCount' | 'dataTypes'>, segment = `seg-${well.name}`) =>
  upsertDataWell(server.runtime.db, { description: '', isSensitive: false, segmentId: segment, ...well });

const charts = (ip = freshIp()) => call(server.url, 'GET', '/datawells/charts', { ip });

test('an empty catalogue answers zeros and empty lists', async () => {
  const reply = await charts();
  assert.equal(reply.status, 200);
  assert.deepEqual(reply.body, {
    total: { wells: 0, records: 0 },
    years: [],
    undated: { wells: 0, records: 0 },
    largest: [],
    passwords: { plain: 0, hashed: 0, both: 0, neither: 0 },
  });
});

test('years (gaps at 0), undated apart, the 10 largest, password exposure', async () => {
  await seed({ name: 'Plain 2012', date: '2012-06-01', recordCount: 1000, dataTypes: ['email', 'password'] });
  await seed({ name: 'Hashed 2012', date: '2012-12-31', recordCount: 500, dataTypes: ['email', 'hashed_password'] });
  await seed({ name: 'Both 2015', date: '2015-01-01', recordCount: 1500, dataTypes: ['email', 'password', 'hashed_password'] });
  // A second ingest adds its records and data types to the well.
  await seed({ name: 'Both 2015', date: null, recordCount: 500, dataTypes: ['ip_address'] }, 'seg-Both 2015-second');
  await seed({ name: 'Undated names', date: null, recordCount: 300, dataTypes: ['email', 'username'] });
  await seed({ name: 'Undated plain', date: null, recordCount: 50, dataTypes: ['password'] });
  for (let i = 1; i <= 9; i++) await seed({ name: `Small ${i}`, date: '2014-03-03', recordCount: i, dataTypes: ['email'] });
  // Equal records: ties go by name.
  await seed({ name: '<b>Tie</b> A', date: '2014-07-07', recordCount: 7, dataTypes: ['phone'] });

  const reply = await charts();
  assert.equal(reply.status, 200);
  const body = reply.body;
  assert.deepEqual(body.total, { wells: 15, records: 1000 + 500 + 2000 + 300 + 50 + 45 + 7 });
  assert.deepEqual(body.years, [
    { year: 2012, wells: 2, records: 1500 },
    { year: 2013, wells: 0, records: 0 },
    { year: 2014, wells: 10, records: 52 },
    { year: 2015, wells: 1, records: 2000 },
  ]);
  assert.deepEqual(body.undated, { wells: 2, records: 350 });
  assert.deepEqual(
    body.largest.map((w: { name: string; records: number }) => [w.name, w.records]),
    [
      ['Both 2015', 2000],
      ['Plain 2012', 1000],
      ['Hashed 2012', 500],
      ['Undated names', 300],
      ['Undated plain', 50],
      ['Small 9', 9],
      ['Small 8', 8],
      ['<b>Tie</b> A', 7],
      ['Small 7', 7],
      ['Small 6', 6],
    ],
  );
  assert.equal(body.largest[0].date, '2015-01-01');
  assert.equal(body.largest[3].date, null);
  assert.deepEqual(body.passwords, { plain: 2, hashed: 1, both: 1, neither: 11 });
});

test('an operator’s date correction moves a well to its year', async () => {
  await server.runtime.db.updateTable('data_wells').set({ date: '2013-05-05' }).where('name', '=', 'Undated plain').execute();
  const { body } = await charts();
  assert.deepEqual(body.years[1], { year: 2013, wells: 1, records: 50 });
  assert.deepEqual(body.undated, { wells: 1, records: 300 });
});

test('public, and throttled per address like the other catalogue routes', async () => {
  assert.equal((await call(server.url, 'GET', '/datawells/charts', { token: 'not-a-token', ip: freshIp() })).status, 200);
  const spec = (await call(server.url, 'GET', '/openapi.json')).body;
  assert.equal(spec.paths['/datawells/charts'].get.operationId, 'dataWellCharts');
  // The bucket is the catalogue's: one address spends it on /datawells and /datawells/charts alike.
  const ip = freshIp();
  const replies = await Promise.all(Array.from({ length: 70 }, (_, i) => (i % 2 ? charts(ip) : call(server.url, 'GET', '/datawells', { ip }))));
  const limited = replies.filter((r) => r.status === 429);
  assert.ok(limited.length > 0, 'the bucket of 40 runs out');
  assert.ok(limited.some((r) => r.headers.get('retry-after')));
  assert.equal((await charts()).status, 200, 'another address has its own bucket');
});
