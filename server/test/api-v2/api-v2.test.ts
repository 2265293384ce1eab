/**
 * The public API's guard and contract. Every route under /v2 is guarded by the /v2 plugin's
 * onRequest hook (server/src/api-v2/api-v2-plugin.ts): the routes are enumerated from the
 * running app, so a /v2 route registered past the guard fails here. And /v2/search sends
 * the engine's entries as JSON text, past the route's reply schema: their keys are held to
 * the documented entry shape (the OpenAPI document) both ways.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { FIELD_NAMES } from '../../../engine/index';
import { startTestServer, type TestServer } from '../support/harness';
import { call, callV2 } from '../support/helpers';

let server: TestServer;

before(async () => {
  server = await startTestServer({ env: { API_RATE_BURST: '1000', API_RATE_PER_SECOND: '1000' } });
});
after(() => server.close());

/** Every route of the app with its methods, read from Fastify's route tree. */
function listRoutes(tree: string): { path: string; methods: string[] }[] {
  // Lines look like `│   └── -password (POST)`: four characters of drawing per level; a
  // node's text continues its parent's path.
  const routes: { path: string; methods: string[] }[] = [];
  const parents: string[] = [];
  for (const line of tree.split('\n')) {
    const start = line.search(/[^│├└─ ]/);
    if (start < 4) continue;
    const match = /^(\S+)(?: \(([A-Z, ]+)\))?$/.exec(line.slice(start));
    assert.ok(match, `unexpected route tree line: ${line}`);
    const depth = start / 4 - 1;
    const path = (parents[depth - 1] ?? '') + match[1];
    parents.length = depth;
    parents.push(path);
    if (match[2]) routes.push({ path, methods: match[2].split(', ') });
  }
  return routes;
}

test('every /v2 route refuses a request without a key, whatever its body', async () => {
  const routes = listRoutes(server.runtime.app.printRoutes({ commonPrefix: false })).filter((r) => r.path.startsWith('/v2'));
  const documented = Object.keys((await call(server.url, 'GET', '/openapi.json')).body.paths).filter((p) => p.startsWith('/v2'));
  assert.ok(documented.length >= 3);
  for (const path of documented) assert.ok(routes.some((r) => r.path === path), `the route list holds ${path}`);
  const refusal = { error: `Invalid or missing ${server.runtime.config.apiKeyHeader} header` };
  for (const { path, methods } of routes) {
    for (const method of methods) {
      const url = path.replace(/:[^/]+/g, 'x');
      const withBody = method !== 'GET' && method !== 'HEAD';
      // An empty body and a valid-looking one: neither may reach a handler or a body check first.
      for (const body of withBody ? [{}, { query: 'alice', hash: 'a'.repeat(64), prefix: 'aaaaa' }] : [undefined]) {
        const reply = await call(server.url, method, url, { body });
        assert.equal(reply.status, 400, `${method} ${path} without a key`);
        if (method !== 'HEAD') assert.deepEqual(reply.body, refusal, `${method} ${path} without a key`);
      }
      const wrongKey = await call(server.url, method, url, { headers: { [server.runtime.config.apiKeyHeader]: 'f'.repeat(48) } });
      assert.equal(wrongKey.status, 400, `${method} ${path} with an unknown key`);
    }
  }
});

test("/v2/search entries carry exactly the documented keys (the engine's text is not checked by the reply schema)", async () => {
  const doc = (await call(server.url, 'GET', '/openapi.json')).body;
  const entry = doc.paths['/v2/search'].post.responses['200'].content['application/json'].schema.properties.entries.items;
  const documented = new Set(Object.keys(entry.properties));
  const required: string[] = entry.required ?? [];
  assert.ok(required.includes('id') && required.includes('database_name'));

  // One record with every field, so every optional key can show up.
  const full = Object.fromEntries(FIELD_NAMES.map((field) => [field, `${field}-value`]));
  await server.ingest('Shape Source', [{ ...full, email: 'shape@example.com' }, { email: 'shape@example.com', username: 'sparse' }]);
  const seen = new Set<string>();
  for (const grant of [{}, { lawEnforcement: true }]) {
    const user = await server.createUser({ searchDays: 30, searchCredits: 5, apiKey: true, ...grant });
    const reply = await callV2(server, user.apiKey, { query: 'email:"shape@example.com"' });
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    assert.equal(reply.body.entries.length, 2);
    for (const item of reply.body.entries) {
      for (const key of Object.keys(item)) {
        assert.ok(documented.has(key), `undocumented entry key "${key}"`);
        seen.add(key);
      }
      for (const key of required) assert.ok(key in item, `documented required key "${key}" missing`);
      if (item.raw_record) assert.deepEqual(Object.keys(item.raw_record).sort(), Object.keys(entry.properties.raw_record.properties).sort());
    }
  }
  assert.deepEqual([...documented].filter((key) => !seen.has(key)), [], 'documented keys the engine never sends');
});
