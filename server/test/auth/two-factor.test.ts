/**
 * Two-factor sign-in: TOTP, recovery codes, step-up for sensitive changes, user:reset-2fa,
 * and API keys unchanged by it. Passkeys are proven in real Chromium
 * (web/e2e/two-factor.test.ts); here their API refuses what it must.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Secret, TOTP } from 'otpauth';
import { packLogin } from '../../src/common/obfuscation';
import { relyingParty } from '../../src/auth/two-factor';
import { findLeaks, startTestServer, TEST_PASSWORD, type TestServer } from '../support/harness';
import { call, callV2, freshIp } from '../support/helpers';
import { cliArgs } from '../../../scripts/lib/cli-command';

const run = promisify(execFile);
let server: TestServer;

before(async () => {
  server = await startTestServer({ env: { TRUSTED_PROXIES: '127.0.0.1' } });
});
after(async () => {
  await server.close();
});

const post = (path: string, body?: unknown, extra: Parameters<typeof call>[3] = {}) => call(server.url, 'POST', path, { body, ...extra });

const login = (email: string, remember: boolean, ip: string) => post('/authentication/login', packLogin({ email, password: TEST_PASSWORD, remember }), { ip });

/** A session of an account without two-factor (from its own address: sign-in throttles stay out of the way). */
async function signIn(email: string): Promise<string> {
  const reply = await login(email, true, freshIp());
  assert.equal(reply.status, 200, JSON.stringify(reply.body));
  assert.ok(reply.body.auth_token, 'signed in with the password alone');
  server.markSecret(reply.body.auth_token);
  return reply.body.auth_token;
}

/** The code an authenticator app shows for `secret`, `offsetSteps` 30-second steps from now. */
function codeFor(secret: string, offsetSteps = 0): string {
  return new TOTP({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 }).generate({ timestamp: Date.now() + offsetSteps * 30_000 });
}

/** A signed-in account with TOTP on (enabled with the current step's code). */
async function withTotp(ip = freshIp()) {
  const user = await server.createUser({ apiKey: true });
  const token = await signIn(user.email);
  const begin = await post('/user/two-factor/totp/begin', {}, { token, ip });
  assert.equal(begin.status, 200, JSON.stringify(begin.body));
  const secret: string = begin.body.secret;
  server.markSecret(secret);
  const confirm = await post('/user/two-factor/totp/confirm', { code: codeFor(secret) }, { token, ip });
  assert.equal(confirm.status, 200, JSON.stringify(confirm.body));
  const codes: string[] = confirm.body.recovery_codes;
  server.markSecret(...codes);
  return { ...user, token, secret, codes, ip };
}

/** Forgets the last accepted step, so a test may use the current code again (a new 30 s window). */
async function newWindow(userId: string) {
  await server.runtime.db.updateTable('users').set({ totp_last_step: null }).where('id', '=', userId).execute();
}


