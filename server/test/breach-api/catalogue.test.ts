/**
 * Breach API v3's public catalogue against the real server: breaches, breach/{name},
 * latestbreach and dataclasses over ingested and seeded wells (the service's field names,
 * order and types; the filters; 404s; names in any case), the throttle, and the published
 * `hibp` client run unchanged against it.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { breaches, breach, dataClasses, latestBreach } from 'hibp';
import { upsertDataWell, type DataWellUpsert } from '../../src/datawells/datawells-repository';
import { startTestServer, stopTestDatabaseServer, type TestServer } from '../support/harness';
import { call, freshIp } from '../support/helpers';

let server: TestServer;

interface Model {
  Name: string;
  Title: string;
  Domain: string;
  BreachDate: string;
  AddedDate: string;
  ModifiedDate: string;
  PwnCount: number;
  Description: string;
  LogoPath: string;
  DataClasses: string[];
  [flag: `Is${string}`]: boolean;
}

/** The service's fields, in its order. */
const MODEL_KEYS = [
  'Name',
  'Title',
  'Domain',
  'BreachDate',
  'AddedDate',
  'ModifiedDate',
  'PwnCount',
  'Description',
  'LogoPath',
  'DataClasses',
  'IsVerified',
  'IsFabricated',
  'IsSensitive',
  'IsRetired',
  'IsSpamList',
  'IsMalware',
  'IsSubscriptionFree',
  'IsStealerLog',
];
const ISO_SECONDS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

const seed = (well: Partial<DataWellUpsert> & { name: string }) =>
  upsertDataWell(server.runtime.db, {
    date: null,
    description: '',
    recordCount: 1,
    dataTypes: ['email'],
    isSensitive: false,
    segmentId: `seg-${well.name}`,
    ...well,
  });

const v3 = <T = any>(path: string, ip = freshIp()) => call<T>(server.url, 'GET', `/api/v3/${path}`, { ip });

before(async () => {
  server = await startTestServer({ env: { TRUSTED_PROXIES: '127.0.0.1' } });
  // Real records: the data classes follow the fields the ingest saw.
  await server.ingest('Adobe 2013', [
    { email: 'a1@adobe.example', hashed_password: '5f4dcc3b5aa765d61d8327deb882cf99', username: 'a1' },
    { email: 'a2@adobe.example', password: 'hunter2', ip_address: '192.0.2.1' },
  ]);
  await seed({ name: 'zebra forum', date: '2019-03-04', description: 'Forum <dump> & "more"', recordCount: 42, dataTypes: ['email', 'dob', 'vin', 'license_plate', 'domain'] });
  await seed({ name: 'Spam-list 2020', recordCount: 7 });
  await seed({ name: 'spam list 2020', recordCount: 8 });
  await seed({ name: 'Фото', recordCount: 3, isSensitive: true });
  await seed({ name: 'Newest Well', date: '2026-01-02', recordCount: 5 });
  const db = server.runtime.db;
  await db.updateTable('data_wells').set({ domain: 'adobe.com', image: '/logos/adobe.png' }).where('name', '=', 'Adobe 2013').execute();
  await db.updateTable('data_wells').set({ is_spam_list: true }).where('name', '=', 'Spam-list 2020').execute();
  // The catalogue's order of addition is the seeding order; make it explicit and distinct.
  await sql`update data_wells set created_at = now() - make_interval(secs => (100 - id)::float8)`.execute(db);
});
after(async () => {
  await server?.close();
  await stopTestDatabaseServer();
});

const byName = async (): Promise<Map<string, Model>> => new Map((await v3<Model[]>('breaches')).body.map((m) => [m.Title, m]));

