/** Data wells catalogue against the real server. */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { upsertDataWell, type DataWellUpsert } from '../../src/datawells/datawells-repository';
import { startTestServer, stopTestDatabaseServer, type TestServer } from '../support/harness';
import { call, freshIp } from '../support/helpers';

let server: TestServer;

interface Well {
  name: string;
  image: string | null;
  date: string | null;
  records: number;
  description: string;
  data: string;
  is_sensitive: boolean;
}

const WELL_KEYS = ['data', 'date', 'description', 'image', 'is_sensitive', 'name', 'records'];

/** 55 numbered wells with distinct record counts, every fifth one without a date. */
const numbered = Array.from({ length: 55 }, (_, i) => ({
  name: `Well ${String(i + 1).padStart(3, '0')}`,
  // Not monotonic in the name, so a sort by records differs from a sort by name.
  recordCount: ((i * 37) % 55) * 1000 + 1,
  date: i % 5 === 4 ? null : `20${String(10 + (i % 13)).padStart(2, '0')}-${String((i % 12) + 1).padStart(2, '0')}-${String((i % 28) + 1).padStart(2, '0')}`,
}));

/** Names that would match too much if LIKE wildcards reached the pattern unescaped. */
const specials: Partial<DataWellUpsert>[] = [
  { name: 'Percent 100% Leak', recordCount: 7 },
  { name: 'Percent 1000 Leak', recordCount: 8 },
  { name: 'Under_score Dump', recordCount: 9 },
  { name: 'UnderXscore Dump', recordCount: 10 },
  { name: 'Back\\slash Forum', recordCount: 11 },
  { name: 'Backslash Forum', recordCount: 12 },
  // Case-insensitive name order: "alpha" sorts before "Beta" even though 'B' < 'a' in C.
  { name: 'alpha lowercase', recordCount: 13 },
  { name: 'Beta Uppercase', recordCount: 14 },
  { name: 'Quiet Source', recordCount: 15, description: 'A forum dump that mentions ZebraCorn in passing.' },
  { name: 'Zebracorn Market', recordCount: 16, description: 'Marketplace.' },
];

const seed = (well: Partial<DataWellUpsert> & { name: string }) =>
  upsertDataWell(server.runtime.db, {
    date: null,
    description: `About ${well.name}`,
    recordCount: 1,
    dataTypes: ['email', 'password'],
    isSensitive: false,
    segmentId: `seg-${well.name}`,
    ...well,
  });

const TOTAL = numbered.length + specials.length;

before(async () => {
  server = await startTestServer({ env: { TRUSTED_PROXIES: '127.0.0.1' } });
  for (const well of numbered) await seed(well);
  for (const well of specials) await seed(well as DataWellUpsert);
});
after(async () => {
  await server?.close();
  await stopTestDatabaseServer();
});

const list = (query: string, ip = freshIp()) => call<{ data_wells: Well[]; total: number; error?: string }>(server.url, 'GET', `/datawells${query}`, { ip });
const search = (body: unknown, ip = freshIp()) => call<{ data_wells: Well[]; error?: string }>(server.url, 'POST', '/datawells/search', { body, ip });
const names = (wells: Well[]) => wells.map((w) => w.name);

/** Every well in the given order, read page by page through the API. */
async function everyWell(sort: string, count = 50): Promise<Well[]> {
  const all: Well[] = [];
  for (let page = 1; ; page++) {
    const reply = await list(`?sort=${sort}&count=${count}&page=${page}`);
    assert.equal(reply.status, 200);
    assert.equal(reply.body.total, TOTAL);
    if (reply.body.data_wells.length === 0) break;
    all.push(...reply.body.data_wells);
  }
  assert.equal(all.length, TOTAL);
  return all;
}

