/**
 * The request forms existing v2 clients send and the
 * response types they rely on. Every form must be accepted and answered with the
 * documented shape.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { startTestServer, type TestServer } from '../support/harness';
import { callV2 } from '../support/helpers';

let server: TestServer;
let key: string;
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

before(async () => {
  // API_MAX_DEPTH: an operator raised the depth past the default 10,000 (clients of the anchor page to 50,000).
  server = await startTestServer({ env: { API_RATE_BURST: '500', API_RATE_PER_SECOND: '500', API_MAX_DEPTH: '20000' } });
  const records = [
    { email: 'a@b.com', username: 'xuser', password: 'pw1', hashed_password: sha256('Password1'), domain: 'b.com' },
    { email: 'john.smith@fake-box.com', username: 'johnsmith', name: 'John Smith', ip_address: '192.168.10.20', phone: '15550100' },
    { email: 'jane@fake-box.com', username: 'jane_doe', address: '1 Main St', vin: '1HGCM82633A004352', license_plate: 'ABC123' },
    { email: 'other@box.com', username: 'fake', company: 'Fake Box Ltd', url: 'https://fake-box.com/x', social: '@fakebox', cryptocurrency_address: '1BoatSLRHtKNngkdXEeobR76b53LETtpyT', dob: '1990-01-01' },
  ];
  for (let i = 0; i < 30; i++) records.push({ email: `bulk${i}@paging.example`, username: `bulk${i}`, password: 'same-password' } as never);
  await server.ingest('Compat Source', records);
  const user = await server.createUser({ searchDays: 30, searchCredits: 1000, apiKey: true });
  key = user.apiKey!;
});
after(() => server.close());

function assertResponseTypes(body: any) {
  assert.equal(typeof body.balance, 'number');
  assert.ok(Number.isInteger(body.balance));
  assert.ok(Number.isInteger(body.total));
  assert.equal(typeof body.took, 'string');
  assert.ok(Array.isArray(body.entries));
  for (const entry of body.entries) {
    assert.equal(typeof entry.id, 'string');
    assert.equal(typeof entry.database_name, 'string');
    for (const [field, value] of Object.entries(entry)) {
      if (field === 'id' || field === 'database_name' || field === 'raw_record') continue;
      assert.ok(Array.isArray(value) && value.length > 0 && value.every((v) => typeof v === 'string'), `${field} is a non-empty array of strings`);
    }
  }
}

test('query forms real clients send', async () => {
  const forms: [string, Record<string, unknown>, (total: number) => boolean][] = [
    ['quoted email', { query: 'email:"a@b.com"' }, (t) => t === 1],
    ['quoted username', { query: 'username:"xuser"' }, (t) => t === 1],
    ['unquoted domain', { query: 'domain:fake-box.com' }, (t) => t === 2],
    ['bare term', { query: 'johnsmith' }, (t) => t === 1],
    ['ampersand', { query: 'email:"john.smith@fake-box.com"&username:"johnsmith"' }, (t) => t === 1],
    ['AND', { query: 'domain:fake-box.com AND username:jane_doe' }, (t) => t === 1],
    ['OR', { query: 'username:xuser OR username:johnsmith' }, (t) => t === 2],
    ['parentheses', { query: '(username:xuser OR username:jane_doe) AND domain:fake-box.com' }, (t) => t === 1],
    ['source filter', { query: 'username:xuser&database_name="Compat Source"' }, (t) => t === 1],
    ['source filter, other source', { query: 'username:xuser&database_name=Elsewhere' }, (t) => t === 0],
    ['regex', { query: 'username:/^john.*h$/', regex: true }, (t) => t === 1],
    ['wildcard', { query: 'email:j*@fake-box.com', wildcard: true }, (t) => t === 2],
    ['wildcard ?', { query: 'username:jan?_doe', wildcard: true }, (t) => t === 1],
    ['backslash escape', { query: 'email:john.smith\\@fake-box.com' }, (t) => t === 1],
    ['hashed password', { query: `hashed_password:${sha256('Password1')}` }, (t) => t === 1],
    ['all six fields', { query: 'email:"a@b.com"', page: 1, size: 100, regex: false, wildcard: false, de_dupe: true }, (t) => t === 1],
  ];
  for (const field of ['email', 'username', 'password', 'hashed_password', 'ip_address', 'name', 'address', 'phone', 'vin', 'license_plate', 'social', 'cryptocurrency_address', 'domain', 'url', 'company', 'dob']) {
    forms.push([`field ${field}`, { query: `${field}:"no-such-value-${field}"` }, (t) => t === 0]);
  }
  for (const [name, body, expected] of forms) {
    const reply = await callV2(server, key, body);
    assert.equal(reply.status, 200, `${name}: ${JSON.stringify(reply.body)}`);
    assertResponseTypes(reply.body);
    assert.ok(expected(reply.body.total), `${name}: total ${reply.body.total}`);
  }
});

test('a domain search matches that domain exactly, not look-alikes', async () => {
  const reply = await callV2(server, key, { query: 'domain:box.com' });
  assert.equal(reply.status, 200);
  const emails = reply.body.entries.flatMap((e: any) => e.email ?? []);
  assert.deepEqual(emails, ['other@box.com'], 'fake-box.com is not box.com');
});

test('the key header works in any case', async () => {
  const name = server.runtime.config.apiKeyHeader;
  for (const variant of [name, name.toUpperCase(), name.toLowerCase()]) {
    assert.equal((await callV2(server, key, { query: 'username:xuser' }, { header: variant })).status, 200, variant);
  }
});

test('paging until total <= size * page visits every record once', async () => {
  const seen = new Set<string>();
  let page = 1;
  for (;;) {
    const reply = await callV2(server, key, { query: 'password:same-password', page, size: 7 });
    assert.equal(reply.status, 200);
    for (const entry of reply.body.entries) seen.add(entry.id);
    if (reply.body.total <= 7 * page) break;
    page++;
  }
  assert.equal(seen.size, 30);
  assert.equal(page, 5);
});

test('API_MAX_DEPTH: /v2 pages as deep as the operator allows, the dashboard stays at 10,000', async () => {
  const deep = await callV2(server, key, { query: 'password:same-password', page: 2, size: 10_000 });
  assert.equal(deep.status, 200, 'page × size = 20,000 is served');
  assert.deepEqual([deep.body.total, deep.body.entries.length], [30, 0]);
  assert.equal((await callV2(server, key, { query: 'password:same-password', page: 20_000, size: 1 })).status, 200);
  const tooDeep = await callV2(server, key, { query: 'password:same-password', page: 3, size: 10_000 });
  assert.deepEqual([tooDeep.status, tooDeep.body], [400, { error: 'page × size must not exceed 20,000.' }]);
  assert.equal((await callV2(server, key, { query: 'password:same-password', size: 10_001 })).status, 400, 'a page holds at most 10,000');
});

test('undeclared body properties are dropped and never act (clients send extras)', async () => {
  // One open-source client sends `channels` with create-task; others send their own bookkeeping.
  const created = await callV2(server, key, { type: 'email', value: 'compat-extra@example.com', channels: [1, 2], user_id: 'someone-else' }, { path: '/v2/monitoring/create-task' });
  assert.equal(created.status, 200, JSON.stringify(created.body));
  const task = await callV2(server, key, { id: created.body.id, include: 'everything' }, { path: '/v2/monitoring/get-task' });
  assert.deepEqual([task.status, task.body.value], [200, 'compat-extra@example.com']);
  const before = await callV2(server, key, { query: 'username:xuser' });
  const extras = await callV2(server, key, { query: 'username:xuser', credits: 1_000_000, law_enforcement: true, size: 5, client: 'x' });
  assert.equal(extras.status, 200);
  assert.equal(extras.body.balance, before.body.balance - 1, 'charged one credit, granted none');
  assert.equal(extras.body.entries[0].raw_record, undefined, 'no raw record without law-enforcement status');
  // A declared property keeps its rules.
  assert.equal((await callV2(server, key, { query: 'username:xuser', size: 'five', extra: 1 })).status, 400);
});

test('password search: both body spellings', async () => {
  const a = await callV2(server, key, { sha256_hashed_password: sha256('Password1') }, { path: '/v2/search-password' });
  const b = await callV2(server, key, { hash: sha256('Password1').toUpperCase() }, { path: '/v2/search-password' });
  assert.deepEqual(a.body, { results_found: 1 });
  assert.deepEqual(b.body, { results_found: 1 });
});

test('k-anonymity range lookup: only a 5-character prefix is sent, matching is local', async () => {
  const range = (prefix: string) => callV2(server, key, { prefix }, { path: '/v2/search-password-range' });
  const full = sha256('Password1');
  const reply = await range(full.slice(0, 5).toUpperCase());
  assert.equal(reply.status, 200);
  assert.equal(reply.body.prefix, full.slice(0, 5));
  assert.deepEqual(reply.body.suffixes, [{ suffix: full.slice(5), count: 1 }]);
  assert.equal(reply.body.truncated, false);
  const none = await range(sha256('never-leaked').slice(0, 5));
  assert.ok(none.body.suffixes.every((s: { suffix: string }) => s.suffix !== sha256('never-leaked').slice(5)));
  assert.equal((await range(full.slice(0, 6))).status, 400);
});

test('errors are {"error": …} with the documented statuses', async () => {
  const bad = await callV2(server, undefined, { query: 'x' });
  assert.equal(bad.status, 400);
  assert.equal(typeof bad.body.error, 'string');
  const malformed = await callV2(server, key, { query: 'username:"unterminated' });
  assert.equal(malformed.status, 400);
  assert.equal(typeof malformed.body.error, 'string');
});
