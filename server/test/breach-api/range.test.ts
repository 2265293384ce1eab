/**
 * GET /range/{prefix}, the Pwned Passwords range API (server/src/breach-api/range-routes.ts)
 * against a real server and index: the wire format (upper-case suffixes, sorted, CRLF,
 * exact counts, any-case prefix), sha1 and ntlm modes, padding, the 400s, caching (ETag,
 * 304, a new ingest or a removal changing the tag), the per-address throttle, and that the
 * log never shows a prefix.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { startTestServer, type TestServer } from '../support/harness';
import { call, freshIp } from '../support/helpers';
import { md4, ntlm } from './ntlm';

const sha1 = (s: string) => createHash('sha1').update(s).digest('hex').toUpperCase();
const TOKEN = 'range-metrics-token-0123456789';

const P_SHARED = 'range-shared-Passw0rd';
const P_ONCE = 'range-once-Passw0rd';
const P_STORED = 'range-stored-sha1-Passw0rd';
const P_NT = 'range-stored-ntlm-Passw0rd';
const P_GONE = 'range-removed-Passw0rd';
// Stored hashes crafted under one prefix: three SHA-1-shaped (one held twice), one
// NTLM-shaped (32 hex) and one SHA-256-shaped (64 hex).
const CRAFT = 'f00ba';
const C1 = `${CRAFT}9${'1'.repeat(34)}`;
const C2 = `${CRAFT}a${'2'.repeat(34)}`;
const C3 = `${CRAFT}0${'3'.repeat(34)}`;
const C_NT = `${CRAFT}${'b'.repeat(27)}`;
const C_256 = `${CRAFT}${'e'.repeat(59)}`;

let server: TestServer;
before(async () => {
  server = await startTestServer({ env: { TRUSTED_PROXIES: '127.0.0.1', METRICS_TOKEN: TOKEN } });
  await server.ingest('Range Corpus', [
    { email: 'shared1@range.example', password: P_SHARED },
    { email: 'shared2@range.example', password: P_SHARED },
    // Found both as plaintext and as its stored SHA-1: one record, counted once.
    { email: 'shared3@range.example', password: P_SHARED, hashed_password: sha1(P_SHARED).toLowerCase() },
    { email: 'once@range.example', password: P_ONCE },
    { email: 'stored@range.example', hashed_password: sha1(P_STORED).toLowerCase() },
    { email: 'nt@range.example', hashed_password: ntlm(P_NT).toLowerCase() },
    { email: 'c1@range.example', hashed_password: C1 },
    { email: 'c2@range.example', hashed_password: C2 },
    { email: 'c3a@range.example', hashed_password: C3 },
    { email: 'c3b@range.example', hashed_password: C3 },
    { email: 'cnt@range.example', hashed_password: C_NT },
    { email: 'c256@range.example', hashed_password: C_256 },
    { email: 'gone1@range.example', password: P_GONE },
    { email: 'gone2@range.example', password: P_GONE },
    { email: 'gone3@range.example', password: P_GONE },
  ]);
});
after(() => server.close());

/** GET, the body as text; from a fresh client address unless one is given. */
async function get(path: string, headers: Record<string, string> = {}, ip = freshIp()) {
  const response = await fetch(server.url + path, { headers: { 'x-forwarded-for': ip, ...headers } });
  return { status: response.status, text: await response.text(), headers: response.headers };
}

/** The count of `hash` (upper-case hex) in an answer, 0 when absent. */
function countOf(body: string, hash: string, prefixLength = 5): number {
  const line = body.split('\r\n').find((l) => l.startsWith(`${hash.slice(prefixLength)}:`));
  return line ? Number(line.split(':')[1]) : 0;
}

const line = (hash: string, count: number) => `${hash.slice(5).toUpperCase()}:${count}`;

test('the test NTLM is right: MD4 and NTLM of known values', () => {
  assert.equal(md4(Buffer.from('')).toString('hex'), '31d6cfe0d16ae931b73c59d7e0c089c0');
  assert.equal(md4(Buffer.from('abc')).toString('hex'), 'a448017aaf21d8525fc10ae87aa6729d');
  assert.equal(ntlm('password'), '8846F7EAEE8FB117AD06BDD830B7586C');
});

test('sha1: upper-case suffixes sorted, CRLF between lines, exact counts, any-case prefix', async () => {
  const r = await get(`/range/${CRAFT.toUpperCase()}`);
  assert.equal(r.status, 200);
  assert.match(r.headers.get('content-type') ?? '', /^text\/plain/);
  // The 32- and 64-hex hashes under the prefix are other kinds: not SHA-1 lines.
  assert.equal(r.text, [line(C3, 2), line(C1, 1), line(C2, 1)].join('\r\n'));
  for (const prefix of [CRAFT, 'F00bA']) assert.equal((await get(`/range/${prefix}`)).text, r.text, prefix);
  assert.equal((await get(`/range/${CRAFT}?mode=SHA1`)).text, r.text);

  const shared = sha1(P_SHARED);
  const s = await get(`/range/${shared.slice(0, 5).toLowerCase()}`);
  assert.equal(s.text, line(shared, 3));
  assert.equal((await get(`/range/${sha1(P_ONCE).slice(0, 5)}`)).text, line(sha1(P_ONCE), 1));
  assert.equal((await get(`/range/${sha1(P_STORED).slice(0, 5)}`)).text, line(sha1(P_STORED), 1));
});