describe('browsing', () => {
  test('defaults: page 1, 20 wells, largest first, allow-listed fields', async () => {
    const reply = await list('');
    assert.equal(reply.status, 200);
    assert.deepEqual(Object.keys(reply.body).sort(), ['data_wells', 'total']);
    assert.equal(reply.body.total, TOTAL);
    assert.equal(reply.body.data_wells.length, 20);
    const records = reply.body.data_wells.map((w) => w.records);
    assert.deepEqual(records, [...records].sort((a, b) => b - a));
    for (const well of reply.body.data_wells) {
      assert.deepEqual(Object.keys(well).sort(), WELL_KEYS, 'no ids, segment ids or timestamps');
      assert.ok(Number.isInteger(well.records));
      assert.ok(well.date === null || /^\d{4}-\d{2}-\d{2}$/.test(well.date));
      assert.equal(well.data, 'email, password');
      assert.equal(well.image, null);
    }
  });

  test('dates come back as stored, whatever the time zone', async () => {
    const first = (await list('?sort=name_asc')).body.data_wells.find((w) => w.name === 'Well 001');
    assert.equal(first?.date, numbered[0]!.date);
  });

  test('pages of 20 and of 50 cover the catalogue once; past the end is empty', async () => {
    const by20 = await everyWell('name_asc', 20);
    const by50 = await everyWell('name_asc', 50);
    assert.deepEqual(names(by20), names(by50));
    assert.equal(new Set(names(by20)).size, TOTAL);
    const third = await list('?sort=name_asc&count=20&page=3');
    assert.equal(third.body.data_wells.length, 20);
    const last = await list('?sort=name_asc&count=20&page=4');
    assert.equal(last.body.data_wells.length, TOTAL - 60);
    const beyond = await list('?count=50&page=9999');
    assert.equal(beyond.status, 200);
    assert.deepEqual(beyond.body, { data_wells: [], total: TOTAL });
  });

  test('sort by name, case-insensitive, both directions', async () => {
    const ascending = names(await everyWell('name_asc'));
    const descending = names(await everyWell('name_desc'));
    assert.deepEqual(descending, [...ascending].reverse());
    assert.ok(ascending.indexOf('alpha lowercase') < ascending.indexOf('Beta Uppercase'));
    const numberedOrder = ascending.filter((name) => name.startsWith('Well '));
    assert.deepEqual(numberedOrder, numbered.map((w) => w.name));
  });

  test('sort by records, both directions', async () => {
    const expected = [...numbered.map((w) => ({ name: w.name, records: w.recordCount })), ...specials.map((w) => ({ name: w.name!, records: w.recordCount! }))];
    const ascending = await everyWell('records_asc');
    assert.deepEqual(ascending.map((w) => w.records), expected.map((w) => w.records).sort((a, b) => a - b));
    const descending = await everyWell('records_desc');
    assert.deepEqual(descending.map((w) => w.records), expected.map((w) => w.records).sort((a, b) => b - a));
    // Distinct counts: one order is the other reversed.
    assert.deepEqual(names(descending), names(ascending).reverse());
  });

  test('sort by date, both directions, unknown dates last', async () => {
    for (const [sort, direction] of [
      ['date_asc', 1],
      ['date_desc', -1],
    ] as const) {
      const wells = await everyWell(sort);
      const dated = wells.filter((w) => w.date !== null);
      const firstUndated = wells.findIndex((w) => w.date === null);
      assert.equal(firstUndated, dated.length, `${sort}: wells without a date come last`);
      for (let i = 1; i < dated.length; i++) {
        assert.ok(direction * dated[i - 1]!.date!.localeCompare(dated[i]!.date!) <= 0, `${sort}: ${dated[i - 1]!.date} then ${dated[i]!.date}`);
      }
    }
  });

  test('count must be 20 or 50, sort one of the eight, page 1 to 9999', async () => {
    for (const query of ['?count=30', '?count=0', '?count=abc', '?sort=records', '?sort=bogus_desc', '?page=0', '?page=-1', '?page=1.5', '?page=10000', '?page=abc', '?page=1&page=2']) {
      const reply = await list(query);
      assert.equal(reply.status, 400, query);
      assert.equal(typeof reply.body.error, 'string', query);
    }
    for (const query of ['?count=20', '?count=50', '?page=1', '?page=9999', '?sort=date_desc&count=50&page=2']) {
      assert.equal((await list(query)).status, 200, query);
    }
  });
});

describe('the free listing as other services\' clients call it (GET /data-wells)', () => {
  test('count, page, sort added|name|date|records with -ASC/-DESC; the same pages as /datawells; a browser gets the page', async () => {
    const compat = (query: string) => call<{ data_wells: Well[]; total: number; error?: string }>(server.url, 'GET', `/data-wells${query}`, { ip: freshIp() });
    const pairs: [string, string][] = [
      ['?count=50&page=2&sort=records-DESC', '?count=50&page=2&sort=records_desc'],
      ['?sort=NAME', '?sort=name_asc'],
      ['?sort=date-asc&count=20', '?sort=date_asc&count=20'],
      ['?sort=added', '?sort=added_desc'],
      ['', ''],
    ];
    for (const [query, native] of pairs) {
      const reply = await compat(query);
      assert.equal(reply.status, 200, query);
      assert.deepEqual(reply.body, (await list(native)).body, `${query} = ${native}`);
    }
    assert.equal((await compat('?sort=popularity')).status, 400);
    assert.equal((await compat('?count=30')).status, 400);
    const added = await everyWell('added_asc');
    assert.equal(added.length, TOTAL);
    const page = await fetch(`${server.url}/data-wells`, { headers: { accept: 'text/html' } });
    assert.match(page.headers.get('content-type') ?? '', /text\/html/);
  });
});