describe('TOTP two-factor authentication', () => {
  test('enabling shows the otpauth:// URI (brand and email), a QR code and the secret as text; the first code must be right; 10 recovery codes', async () => {
    const user = await server.createUser();
    const token = await signIn(user.email);
    const ip = freshIp();
    const off = await call(server.url, 'GET', '/user/two-factor', { token });
    assert.deepEqual([off.body.enabled, off.body.totp], [false, false]);
    const begin = await post('/user/two-factor/totp/begin', {}, { token, ip });
    assert.equal(begin.status, 200);
    const { secret, uri, qr_code } = begin.body;
    server.markSecret(secret);
    assert.match(secret, /^[A-Z2-7]{32}$/, '160-bit base32 secret');
    const parsed = new URL(uri);
    assert.equal(parsed.protocol, 'otpauth:');
    assert.equal(parsed.host, 'totp');
    assert.equal(decodeURIComponent(parsed.pathname), `/${server.runtime.config.BRAND}:${user.email}`);
    assert.equal(parsed.searchParams.get('secret'), secret);
    assert.deepEqual([parsed.searchParams.get('algorithm'), parsed.searchParams.get('digits'), parsed.searchParams.get('period')], ['SHA1', '6', '30']);
    assert.match(qr_code, /^data:image\/png;base64,/);
    // The secret is stored encrypted, never as given.
    const stored = await server.runtime.db.selectFrom('users').select('totp_pending_secret_enc').where('id', '=', user.id).executeTakeFirstOrThrow();
    assert.ok(stored.totp_pending_secret_enc && !stored.totp_pending_secret_enc.includes(secret));

    const wrong = await post('/user/two-factor/totp/confirm', { code: codeFor(secret, 5) }, { token, ip });
    assert.deepEqual([wrong.status, wrong.body.error], [403, 'Invalid authentication code']);
    assert.equal((await call(server.url, 'GET', '/user/two-factor', { token })).body.totp, false, 'still off after a wrong code');

    const confirm = await post('/user/two-factor/totp/confirm', { code: codeFor(secret) }, { token, ip });
    assert.equal(confirm.status, 200);
    const codes: string[] = confirm.body.recovery_codes;
    server.markSecret(...codes);
    assert.equal(codes.length, 10);
    assert.equal(new Set(codes).size, 10);
    for (const code of codes) assert.match(code, /^[a-z2-9]{5}-[a-z2-9]{5}$/);
    const hashes = await server.runtime.db.selectFrom('recovery_codes').select('code_hash').where('user_id', '=', user.id).execute();
    assert.equal(hashes.length, 10);
    assert.ok(hashes.every((h) => !codes.some((c) => h.code_hash.includes(c.replace('-', '')))), 'stored hashed');
    const on = await call(server.url, 'GET', '/user/two-factor', { token });
    assert.deepEqual([on.body.enabled, on.body.totp, on.body.recovery_codes_left], [true, true, 10]);
  });

  test('sign-in asks for the code before any session; a wrong, a missing and a replayed code are refused; Remember Me kept', async () => {
    const user = await withTotp();
    const ip = freshIp();
    const first = await login(user.email, true, ip);
    assert.equal(first.status, 200);
    assert.equal(first.body.second_factor_required, true);
    assert.deepEqual(first.body.methods, ['code', 'recovery code']);
    assert.equal(first.body.auth_token, undefined, 'no session before the code');
    assert.equal(first.cookie, '', 'no refresh cookie before the code');
    const pending: string = first.body.pending_token;

    const missing = await post('/authentication/second-factor', { pending_token: pending }, { ip });
    assert.deepEqual([missing.status, missing.body.error], [403, 'Authentication code required']);
    const wrong = await post('/authentication/second-factor', { pending_token: pending, code: '000000' === codeFor(user.secret, 1) ? '111111' : '000000' }, { ip });
    assert.deepEqual([wrong.status, wrong.body.error], [403, 'Invalid authentication code']);
    // One step of drift: the next step's code is accepted (the current one was used to enable).
    const code = codeFor(user.secret, 1);
    const ok = await post('/authentication/second-factor', { pending_token: pending, code }, { ip });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    assert.ok(ok.body.auth_token);
    assert.match(ok.headers.getSetCookie()[0] ?? '', /Max-Age=\d+/, 'Remember Me: a lasting cookie');
    assert.equal((await call(server.url, 'GET', '/user/info', { token: ok.body.auth_token })).status, 200);
    // The pending token is used up.
    const again = await post('/authentication/second-factor', { pending_token: pending, code: codeFor(user.secret, 1) }, { ip });
    assert.equal(again.status, 401);

    // The same code on a new sign-in: a replay within its window is refused.
    const second = await login(user.email, false, ip);
    const replay = await post('/authentication/second-factor', { pending_token: second.body.pending_token, code }, { ip });
    assert.deepEqual([replay.status, replay.body.error], [403, 'Invalid authentication code']);
    // An older step (already passed) too; three steps ahead is outside the drift allowed.
    assert.equal((await post('/authentication/second-factor', { pending_token: second.body.pending_token, code: codeFor(user.secret, 0) }, { ip })).status, 403);
    assert.equal((await post('/authentication/second-factor', { pending_token: second.body.pending_token, code: codeFor(user.secret, 3) }, { ip })).status, 403);
    // A new window: the session without Remember Me gets a browser-session cookie.
    await newWindow(user.id);
    const noRemember = await post('/authentication/second-factor', { pending_token: second.body.pending_token, code: codeFor(user.secret) }, { ip });
    assert.equal(noRemember.status, 200);
    assert.doesNotMatch(noRemember.headers.getSetCookie()[0] ?? '', /Max-Age/);
    // A wrong password still answers 403 with no hint of two-factor.
    const bad = await post('/authentication/login', packLogin({ email: user.email, password: 'Wrong1234', remember: false }), { ip });
    assert.deepEqual([bad.status, bad.body.second_factor_required], [403, undefined]);
  });

  test('a recovery code signs in once; the second use is refused', async () => {
    const user = await withTotp();
    const ip = freshIp();
    const recovery = user.codes[3]!;
    const first = await login(user.email, false, ip);
    const ok = await post('/authentication/second-factor', { pending_token: first.body.pending_token, recovery_code: recovery.toUpperCase() }, { ip });
    assert.equal(ok.status, 200, 'case and dash do not matter');
    const second = await login(user.email, false, ip);
    const reused = await post('/authentication/second-factor', { pending_token: second.body.pending_token, recovery_code: recovery }, { ip });
    assert.deepEqual([reused.status, reused.body.error], [403, 'Invalid recovery code']);
    assert.equal((await call(server.url, 'GET', '/user/two-factor', { token: user.token })).body.recovery_codes_left, 9);
  });

  // Across addresses the account is slowed, not locked: two-factor-hardening.test.ts.
  test('code guesses are throttled per account and address (429 with Retry-After), and per address', async () => {
    const user = await withTotp();
    const guesser = freshIp();
    const pending = (await login(user.email, false, guesser)).body.pending_token;
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) {
      const guess = String(100000 + i);
      const accepted = [0, 1, 2].map((o) => codeFor(user.secret, o));
      statuses.push((await post('/authentication/second-factor', { pending_token: pending, code: accepted.includes(guess) ? '999999' : guess }, { ip: guesser })).status);
    }
    assert.deepEqual(statuses, [403, 403, 403, 403, 403, 429, 429]);
    const throttled = await post('/authentication/second-factor', { pending_token: pending, code: codeFor(user.secret, 1) }, { ip: guesser });
    assert.equal(throttled.status, 429, 'from that address even a right code waits');
    assert.ok(Number(throttled.headers.get('retry-after')) >= 1);

    // Per address: every attempt counts, whichever account.
    const ip = freshIp();
    const others = await Promise.all([withTotp(), withTotp(), withTotp(), withTotp(), withTotp()]);
    const pendings = await Promise.all(others.map(async (o) => (await login(o.email, false, freshIp())).body.pending_token as string));
    let refused = 0;
    for (let i = 0; i < 25 && !refused; i++) {
      const reply = await post('/authentication/second-factor', { pending_token: pendings[i % 5], code: '12345x' }, { ip });
      if (reply.status === 429) refused = i + 1;
    }
    assert.ok(refused > 20 && refused <= 25, `the address is throttled after its burst (at attempt ${refused})`);
  });

  test('recovery codes can be made again (the old ones die), behind a current code', async () => {
    const user = await withTotp();
    const missing = await post('/user/two-factor/recovery-codes', {}, { token: user.token, ip: user.ip });
    assert.deepEqual([missing.status, missing.body.error], [403, 'Authentication code required']);
    const fresh = await post('/user/two-factor/recovery-codes', { code: codeFor(user.secret, 1) }, { token: user.token, ip: user.ip });
    assert.equal(fresh.status, 200);
    server.markSecret(...fresh.body.recovery_codes);
    assert.equal(fresh.body.recovery_codes.length, 10);
    const ip = freshIp();
    const old = await post('/authentication/second-factor', { pending_token: (await login(user.email, false, ip)).body.pending_token, recovery_code: user.codes[0] }, { ip });
    assert.equal(old.status, 403, 'an old code no longer works');
    const current = await post('/authentication/second-factor', { pending_token: (await login(user.email, false, ip)).body.pending_token, recovery_code: fresh.body.recovery_codes[0] }, { ip });
    assert.equal(current.status, 200);
  });
});

