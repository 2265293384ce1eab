/**
 * GET /metrics (server/src/metrics): off (404) without METRICS_TOKEN; with it, 401 without
 * or with a wrong bearer token, and after some traffic the Prometheus text holds every
 * family with the counts moved, labelled by route pattern and query class, never by user data.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../support/harness';
import { call, callV2 } from '../support/helpers';

const TOKEN = 'metrics-test-token-0123456789';
let server: TestServer;
let plain: TestServer;

before(async () => {
  server = await startTestServer({ env: { METRICS_TOKEN: TOKEN, API_RATE_PER_SECOND: '1', API_RATE_BURST: '2', DB_POOL_SIZE: '3' } });
  plain = await startTestServer({ env: { DB_POOL_SIZE: '3' } });
});

after(async () => {
  await server?.close();
  await plain?.close();
});

/** Sample value of `name{labels…}` (labels matched as a substring set), or undefined. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`))) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}

/** Sum of every `name{labels…}` sample matching the labels. */
function total(text: string, name: string, labels: Record<string, string> = {}): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    if (Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`))) sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
}

async function scrape(target = server, token = TOKEN, scheme = 'Bearer') {
  return call<string>(target.url, 'GET', '/metrics', { headers: { authorization: `${scheme} ${token}` } });
}

test('/metrics is 404 without METRICS_TOKEN, and 401 without the token or with a wrong one', async () => {
  assert.equal((await scrape(plain)).status, 404);
  assert.equal((await call(server.url, 'GET', '/metrics')).status, 401);
  const wrong = await scrape(server, 'metrics-test-token-0123456780');
  assert.equal(wrong.status, 401);
  assert.doesNotMatch(String(wrong.body), /leakwell_/);
  assert.equal((await scrape(server, TOKEN, 'Basic')).status, 401);
});

// The scheme is case-insensitive (RFC 9110 §11.1): a scraper writing `bearer` is within the standard.
test('/metrics takes the token whatever the case of the Bearer scheme', async () => {
  for (const scheme of ['Bearer', 'bearer', 'BEARER']) assert.equal((await scrape(server, TOKEN, scheme)).status, 200, scheme);
});

test('after traffic, every family is there and its counts moved; labels hold route patterns and query classes only', async () => {
  const secretQuery = 'needle-7f3a@metrics.example';
  await server.ingest('Metrics Well', [{ email: secretQuery, password: 'hunter2' }, { email: 'other@metrics.example' }]);
  const user = await server.createUser({ searchDays: 30, searchCredits: 50, apiKey: true });
  const first = await scrape();
  assert.equal(first.status, 200);
  assert.match(first.headers.get('content-type') ?? '', /^text\/plain/);
  const searchesBefore = total(first.body, 'leakwell_search_engine_seconds_count', { outcome: 'ok' });

  const ip = '198.51.100.77';
  const statuses: number[] = [];
  for (let i = 0; i < 4; i++) statuses.push((await callV2(server, user.apiKey, { query: `email:"${secretQuery}"` }, { ip })).status);
  assert.ok(statuses.includes(200) && statuses.includes(429), statuses.join(','));
  await call(server.url, 'GET', `/no-such-page/${secretQuery}`);

  // The index gauges follow the engine (refreshed each second).
  let text = '';
  for (let i = 0; i < 30; i++) {
    text = (await scrape()).body;
    if ((sample(text, 'leakwell_index_records') ?? 0) >= 2) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  for (const family of [
    'leakwell_http_request_duration_seconds',
    'leakwell_rate_limited_total',
    'leakwell_search_engine_seconds',
    'leakwell_job_failures_total',
    'leakwell_deliveries_total',
    'leakwell_queue_jobs',
    'leakwell_index_segments_published_total',
    'leakwell_index_records',
    'leakwell_index_bytes',
    'leakwell_index_segments',
    'leakwell_process_cpu_seconds_total',
  ]) {
    assert.ok(new RegExp(`^# TYPE ${family} `, 'm').test(text), family);
  }
  assert.ok((sample(text, 'leakwell_http_request_duration_seconds_count', { route: '/v2/search', status: '200' }) ?? 0) >= 1);
  assert.ok((sample(text, 'leakwell_rate_limited_total', { route: '/v2/search' }) ?? 0) >= 1);
  assert.ok(total(text, 'leakwell_search_engine_seconds_count', { outcome: 'ok' }) > searchesBefore, text.split('\n').filter((l) => l.startsWith('leakwell_search_engine_seconds_count')).join('\n'));
  for (const match of text.matchAll(/leakwell_search_engine_seconds_count\{([^}]*)\}/g)) assert.match(match[1]!, /class="(exact|wildcard|regex|auto|password_check|password_range|well_counts)"/);
  assert.ok((sample(text, 'leakwell_http_request_duration_seconds_count', { route: 'unmatched', status: '404' }) ?? 0) >= 1);
  assert.ok((sample(text, 'leakwell_index_records') ?? 0) >= 2, text.split('\n').filter((l) => l.startsWith('leakwell_index')).join('\n'));
  assert.ok((sample(text, 'leakwell_index_bytes') ?? 0) > 0);
  assert.ok(sample(text, 'leakwell_queue_jobs', { queue: 'deliver', state: 'waiting' }) !== undefined);
  // Never user data: not the query, the email, the key or the raw URL.
  for (const secret of [secretQuery, 'metrics.example', user.apiKey!, user.email, '/no-such-page']) assert.ok(!text.includes(secret), secret);
});
