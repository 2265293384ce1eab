/**
 * Refusals of a request's shape in plain words (server/src/infra/validation-messages.ts), on
 * the dashboard's routes, /v2 and the Monitor API V1: no "body/", no "must be integer", no
 * "must be equal to one of the allowed values".
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../support/harness';
import { call, callV2 } from '../support/helpers';

let server: TestServer;
let token: string;
let apiKey: string;

before(async () => {
  server = await startTestServer({ env: { API_RATE_BURST: '100', API_RATE_PER_SECOND: '100' } });
  const user = await server.createUser({ searchDays: 30, searchCredits: 10, apiKey: true });
  token = (await server.login(user.email)).token;
  apiKey = user.apiKey!;
});
after(() => server.close());

const dashboard = async (path: string, body: unknown) => (await call(server.url, 'POST', path, { token, body })).body.error as string;
const v2 = async (body: unknown, path = '/v2/search') => (await callV2(server, apiKey, body, { path })).body.error as string;

test('the dashboard, /v2 and the Monitor API name the field and the rule in plain words', async () => {
  assert.equal(await dashboard('/monitoring/get-tasks', { page: 'two' }), 'Invalid request: page must be a whole number');
  assert.equal(await dashboard('/monitoring/get-tasks', { page: 0 }), 'Invalid request: page must be at least 1');
  assert.equal(await dashboard('/monitoring/add-task', { key: 'email' }), 'Invalid request: value is required');
  assert.equal(await dashboard('/monitoring/get-tasks', { page: 1, extra: true }), 'Invalid request: extra is not a known field');
  assert.equal(await v2({ query: 'x', size: 10_001 }), 'Invalid request: size must be at most 10000');
  assert.equal(await v2({ query: '' }), 'Invalid request: query must not be empty');
  assert.equal(await v2({ query: 'abcd', regex: 'yes' }), 'Invalid request: regex must be true or false');
  assert.equal(await v2({ prefix: 'abc' }, '/v2/search-password-range'), 'Invalid request: prefix is not in the expected format');

  const v1 = await fetch(`${server.url}/monitor-api/v1/update`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
    body: JSON.stringify({ id: '1', update_type: 'task', task_status: 'stop' }),
  });
  assert.equal(v1.status, 302);
  assert.deepEqual(await v1.json(), { error: 'Invalid or missing field: task_status must be one of: pause, resume, delete' });
});