/** Whether the public API refuses the key itself (not what it may search). */
async function keyRefused(key: string | undefined): Promise<boolean> {
  const reply = await callV2(server, key, { query: 'email:"someone@example.com"' });
  return reply.status === 400 && /Invalid or missing/.test(String(reply.body.error));
}

describe('step-up: sensitive changes ask for a current code when two-factor is on', () => {
  test('a new API key: refused without or with a wrong code, made with one; the key itself still works alone on the public API', async () => {
    const user = await withTotp();
    const missing = await post('/user/update-key', undefined, { token: user.token, ip: user.ip });
    assert.deepEqual([missing.status, missing.body.error], [403, 'Authentication code required']);
    const wrong = await post('/user/update-key', { code: '12345' }, { token: user.token, ip: user.ip });
    assert.deepEqual([wrong.status, wrong.body.error], [403, 'Invalid authentication code']);
    // The old key still works: nothing changed.
    assert.equal(await keyRefused(user.apiKey), false);
    const made = await post('/user/update-key', { code: codeFor(user.secret, 1) }, { token: user.token, ip: user.ip });
    assert.equal(made.status, 200);
    server.markSecret(made.body.api_key);
    // Item 4: the public API takes the key alone, no second factor.
    assert.equal(await keyRefused(user.apiKey), true, 'the old key stopped working');
    assert.equal(await keyRefused(made.body.api_key), false, 'the new key works alone');
    // Without two-factor the key is made as before (no body).
    const plain = await server.createUser();
    const token = await signIn(plain.email);
    const noTwoFactor = await post('/user/update-key', undefined, { token });
    assert.equal(noTwoFactor.status, 200);
    server.markSecret(noTwoFactor.body.api_key);
  });

  test('changing the password and closing the account: refused without a code; a recovery code does it', async () => {
    const user = await withTotp();
    const body = { password: TEST_PASSWORD, new_password: 'Another2Pass' };
    const missing = await post('/authentication/update-password', body, { token: user.token, ip: user.ip });
    assert.deepEqual([missing.status, missing.body.error], [403, 'Authentication code required']);
    const stillOld = await login(user.email, false, freshIp());
    assert.equal(stillOld.body.second_factor_required, true, 'the password did not change');
    const changed = await post('/authentication/update-password', { ...body, recovery_code: user.codes[1] }, { token: user.token, ip: user.ip });
    assert.equal(changed.status, 200, JSON.stringify(changed.body));

    assert.equal((await post('/user/account-closure-request', undefined, { token: user.token })).status, 200);
    const mail = await server.waitForMail(user.email, /clos/i);
    const closeToken = new URL(mail.links.find((l) => l.includes('/close-account'))!).searchParams.get('t')!;
    const refused = await post('/user/account-closure-final', { token: closeToken }, { token: user.token, ip: user.ip });
    assert.deepEqual([refused.status, refused.body.error], [403, 'Authentication code required']);
    const wrong = await post('/user/account-closure-final', { token: closeToken, code: '000001' }, { token: user.token, ip: user.ip });
    assert.equal(wrong.status, 403);
    const closed = await post('/user/account-closure-final', { token: closeToken, code: codeFor(user.secret, 1) }, { token: user.token, ip: user.ip });
    assert.equal(closed.status, 200, 'the closure link was not used up by the refusals');
  });

  test('turning two-factor off asks for a code; afterwards the password alone signs in', async () => {
    const user = await withTotp();
    const missing = await post('/user/two-factor/totp/disable', {}, { token: user.token, ip: user.ip });
    assert.deepEqual([missing.status, missing.body.error], [403, 'Authentication code required']);
    assert.equal((await post('/user/two-factor/totp/disable', { code: codeFor(user.secret, 1) }, { token: user.token, ip: user.ip })).status, 200);
    const status = await call(server.url, 'GET', '/user/two-factor', { token: user.token });
    assert.deepEqual([status.body.enabled, status.body.recovery_codes_left], [false, 0]);
    await signIn(user.email);
  });
});