describe('search', () => {
  test('fewer than 4 characters is refused with the documented message', async () => {
    for (const query of ['', 'abc', '  ab  ', '   ']) {
      const reply = await search({ query });
      assert.equal(reply.status, 400, JSON.stringify(query));
      assert.deepEqual(reply.body, { error: 'Query must be atleast 4 characters' });
    }
    assert.equal((await search({})).status, 400);
    assert.equal((await search({ query: 1234 })).status, 400);
    assert.equal((await search({ query: 'x'.repeat(101) })).status, 400);
    assert.equal((await search({ query: 'x'.repeat(100) })).status, 200);
  });

  test('case-insensitive substring of name or description, name matches first', async () => {
    const reply = await search({ query: 'zebraCORN' });
    assert.equal(reply.status, 200);
    assert.deepEqual(Object.keys(reply.body), ['data_wells']);
    assert.deepEqual(names(reply.body.data_wells), ['Zebracorn Market', 'Quiet Source']);
    assert.deepEqual(Object.keys(reply.body.data_wells[0]!).sort(), WELL_KEYS);
    assert.deepEqual(names((await search({ query: '  percent 100  ' })).body.data_wells).sort(), ['Percent 100% Leak', 'Percent 1000 Leak']);
    assert.deepEqual((await search({ query: 'nothing matches this' })).body, { data_wells: [] });
  });

  test('LIKE wildcards in the query match literally', async () => {
    assert.deepEqual(names((await search({ query: '100%' })).body.data_wells), ['Percent 100% Leak']);
    assert.deepEqual(names((await search({ query: 'der_sc' })).body.data_wells), ['Under_score Dump']);
    assert.deepEqual(names((await search({ query: 'k\\sl' })).body.data_wells), ['Back\\slash Forum']);
    assert.deepEqual((await search({ query: '%%%%' })).body.data_wells, []);
    assert.deepEqual((await search({ query: '____' })).body.data_wells, []);
  });

  test('results are bounded', async () => {
    const reply = await search({ query: 'well 0' });
    assert.equal(reply.status, 200);
    assert.equal(reply.body.data_wells.length, 50);
  });
});

describe('ingest upserts (datawells-repository)', () => {
  test('a second ingest adds counts and data types; re-publishing a segment is a no-op', async () => {
    const db = server.runtime.db;
    const base = { name: 'Merge Test Well', description: 'First description', isSensitive: false } as const;
    await upsertDataWell(db, { ...base, date: null, recordCount: 10, dataTypes: ['password', 'email', 'email'], segmentId: 'merge-1' });
    const find = async () => (await search({ query: 'Merge Test Well' })).body.data_wells;

    let [well] = await find();
    assert.equal(well?.records, 10);
    assert.equal(well?.data, 'email, password', 'distinct and sorted');
    assert.equal(well?.date, null);

    await upsertDataWell(db, { ...base, description: '', date: '2021-03-04', recordCount: 5, dataTypes: ['username', 'email'], isSensitive: true, segmentId: 'merge-2' });
    [well] = await find();
    assert.equal(well?.records, 15);
    assert.equal(well?.data, 'email, password, username', 'union of data types');
    assert.equal(well?.date, '2021-03-04');
    assert.equal(well?.description, 'First description', 'an empty description keeps the old one');
    assert.equal(well?.is_sensitive, true);

    // A rerun after a crash publishes merge-2 again: nothing is counted twice.
    await upsertDataWell(db, { ...base, date: null, recordCount: 5, dataTypes: ['username'], segmentId: 'merge-2' });
    [well] = await find();
    assert.equal(well?.records, 15);
    assert.equal(well?.date, '2021-03-04', 'an unknown date keeps the known one');
    assert.equal(well?.is_sensitive, true, 'sensitive stays sensitive');

    const row = await db.selectFrom('data_wells').select(['segment_ids']).where('name', '=', base.name).executeTakeFirstOrThrow();
    assert.deepEqual(row.segment_ids, ['merge-1', 'merge-2']);
    assert.equal((await list('')).body.total, TOTAL + 1, 'still one well');
  });
});

describe('public access', () => {
  test('no authorization needed; documented in the OpenAPI description', async () => {
    assert.equal((await call(server.url, 'GET', '/datawells', { token: 'not-a-token' })).status, 200);
    const spec = (await call(server.url, 'GET', '/openapi.json')).body;
    assert.equal(spec.paths['/datawells'].get.operationId, 'listDataWells');
    assert.equal(spec.paths['/datawells/search'].post.operationId, 'searchDataWells');
  });

  test('one address hammering the catalogue gets 429 with Retry-After; others are unaffected', async () => {
    const ip = freshIp();
    const replies = await Promise.all(Array.from({ length: 70 }, () => list('?count=20', ip)));
    const limited = replies.filter((r) => r.status === 429);
    assert.ok(limited.length > 0, 'some requests are throttled');
    assert.ok(replies.filter((r) => r.status === 200).length >= 40, 'the burst passes');
    assert.deepEqual(limited[0]!.body, { error: 'too many requests' });
    assert.ok(Number(limited[0]!.headers.get('retry-after')) >= 1);
    assert.equal((await list('', freshIp())).status, 200);
  });
});