describe('GET /api/v3/breaches', () => {
  test("every well in the service's model: its fields in order, their types, sorted by Name", async () => {
    const reply = await v3<Model[]>('breaches');
    assert.equal(reply.status, 200);
    assert.match(reply.headers.get('content-type') ?? '', /^application\/json/);
    assert.match(reply.headers.get('cache-control') ?? '', /public, max-age=\d+/);
    const models = reply.body;
    assert.equal(models.length, 6);
    for (const m of models) {
      assert.deepEqual(Object.keys(m), MODEL_KEYS);
      assert.match(m.Name, /^[A-Za-z0-9]+$/);
      assert.match(m.BreachDate, /^\d{4}-\d{2}-\d{2}$/);
      assert.match(m.AddedDate, ISO_SECONDS);
      assert.match(m.ModifiedDate, ISO_SECONDS);
      assert.ok(Number.isInteger(m.PwnCount));
      for (const key of MODEL_KEYS.filter((k) => k.startsWith('Is'))) assert.equal(typeof m[key as `Is${string}`], 'boolean', key);
    }
    const names = models.map((m) => m.Name);
    assert.deepEqual(names, [...names].sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase())));
  });

  test('Name: PascalCase of the ASCII letters and digits, unique with a number, "Breach" when none', async () => {
    const models = await byName();
    assert.equal(models.get('Adobe 2013')?.Name, 'Adobe2013');
    assert.equal(models.get('zebra forum')?.Name, 'ZebraForum');
    assert.equal(models.get('Spam-list 2020')?.Name, 'SpamList2020');
    assert.equal(models.get('spam list 2020')?.Name, 'SpamList20202');
    assert.equal(models.get('Фото')?.Name, 'Breach');
  });

  test('the catalogue columns as the model: dates, counts, escaped description, logo URL, data classes, flags', async () => {
    const models = await byName();
    const adobe = models.get('Adobe 2013')!;
    assert.equal(adobe.Domain, 'adobe.com');
    assert.equal(adobe.PwnCount, 2);
    assert.equal(adobe.LogoPath, `${server.runtime.config.publicUrl}/logos/adobe.png`);
    assert.deepEqual(adobe.DataClasses, ['Email addresses', 'IP addresses', 'Passwords', 'Usernames']);
    // No date known: the day it was added.
    assert.equal(adobe.BreachDate, adobe.AddedDate.slice(0, 10));
    assert.equal(adobe.IsVerified, true);
    assert.equal(adobe.IsSensitive, false);
    const zebra = models.get('zebra forum')!;
    assert.equal(zebra.BreachDate, '2019-03-04');
    assert.equal(zebra.Description, 'Forum &lt;dump&gt; &amp; &quot;more&quot;');
    assert.equal(zebra.Domain, '');
    assert.equal(zebra.LogoPath, '');
    assert.deepEqual(zebra.DataClasses, ['Dates of birth', 'Email addresses', 'Vehicle details']);
    assert.equal(models.get('Фото')!.IsSensitive, true, 'the public catalogue lists sensitive wells, flagged');
    assert.equal(models.get('Spam-list 2020')!.IsSpamList, true);
  });

  test('?domain= in any case; empty lists every well; an unknown domain lists none', async () => {
    const titles = async (query: string) => (await v3<Model[]>(`breaches${query}`)).body.map((m) => m.Title);
    assert.deepEqual(await titles('?domain=ADOBE.com'), ['Adobe 2013']);
    assert.equal((await titles('?domain=')).length, 6);
    assert.deepEqual(await titles('?domain=nowhere.example'), []);
  });

  test('?isSpamList= in any case; anything but a boolean is a 400 in the service\'s error shape', async () => {
    const titles = async (query: string) => (await v3<Model[]>(`breaches${query}`)).body.map((m) => m.Title);
    assert.deepEqual(await titles('?isSpamList=TRUE'), ['Spam-list 2020']);
    assert.equal((await titles('?isSpamList=False')).length, 5);
    assert.deepEqual(await titles('?domain=adobe.com&isSpamList=true'), []);
    const bad = await v3('breaches?isSpamList=maybe');
    assert.equal(bad.status, 400);
    assert.deepEqual(Object.keys(bad.body), ['statusCode', 'message']);
    assert.equal(bad.body.statusCode, 400);
  });
});

describe('GET /api/v3/breach/{name}', () => {
  test('one well by its Name, in any case, URL-encoded or not', async () => {
    for (const name of ['Adobe2013', 'adobe2013', 'ADOBE2013', '%41dobe2013']) {
      const reply = await v3<Model>(`breach/${name}`);
      assert.equal(reply.status, 200, name);
      assert.deepEqual(Object.keys(reply.body), MODEL_KEYS);
      assert.equal(reply.body.Title, 'Adobe 2013');
    }
  });

  test('an unknown Name is a 404 with an empty body (the service\'s answer)', async () => {
    for (const name of ['Adobe', 'Adobe 2013', 'nothing%20here']) {
      const reply = await v3(`breach/${encodeURIComponent(name)}`);
      assert.equal(reply.status, 404, name);
      assert.equal(reply.body, '');
    }
  });
});

