/**
 * The published `hibp` client's Pwned Passwords calls, unchanged, against our server: only
 * the base URL differs. `pwnedPassword` and `pwnedPasswordRange`, with padding and in ntlm
 * mode, and its error for a malformed prefix (it shows our 400's text).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { pwnedPassword, pwnedPasswordRange } from 'hibp';
import { startTestServer, type TestServer } from '../support/harness';
import { ntlm } from './ntlm';

const sha1 = (s: string) => createHash('sha1').update(s).digest('hex').toUpperCase();
const P = 'client-known-Passw0rd';
const P_NT = 'client-stored-ntlm-Passw0rd';

let server: TestServer;
let baseUrl: string;
before(async () => {
  server = await startTestServer();
  baseUrl = `${server.url}/`;
  await server.ingest('Client Corpus', [
    { email: 'a@client.example', password: P },
    { email: 'b@client.example', password: P },
    { email: 'c@client.example', hashed_password: sha1(P).toLowerCase() },
    { email: 'd@client.example', hashed_password: ntlm(P_NT).toLowerCase() },
  ]);
});
after(() => server.close());

test('pwnedPassword: the count of a known password, 0 for an unknown one, with and without padding', async () => {
  assert.equal(await pwnedPassword(P, { baseUrl }), 3);
  assert.equal(await pwnedPassword(P, { baseUrl, addPadding: true }), 3);
  assert.equal(await pwnedPassword('client-never-seen-Passw0rd', { baseUrl }), 0);
});

test('pwnedPasswordRange: suffixes to counts; padded with zeros to 800 or more', async () => {
  const hash = sha1(P);
  const plain = await pwnedPasswordRange(hash.slice(0, 5).toLowerCase(), { baseUrl });
  assert.deepEqual(plain, { [hash.slice(5)]: 3 });
  const padded = await pwnedPasswordRange(hash.slice(0, 5), { baseUrl, addPadding: true });
  const suffixes = Object.keys(padded);
  assert.ok(suffixes.length >= 800 && suffixes.length <= 1000, `${suffixes.length} suffixes`);
  assert.equal(padded[hash.slice(5)], 3);
  assert.equal(Object.values(padded).filter((count) => count !== 0).length, 1);
  await assert.rejects(pwnedPasswordRange('XYZ12', { baseUrl }), { message: 'The hash prefix was not in a valid format' });
});

test("pwnedPasswordRange in ntlm mode: a stored NTLM hash's suffix and count", async () => {
  const hash = ntlm(P_NT);
  const range = await pwnedPasswordRange(hash.slice(0, 5), { baseUrl, mode: 'ntlm' });
  assert.deepEqual(range, { [hash.slice(5)]: 1 });
});

test('pwnedPasswordRange in ntlm mode counts plaintext passwords', async () => {
  const hash = ntlm(P);
  const range = await pwnedPasswordRange(hash.slice(0, 5), { baseUrl, mode: 'ntlm', addPadding: true });
  assert.equal(range[hash.slice(5)], 2);
});