describe('passkeys (the ceremony itself runs in Chromium: web/e2e/two-factor.test.ts)', () => {
  test('the relying party comes from PUBLIC_URL; a loopback address becomes localhost', () => {
    assert.deepEqual(relyingParty({ publicUrl: 'https://leaks.example.com', BRAND: 'B' }), { id: 'leaks.example.com', origin: 'https://leaks.example.com', name: 'B' });
    assert.deepEqual(relyingParty({ publicUrl: 'http://127.0.0.1:3000', BRAND: 'B' }), { id: 'localhost', origin: 'http://localhost:3000', name: 'B' });
  });

  test('discoverable sign-in options require user verification and name no credential; a forged or unknown assertion is refused', async () => {
    const ip = freshIp();
    const options = await post('/authentication/passkey-options', {}, { ip });
    assert.equal(options.status, 200);
    assert.equal(options.body.userVerification, 'required');
    assert.equal(options.body.rpId, 'localhost');
    assert.ok(!options.body.allowCredentials?.length);
    const clientDataJSON = Buffer.from(JSON.stringify({ type: 'webauthn.get', challenge: options.body.challenge, origin: server.url })).toString('base64url');
    const forged = { id: 'AAAA', rawId: 'AAAA', type: 'public-key', response: { clientDataJSON, authenticatorData: 'AAAA', signature: 'AAAA' }, clientExtensionResults: {} };
    const refused = await post('/authentication/passkey', { response: forged }, { ip });
    assert.deepEqual([refused.status, refused.body.error], [403, 'Passkey not recognised']);
    // The challenge was used up by the attempt.
    const again = await post('/authentication/passkey', { response: forged }, { ip });
    assert.equal(again.status, 403);
    const registration = await post('/user/two-factor/passkeys', { name: 'x', response: forged }, { token: await signIn((await server.createUser()).email) });
    assert.equal(registration.status, 400);
  });
});