test('a path the API does not have answers 404 in the service\'s error shape', async () => {
  for (const path of ['nosuchcall', 'breachedaccount', 'breach/Adobe/more']) {
    const reply = await v3(path);
    assert.equal(reply.status, 404, path);
    assert.deepEqual(reply.body, { statusCode: 404, message: 'Not found' }, path);
  }
});

describe('GET /api/v3/latestbreach and /api/v3/dataclasses', () => {
  test('latestbreach: the well added last', async () => {
    const reply = await v3<Model>('latestbreach');
    assert.equal(reply.status, 200);
    assert.deepEqual(Object.keys(reply.body), MODEL_KEYS);
    assert.equal(reply.body.Title, 'Newest Well');
    const all = (await v3<Model[]>('breaches')).body;
    assert.ok(all.every((m) => m.AddedDate <= reply.body.AddedDate));
  });

  test('dataclasses: the service\'s names, sorted, each once', async () => {
    const reply = await v3<string[]>('dataclasses');
    assert.equal(reply.status, 200);
    const classes = reply.body;
    assert.deepEqual(classes, [...new Set(classes)].sort());
    for (const name of ['Email addresses', 'Passwords', 'Usernames', 'IP addresses', 'Phone numbers', 'Physical addresses', 'Names']) {
      assert.ok(classes.includes(name), name);
    }
    // Every class a breach lists is one of them.
    for (const m of (await v3<Model[]>('breaches')).body) for (const c of m.DataClasses) assert.ok(classes.includes(c), c);
  });
});

test('one address is throttled: 429 with a whole-second retry-after and the service\'s JSON', async () => {
  const ip = freshIp();
  const replies = await Promise.all(Array.from({ length: 70 }, () => v3('dataclasses', ip)));
  const refused = replies.filter((r) => r.status === 429);
  assert.ok(refused.length > 0, 'some refused');
  assert.ok(replies.filter((r) => r.status === 200).length >= 40, 'the burst served');
  const first = refused[0]!;
  assert.match(first.headers.get('retry-after') ?? '', /^[1-9]\d*$/);
  assert.equal(first.body.statusCode, 429);
  assert.match(first.body.message, /Rate limit is exceeded\. Try again in \d+ seconds?\./);
  // Another address is not held back.
  assert.equal((await v3('dataclasses')).status, 200);
});

describe('the published hibp client, unchanged, with the server as its base URL', () => {
  // The client joins base URL and path itself (a trailing slash is dropped).
  const options = () => ({ baseUrl: `${server.url}/api/v3/`, userAgent: 'leakwell-test' });

  test('breaches, with and without a domain', async () => {
    const all = await breaches(options());
    assert.equal(all.length, 6);
    const adobe = await breaches({ ...options(), domain: 'adobe.com' });
    assert.deepEqual(adobe.map((b) => b.Name), ['Adobe2013']);
  });

  test('breach: a model, and null for an unknown name', async () => {
    const found = await breach('zebraforum', options());
    assert.equal(found?.Title, 'zebra forum');
    assert.equal(found?.BreachDate, '2019-03-04');
    assert.equal(await breach('NoSuchBreach', options()), null);
  });

  test('latestBreach and dataClasses', async () => {
    assert.equal((await latestBreach(options()))?.Name, 'NewestWell');
    const classes = await dataClasses(options());
    assert.ok(classes?.includes('Email addresses'));
  });
});

test('the four routes are in /openapi.json under the tag "breach api v3", with the model schema', async () => {
  const document = (await call(server.url, 'GET', '/openapi.json')).body;
  for (const path of ['/api/v3/breaches', '/api/v3/breach/{name}', '/api/v3/latestbreach', '/api/v3/dataclasses']) {
    const operation = document.paths[path]?.get;
    assert.ok(operation, path);
    assert.deepEqual(operation.tags, ['breach api v3'], path);
  }
  const model = document.paths['/api/v3/breach/{name}'].get.responses['200'].content['application/json'].schema;
  assert.deepEqual(Object.keys(model.properties), MODEL_KEYS);
});