test('an unused prefix answers 200 with an empty body', async () => {
  const used = new Set([P_SHARED, P_ONCE, P_STORED, P_NT, P_GONE].flatMap((p) => [sha1(p).slice(0, 5), ntlm(p).slice(0, 5)]));
  const unused = ['00000', '12345', 'ABCDE'].find((p) => !used.has(p))!;
  for (const mode of ['sha1', 'ntlm']) {
    const r = await get(`/range/${unused}?mode=${mode}`);
    assert.equal(r.status, 200);
    assert.equal(r.text, '');
  }
});

test('400 as plain text for a malformed prefix or an unknown mode', async () => {
  for (const prefix of ['5BAA', '5BAA61', 'GGGGG', '5BAA%20', '%20%20%20%20%20', '5B%0AA6']) {
    const r = await get(`/range/${prefix}`);
    assert.equal(r.status, 400, prefix);
    assert.match(r.headers.get('content-type') ?? '', /^text\/plain/);
    assert.equal(r.text, 'The hash prefix was not in a valid format', prefix);
  }
  for (const query of ['mode=md5', 'mode=', 'mode=sha1&mode=ntlm']) {
    const r = await get(`/range/${CRAFT}?${query}`);
    assert.equal(r.status, 400, query);
    assert.equal(r.text, 'The mode was not sha1 or ntlm', query);
  }
});

test('ntlm mode lists the 32-hex hashes: stored NTLM hashes, 27-character suffixes', async () => {
  const r = await get(`/range/${CRAFT}?mode=ntlm`);
  assert.equal(r.status, 200);
  assert.equal(r.text, line(C_NT, 1));
  const nt = ntlm(P_NT);
  assert.equal((await get(`/range/${nt.slice(0, 5)}?mode=NTLM`)).text, line(nt, 1));
  // Not the SHA-1 of the same password.
  assert.equal(countOf((await get(`/range/${sha1(P_STORED).slice(0, 5)}?mode=ntlm`)).text, sha1(P_STORED)), 0);
});

test('ntlm mode counts plaintext passwords by their NTLM', async () => {
  const nt = ntlm(P_SHARED);
  const r = await get(`/range/${nt.slice(0, 5)}?mode=ntlm`);
  assert.equal(r.status, 200);
  assert.equal(countOf(r.text, nt), 3, r.text);
  assert.equal(countOf((await get(`/range/${ntlm(P_ONCE).slice(0, 5)}?mode=ntlm`)).text, ntlm(P_ONCE)), 1);
});

/** Checks a padded answer; returns its line count. */
function checkPadded(body: string, suffixLength: number, real: string[]): number {
  const lines = body.split('\r\n');
  assert.equal(body.split('\n').length, lines.length, 'every line break is CRLF');
  assert.ok(lines.length >= 800 && lines.length <= 1000, `${lines.length} lines`);
  const pattern = new RegExp(`^[0-9A-F]{${suffixLength}}:\\d+$`);
  for (const l of lines) assert.match(l, pattern);
  const suffixes = lines.map((l) => l.split(':')[0]!);
  assert.equal(new Set(suffixes).size, suffixes.length, 'no suffix twice');
  assert.deepEqual(suffixes, [...suffixes].sort(), 'sorted by suffix');
  for (const l of real) assert.ok(lines.includes(l), `real line ${l} kept`);
  assert.equal(lines.filter((l) => !l.endsWith(':0')).length, real.length, 'every other line has count 0');
  return lines.length;
}

test('Add-Padding: 800 to 1,000 lines, padding of count 0, real lines kept, sorted, no repeats', async () => {
  const real = [line(C3, 2), line(C1, 1), line(C2, 1)];
  const sizes: number[] = [];
  for (const value of ['true', 'TRUE', 'True', 'true', 'true']) {
    const r = await get(`/range/${CRAFT}`, { 'add-padding': value });
    assert.equal(r.status, 200);
    sizes.push(checkPadded(r.text, 35, real));
  }
  assert.ok(new Set(sizes).size > 1, `sizes vary: ${sizes.join(', ')}`);
  checkPadded((await get(`/range/${CRAFT}?mode=ntlm`, { 'add-padding': 'true' })).text, 27, [line(C_NT, 1)]);
  checkPadded((await get('/range/00000', { 'add-padding': 'true' })).text, 35, []);
  assert.equal((await get(`/range/${CRAFT}`, { 'add-padding': 'false' })).text, real.join('\r\n'));
});