describe('user:reset-2fa', () => {
  test('turns two-factor off for support, audited and noticed in the account; the password alone signs in again', async () => {
    const user = await withTotp();
    const { stdout } = await run(
      process.execPath,
      [...cliArgs('admin'), 'user:reset-2fa', '--email', user.email, '--reason', 'ticket 42, identity checked', '--operator', 'support-ann'],
      { env: { ...process.env, DATABASE_URL: server.runtime.config.DATABASE_URL!, DATA_DIR: server.runtime.config.dataDir, LOG_LEVEL: 'warn' } },
    );
    assert.match(stdout, new RegExp(`^Two-factor reset for ${user.email.replace(/[.]/g, '\\.')}: TOTP turned off, 0 passkey\\(s\\) and 10 recovery code\\(s\\) removed\\.$`, 'm'));
    const audit = await server.runtime.db.selectFrom('audit_log').selectAll().where('target', '=', user.email).execute();
    assert.equal(audit.length, 1);
    assert.deepEqual([audit[0]!.action, audit[0]!.operator, audit[0]!.reason], ['user:reset-2fa', 'support-ann', 'ticket 42, identity checked']);
    assert.deepEqual(audit[0]!.details, { totp: true, passkeys_removed: 0, recovery_codes_removed: 10 });
    const notice = await server.runtime.db.selectFrom('notifications').select(['type', 'data']).where('user_id', '=', user.id).execute();
    assert.equal(notice.length, 1);
    assert.equal(notice[0]!.type, 'security');
    await signIn(user.email);
  });
});

test('no TOTP secret, code or recovery code reaches the logs', () => {
  assert.deepEqual(findLeaks(server.logs(), []), []);
});
