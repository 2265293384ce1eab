// Password checks across forms: a client sending the SHA-256 of a password that a data well holds in
// plaintext is told it was found (the engine derives SHA-256 and SHA-1 of plaintext
// passwords at ingest), by search-password and by the k-anonymity range; after entry
// removal, by neither.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { startTestServer, type TestServer } from '../support/harness';
import { callV2 } from '../support/helpers';

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
const sha1 = (s: string) => createHash('sha1').update(s).digest('hex');
const P = 'Tr0ub4dor&3-plaintext-only';

let server: TestServer;
before(async () => {
  server = await startTestServer();
  await server.ingest('Plaintext Dump', [{ email: 'pat@example.net', password: P, username: 'pat' }]);
});
after(() => server.close());

test('a plaintext password is found by its SHA-256 (exact and range, SHA-1 range too), and not after removal', async () => {
  const user = await server.createUser({ searchCredits: 0, apiKey: true });
  const check = (body: object) => callV2(server, user.apiKey, body, { path: '/v2/search-password' });
  const range = (prefix: string) => callV2(server, user.apiKey, { prefix }, { path: '/v2/search-password-range' });
  const hash = sha256(P);

  assert.deepEqual((await check({ sha256_hashed_password: hash })).body, { results_found: 1 });
  assert.deepEqual((await check({ hash: hash.toUpperCase() })).body, { results_found: 1 });
  assert.deepEqual((await check({ hash: sha1(P) })).body, { results_found: 1 });
  const r = await range(hash.slice(0, 5));
  assert.equal(r.status, 200);
  assert.ok(r.body.suffixes.some((s: { suffix: string; count: number }) => s.suffix === hash.slice(5) && s.count === 1), JSON.stringify(r.body));
  const r1 = await range(sha1(P).slice(0, 5));
  assert.ok(r1.body.suffixes.some((s: { suffix: string; count: number }) => s.suffix === sha1(P).slice(5) && s.count === 1), JSON.stringify(r1.body));

  const engine = server.runtime.engine;
  const entry = (await engine.search({ query: 'email:pat@example.net' })).entries[0];
  assert.ok(entry);
  assert.equal(await engine.remove(entry.id), true);
  assert.deepEqual((await check({ sha256_hashed_password: hash })).body, { results_found: 0 });
  const gone = await range(hash.slice(0, 5));
  assert.ok(!gone.body.suffixes.some((s: { suffix: string }) => s.suffix === hash.slice(5)), JSON.stringify(gone.body));
});
