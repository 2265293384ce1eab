/**
 * Decoded values pass the text check the request guard applies to plain fields: no NUL and
 * no unpaired surrogate. Registration's obfuscated `query` is JSON inside an obfuscated
 * string, so a `"\u0000"` there would reach the database as a NUL in the password and make
 * an account that can never sign in. Refused with 400 before anything is stored,
 * naming the value; the same rule for the other obfuscated forms.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { checksum, obfuscate, packForgot, packLogin, packRegister, randomToken } from '../../src/common/obfuscation';
import { sql, startTestServer, TEST_PASSWORD, type TestServer } from '../support/harness';
import { call, freshIp } from '../support/helpers';

let server: TestServer;
before(async () => {
  server = await startTestServer({ env: { TRUSTED_PROXIES: '127.0.0.1' } });
});
after(() => server.close());

/** A registration body whose JSON `query` is written by hand: escapes survive into the parsed values. */
function rawRegister(json: string, email: string, password: string) {
  const nonce = randomToken();
  const ts = String(Date.now());
  return { query: obfuscate(json, nonce), r0: nonce, r01: checksum(email, password, ts), r02: ts, r03: '', r04: '', entropy_modifier: randomToken(24), shift_matrix: randomToken(8) };
}

const accounts = async (email: string) =>
  (await sql<{ n: number }>`select count(*)::int as n from users where lower(email) = lower(${email})`.execute(server.runtime.db)).rows[0]!.n;

test('registration: a NUL or a lone surrogate in the decoded password or email is refused with 400, nothing stored', async () => {
  const cases = [
    { email: 'nul-pw@example.com', password: `${TEST_PASSWORD}\u0000`, json: `{"e":"nul-pw@example.com","p":"${TEST_PASSWORD}\\u0000"}`, message: 'Invalid request: password must not contain NUL characters' },
    { email: 'lone-pw@example.com', password: `${TEST_PASSWORD}\ud800`, json: `{"e":"lone-pw@example.com","p":"${TEST_PASSWORD}\\ud800"}`, message: 'Invalid request: password must not contain unpaired UTF-16 surrogates' },
    { email: 'nul\u0000mail@example.com', password: TEST_PASSWORD, json: `{"e":"nul\\u0000mail@example.com","p":"${TEST_PASSWORD}"}`, message: 'Invalid request: email must not contain NUL characters' },
  ];
  for (const c of cases) {
    const reply = await call(server.url, 'POST', '/registration/submit', { body: rawRegister(c.json, c.email, c.password), ip: freshIp() });
    assert.equal(reply.status, 400, c.json);
    assert.deepEqual(reply.body, { error: c.message });
    assert.equal(await accounts(c.email.replace('\u0000', '')), 0, c.json);
  }
  // The same account without the NUL registers: the refusal was the NUL's.
  const ok = await call(server.url, 'POST', '/registration/submit', { body: packRegister({ email: 'nul-pw@example.com', password: TEST_PASSWORD, ro: '', q: '' }), ip: freshIp() });
  assert.equal(ok.status, 200);
  assert.equal(await accounts('nul-pw@example.com'), 1);
});

test('sign-in and forgot-password: a NUL in a decoded field is refused with 400 naming it', async () => {
  const login = await call(server.url, 'POST', '/authentication/login', { body: packLogin({ email: 'a@example.com', password: 'pw\u0000', remember: false }), ip: freshIp() });
  assert.equal(login.status, 400);
  assert.deepEqual(login.body, { error: 'Invalid request: password must not contain NUL characters' });
  const forgot = await call(server.url, 'POST', '/authentication/forgot-password', { body: packForgot('a\u0000@example.com'), ip: freshIp() });
  assert.equal(forgot.status, 400);
  assert.deepEqual(forgot.body, { error: 'Invalid request: email must not contain NUL characters' });
});