test('cacheable: ETag and 304, one tag per variant, a new ingest changes the tag of the prefixes it touches', async () => {
  const first = await get(`/range/${CRAFT}`);
  const etag = first.headers.get('etag')!;
  assert.match(etag, /^"[^"]+"$/);
  assert.equal(first.headers.get('cache-control'), 'public, max-age=600');
  assert.match(first.headers.get('vary') ?? '', /Add-Padding/i);
  assert.equal(first.headers.get('access-control-allow-origin'), '*');
  assert.equal((await get(`/range/${CRAFT.toUpperCase()}`)).headers.get('etag'), etag);

  for (const condition of [etag, `"other", ${etag}`, `W/${etag}`, '*']) {
    const r = await get(`/range/${CRAFT}`, { 'if-none-match': condition });
    assert.equal(r.status, 304, condition);
    assert.equal(r.text, '');
    assert.equal(r.headers.get('etag'), etag);
  }
  assert.equal((await get(`/range/${CRAFT}`, { 'if-none-match': '"other"' })).status, 200);

  const padded = await get(`/range/${CRAFT}`, { 'add-padding': 'true' });
  const paddedTag = padded.headers.get('etag')!;
  assert.match(paddedTag, /^W\/"[^"]+"$/);
  assert.notEqual(paddedTag.slice(2), etag);
  assert.equal((await get(`/range/${CRAFT}`, { 'add-padding': 'true', 'if-none-match': paddedTag })).status, 304);
  assert.equal((await get(`/range/${CRAFT}`, { 'add-padding': 'true', 'if-none-match': etag })).status, 200);
  assert.equal((await get(`/range/${CRAFT}`, { 'if-none-match': paddedTag })).status, 200);
  assert.notEqual((await get(`/range/${CRAFT}?mode=ntlm`)).headers.get('etag'), etag);

  const other = sha1(P_ONCE).slice(0, 5);
  const otherTag = (await get(`/range/${other}`)).headers.get('etag')!;
  const added = `${CRAFT}${'5'.repeat(35)}`;
  await server.ingest('Range Corpus Two', [{ email: 'new@range.example', hashed_password: added }]);
  const changed = await get(`/range/${CRAFT}`, { 'if-none-match': etag });
  assert.equal(changed.status, 200);
  assert.notEqual(changed.headers.get('etag'), etag);
  assert.equal(countOf(changed.text, added.toUpperCase()), 1);
  assert.equal((await get(`/range/${other}`, { 'if-none-match': otherTag })).status, 304, 'a prefix the ingest left alone keeps its tag');
});

test('a removed record and an opted-out address no longer count, and the tag changes', async () => {
  const hash = sha1(P_GONE);
  const path = `/range/${hash.slice(0, 5)}`;
  const before = await get(path);
  assert.equal(countOf(before.text, hash), 3);
  const engine = server.runtime.engine;
  const entry = (await engine.search({ query: 'email:gone1@range.example' })).entries[0];
  assert.ok(entry);
  assert.equal(await engine.remove(entry.id), true);
  const removed = await get(path, { 'if-none-match': before.headers.get('etag')! });
  assert.equal(removed.status, 200);
  assert.equal(countOf(removed.text, hash), 2);
  await engine.suppress('gone2@range.example');
  assert.equal(countOf((await get(path)).text, hash), 1);
});

test('throttled per client address: 429 as plain text with retry-after; another address is served', async () => {
  const ip = freshIp();
  const answers = await Promise.all(Array.from({ length: 30 }, () => get(`/range/${CRAFT}`, {}, ip)));
  const refused = answers.filter((a) => a.status === 429);
  assert.ok(refused.length > 0, 'some refused');
  assert.ok(answers.some((a) => a.status === 200), 'some served');
  for (const r of refused) {
    assert.match(r.headers.get('retry-after') ?? '', /^[1-9]\d*$/);
    assert.match(r.headers.get('content-type') ?? '', /^text\/plain/);
  }
  assert.equal((await get(`/range/${CRAFT}`)).status, 200);
});

test('browsers may call it: the preflight allows Add-Padding from any origin', async () => {
  const response = await fetch(`${server.url}/range/${CRAFT}`, {
    method: 'OPTIONS',
    headers: { origin: 'https://vault.example', 'access-control-request-method': 'GET', 'access-control-request-headers': 'add-padding' },
  });
  assert.equal(response.status, 204);
  assert.equal(response.headers.get('access-control-allow-origin'), '*');
  assert.match(response.headers.get('access-control-allow-headers') ?? '', /Add-Padding/i);
});

test('in the OpenAPI document under its tag; measured as password ranges; no range URL in the log', async () => {
  const doc = (await call(server.url, 'GET', '/openapi.json')).body;
  const op = doc.paths['/range/{prefix}'].get;
  assert.deepEqual(op.tags, ['pwned passwords']);
  assert.ok(op.responses['200'].content['text/plain'], JSON.stringify(op.responses['200']));

  const metrics = await call<string>(server.url, 'GET', '/metrics', { headers: { authorization: `Bearer ${TOKEN}` } });
  const sample = metrics.body.split('\n').find((l) => l.startsWith('leakwell_search_engine_seconds_count{') && l.includes('class="password_range"'));
  assert.ok(sample && Number(sample.split(' ').at(-1)) > 0, sample);

  const logs = server.logs();
  assert.ok(!logs.includes('/range/'), 'no range URL in the log');
});
