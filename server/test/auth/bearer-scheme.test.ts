/**
 * The `Authorization` scheme is case-insensitive (RFC 9110 §11.1): `bearer`, `BEARER` and
 * `Bearer` carry the same access token: clients that write the scheme in lower case are
 * within the standard and must not get 401.
 * What is not a bearer token stays refused.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { signedIn, startTestServer, type TestServer } from '../support/harness';
import { call } from '../support/helpers';

let server: TestServer;
before(async () => {
  server = await startTestServer();
});
after(() => server.close());

test('an access token is accepted whatever the case of its scheme', async () => {
  const user = await signedIn(server);
  for (const scheme of ['Bearer', 'bearer', 'BEARER', 'bEaReR']) {
    const reply = await call<{ email: string }>(server.url, 'GET', '/user/info', { headers: { authorization: `${scheme} ${user.token}` } });
    assert.equal(reply.status, 200, scheme);
    assert.equal(reply.body.email, user.email, scheme);
  }
});

test('other schemes, a missing token and a malformed one stay refused', async () => {
  const user = await signedIn(server);
  for (const authorization of [`Basic ${user.token}`, `Token ${user.token}`, 'bearer ', `bearer  ${user.token}`, `bearer ${user.token} x`, user.token]) {
    assert.equal((await call(server.url, 'GET', '/user/info', { headers: { authorization } })).status, 401, authorization);
  }
});
