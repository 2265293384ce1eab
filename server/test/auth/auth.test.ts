import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, createHmac } from 'node:crypto';
import { packForgot, packLogin, packRegister, packReset } from '../../src/common/obfuscation';
import { sql, startTestServer, TEST_PASSWORD, type TestServer } from '../support/harness';
import { call, freshIp } from '../support/helpers';

let server: TestServer;
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

before(async () => {
  server = await startTestServer({ env: { TRUSTED_PROXIES: '127.0.0.1' } });
});
after(async () => {
  await server.close();
});

const post = (path: string, body?: unknown, extra: Parameters<typeof call>[3] = {}) =>
  call(server.url, 'POST', path, { body, ...extra });
const register = (email: string, password: string, ip = freshIp()) =>
  post('/registration/submit', packRegister({ email, password, ro: '', q: '' }), { ip });
const login = (email: string, password: string, ip = freshIp(), remember = true) =>
  post('/authentication/login', packLogin({ email, password, remember }), { ip });
const tokenFrom = (link: string, name: string) => new URL(link).searchParams.get(name)!;

describe('registration and verification', () => {
  test('register, verify with the mailed link, log in, read the current user', async () => {
    const email = `new-${Date.now()}@example.com`;
    const reg = await register(email, TEST_PASSWORD);
    assert.equal(reg.status, 200);
    assert.deepEqual(reg.body, { success: true });

    const early = await login(email, TEST_PASSWORD);
    assert.equal(early.status, 401, 'login refused until the email is verified');

    const mail = await server.waitForMail(email, /verify/);
    const link = mail.links.find((l) => l.includes('/verification?v='));
    assert.ok(link, 'the mail carries a verification link');
    const verified = await post('/authentication/verify-email', { k: tokenFrom(link, 'v') });
    assert.equal(verified.status, 200);

    const ok = await login(email, TEST_PASSWORD);
    assert.equal(ok.status, 200);
    assert.match(ok.body.auth_token, /^eyJ/);
    server.markSecret(ok.body.auth_token);
    const info = await call(server.url, 'GET', '/user/info', { token: ok.body.auth_token });
    assert.equal(info.status, 200);
    assert.equal(info.body.email, email);
    assert.equal(info.body.search_access, false);
    assert.equal(info.body.api_private_key, null);
    for (const key of ['created_at', 'is_enterprise', 'whois_credits', 'search_credits', 'has_notifications', 'search_is_recurring', 'elevated']) {
      assert.ok(key in info.body, `current user has ${key}`);
    }
  });

  test('a purchase intent (ro code and q) rides along in the verification link', async () => {
    const email = `intent-${Date.now()}@example.com`;
    await post('/registration/submit', packRegister({ email, password: TEST_PASSWORD, ro: '3', q: '250' }), { ip: freshIp() });
    const link = (await server.waitForMail(email, /verify/)).links[0]!;
    assert.equal(new URL(link).searchParams.get('ro'), '3');
    assert.equal(new URL(link).searchParams.get('q'), '250');
  });

  test('the sign-in validation messages come from the server too', async () => {
    assert.equal((await register('', TEST_PASSWORD)).body.error, 'Please set an email');
    assert.equal((await register('not-an-email', TEST_PASSWORD)).body.error, 'Invalid email format');
    assert.equal((await register(`${'a'.repeat(250)}@example.com`, TEST_PASSWORD)).body.error, 'Invalid email format');
    assert.equal((await register('x@example.com', '')).body.error, 'Please set a password');
    assert.equal((await register('x@example.com', `A1${'a'.repeat(60)}`)).body.error, 'Invalid password format (max length 55)');
    assert.equal((await register('x@example.com', 'short1A')).status, 400);
    assert.equal((await register('x@example.com', 'nouppercase1')).status, 400);
    assert.equal((await post('/authentication/forgot-password', packForgot(''), { ip: freshIp() })).body.error, 'Empty Email');
    assert.equal((await post('/authentication/forgot-password', packForgot('bad@'), { ip: freshIp() })).body.error, 'Invalid email format');
    assert.equal((await login('', 'x')).body.error, 'Please input an email');
    assert.equal((await login('a@example.com', '')).body.error, 'Please input a password');
  });

  test('a mangled obfuscated payload is a 400, never a 500', async () => {
    const fields = packLogin({ email: 'a@example.com', password: TEST_PASSWORD, remember: true });
    for (const body of [{ ...fields, db2: '00000000' }, { ...fields, db0: '!!!' }, { ...fields, dbamod0: 'other' }, {}]) {
      const reply = await post('/authentication/login', body, { ip: freshIp() });
      assert.equal(reply.status, 400, JSON.stringify(reply.body));
    }
  });

  test('register with an existing email answers exactly like a new one, and mails the owner', async () => {
    const user = await server.createUser();
    const again = await register(user.email, 'Another-Pw-123');
    assert.equal(again.status, 200);
    assert.deepEqual(again.body, { success: true });
    await server.waitForMail(user.email, /someone tried to register/);
    // The original password still works: the second registration changed nothing.
    assert.equal((await login(user.email, TEST_PASSWORD)).status, 200);
  });
});

describe('login answers do not enumerate accounts', () => {
  test('unknown email and wrong password: same status, same body, similar time', async () => {
    const user = await server.createUser();
    const time = async (email: string) => {
      const started = performance.now();
      const reply = await login(email, 'Wrong-Pw-123');
      return { reply, ms: performance.now() - started };
    };
    const unknown = [];
    const wrong = [];
    for (let i = 0; i < 5; i++) {
      unknown.push(await time(`nobody-${i}@example.com`));
      wrong.push(await time(user.email));
    }
    assert.equal(unknown[0]!.reply.status, 403);
    assert.equal(wrong[0]!.reply.status, 403);
    assert.deepEqual(unknown[0]!.reply.body, wrong[0]!.reply.body);
    const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const ratio = median(unknown.map((t) => t.ms)) / median(wrong.map((t) => t.ms));
    assert.ok(ratio > 0.4 && ratio < 2.5, `timing ratio ${ratio.toFixed(2)} (a dummy hash runs for unknown users)`);
  });

  test('forgot-password: unknown email gets the same answer and no mail', async () => {
    const user = await server.createUser();
    const known = await post('/authentication/forgot-password', packForgot(user.email), { ip: freshIp() });
    const unknown = await post('/authentication/forgot-password', packForgot('nobody-at-all@example.com'), { ip: freshIp() });
    assert.deepEqual([known.status, known.body], [200, { success: true }]);
    assert.deepEqual([unknown.status, unknown.body], [200, { success: true }]);
    await server.waitForMail(user.email, /reset/);
    assert.equal((await server.outbox()).filter((m) => m.to === 'nobody-at-all@example.com').length, 0);
  });
});

describe('one-time tokens', () => {
  test('reset link: stored hashed, single use, older links voided, sessions ended', async () => {
    const user = await server.createUser();
    const session = await login(user.email, TEST_PASSWORD);
    await post('/authentication/forgot-password', packForgot(user.email), { ip: freshIp() });
    const key = tokenFrom((await server.waitForMail(user.email, /reset/)).links[0]!, 'k');
    const stored = await server.runtime.db.selectFrom('one_time_tokens').select('token_hash').where('user_id', '=', user.id).execute();
    assert.ok(stored.some((r) => r.token_hash === sha256(key)), 'the hash is stored');
    assert.ok(stored.every((r) => r.token_hash !== key), 'the token itself is not');

    const newPassword = 'Brand-New-Pw-42';
    const reset = await post('/authentication/reset-password', packReset({ key, password: newPassword }));
    assert.equal(reset.status, 200);
    const reuse = await post('/authentication/reset-password', packReset({ key, password: 'Other-New-Pw-42' }));
    assert.equal(reuse.status, 400, 'single use');
    assert.equal((await call(server.url, 'GET', '/user/info', { token: session.body.auth_token })).status, 401, 'old sessions end');
    assert.equal((await login(user.email, newPassword)).status, 200);
    server.markSecret(newPassword);
  });

  test('a reset whose last write fails changes nothing: link unused, password kept', async () => {
    const user = await server.createUser();
    await post('/authentication/forgot-password', packForgot(user.email), { ip: freshIp() });
    const key = tokenFrom((await server.waitForMail(user.email, /reset/)).links[0]!, 'k');
    const newPassword = 'Atomic-New-Pw-42';
    server.markSecret(newPassword);
    const db = server.runtime.db;
    // Ending the sessions is the reset's last write: make it fail.
    await sql`CREATE FUNCTION fail_session_update() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'forced failure'; END $$`.execute(db);
    await sql`CREATE TRIGGER fail_session_update BEFORE UPDATE ON sessions FOR EACH STATEMENT EXECUTE FUNCTION fail_session_update()`.execute(db);
    try {
      const failed = await post('/authentication/reset-password', packReset({ key, password: newPassword }));
      assert.equal(failed.status, 500);
    } finally {
      await sql`DROP TRIGGER fail_session_update ON sessions`.execute(db);
      await sql`DROP FUNCTION fail_session_update()`.execute(db);
    }
    const token = await db.selectFrom('one_time_tokens').select('used_at').where('token_hash', '=', sha256(key)).executeTakeFirstOrThrow();
    assert.equal(token.used_at, null, 'the link is still unused');
    assert.equal((await login(user.email, newPassword)).status, 403, 'the new password was not stored');
    assert.equal((await post('/authentication/reset-password', packReset({ key, password: newPassword }))).status, 200, 'the same link works once the write can succeed');
    assert.equal((await login(user.email, newPassword)).status, 200);
  });

  test('an unknown reset link is refused with the same answer', async () => {
    const reply = await post('/authentication/reset-password', packReset({ key: 'x'.repeat(43), password: 'Whatever-Pw-42' }));
    assert.deepEqual([reply.status, reply.body], [400, { error: 'Invalid or expired reset link' }]);
  });

  test('expired verification link is refused', async () => {
    const email = `exp-${Date.now()}@example.com`;
    await register(email, TEST_PASSWORD);
    const key = tokenFrom((await server.waitForMail(email, /verify/)).links[0]!, 'v');
    await server.runtime.db.updateTable('one_time_tokens').set({ expires_at: new Date(Date.now() - 1000) }).where('token_hash', '=', sha256(key)).execute();
    assert.equal((await post('/authentication/verify-email', { k: key })).status, 400);
    assert.equal((await login(email, TEST_PASSWORD)).status, 401);
  });

  test('verification link is single use; garbage keys are refused', async () => {
    const email = `once-${Date.now()}@example.com`;
    await register(email, TEST_PASSWORD);
    const key = tokenFrom((await server.waitForMail(email, /verify/)).links[0]!, 'v');
    assert.equal((await post('/authentication/verify-email', { k: key })).status, 200);
    assert.equal((await post('/authentication/verify-email', { k: key })).status, 400);
    assert.equal((await post('/authentication/verify-email', { k: 'x'.repeat(43) })).status, 400);
  });
});

describe('access tokens', () => {
  test('alg:none, another algorithm, expired or tampered tokens get 401', async () => {
    const user = await server.createUser();
    const { body } = await login(user.email, TEST_PASSWORD);
    const good: string = body.auth_token;
    assert.equal((await call(server.url, 'GET', '/user/info', { token: good })).status, 200);
    const [header, payload, signature] = good.split('.') as [string, string, string];
    const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
    const secret = (await server.runtime.db.selectFrom('app_secrets').select('value').where('name', '=', 'jwt').executeTakeFirstOrThrow()).value;
    const sign = (alg: 'sha256' | 'sha512', h: string, p: string) => createHmac(alg, secret).update(`${h}.${p}`).digest('base64url');
    const hs512Header = b64({ alg: 'HS512', typ: 'JWT' });
    const hs256Header = b64({ alg: 'HS256', typ: 'JWT' });
    const expired = b64({ ...claims, iat: 1000, exp: 2000 });
    const elevated = b64({ ...claims, sub: '00000000-0000-0000-0000-000000000000' });
    const forged = [
      `${b64({ alg: 'none', typ: 'JWT' })}.${payload}.`,
      `${hs512Header}.${payload}.${sign('sha512', hs512Header, payload)}`,
      `${hs256Header}.${expired}.${sign('sha256', hs256Header, expired)}`,
      `${header}.${elevated}.${signature}`,
      `${header}.${payload}.${signature.slice(0, -2)}xx`,
      'not-a-token',
    ];
    for (const token of forged) {
      assert.equal((await call(server.url, 'GET', '/user/info', { token })).status, 401, token.slice(0, 30));
    }
  });
});

describe('refresh sessions', () => {
  test('rotation, reuse detection revokes the family, logout ends the session', async () => {
    const user = await server.createUser();
    const first = await login(user.email, TEST_PASSWORD);
    assert.match(first.cookie, /^refresh_token=/);
    const rotated = await post('/authentication/refresh', undefined, { cookie: first.cookie });
    assert.equal(rotated.status, 200);
    assert.notEqual(rotated.cookie, first.cookie);
    const reused = await post('/authentication/refresh', undefined, { cookie: first.cookie });
    assert.equal(reused.status, 401, 'a rotated cookie used again is refused');
    assert.equal((await post('/authentication/refresh', undefined, { cookie: rotated.cookie })).status, 401, 'and the family is revoked');
    assert.equal((await call(server.url, 'GET', '/user/info', { token: rotated.body.auth_token })).status, 401);

    const second = await login(user.email, TEST_PASSWORD);
    assert.equal((await post('/authentication/logout', undefined, { cookie: second.cookie })).status, 200);
    assert.equal((await post('/authentication/refresh', undefined, { cookie: second.cookie })).status, 401);
    assert.equal((await call(server.url, 'GET', '/user/info', { token: second.body.auth_token })).status, 401);
  });

  test('Remember Me decides whether the cookie outlives the browser', async () => {
    const user = await server.createUser();
    const remembered = await login(user.email, TEST_PASSWORD, freshIp(), true);
    const session = await login(user.email, TEST_PASSWORD, freshIp(), false);
    const attributes = (reply: typeof remembered) => reply.headers.getSetCookie()[0] ?? '';
    assert.match(attributes(remembered), /Max-Age=\d+/);
    assert.match(attributes(remembered), /HttpOnly/);
    assert.match(attributes(remembered), /SameSite=Strict/);
    assert.doesNotMatch(attributes(session), /Max-Age|Expires/);
  });

  test('password change ends other sessions and keeps this one', async () => {
    const user = await server.createUser();
    const here = await login(user.email, TEST_PASSWORD);
    const elsewhere = await login(user.email, TEST_PASSWORD);
    const token = here.body.auth_token;
    const same = await post('/authentication/update-password', { password: TEST_PASSWORD, new_password: TEST_PASSWORD }, { token });
    assert.equal(same.body.error, 'Passwords are the same');
    const weak = await post('/authentication/update-password', { password: TEST_PASSWORD, new_password: 'weak' }, { token });
    assert.equal(weak.body.error, "New Password doesn't meet requirements (max length 55)");
    const wrong = await post('/authentication/update-password', { password: 'Wrong-Pw-123', new_password: 'Changed-Pw-77' }, { token });
    assert.equal(wrong.status, 403);
    const changed = await post('/authentication/update-password', { password: TEST_PASSWORD, new_password: 'Changed-Pw-77' }, { token });
    assert.equal(changed.status, 200);
    server.markSecret('Changed-Pw-77');
    assert.equal((await call(server.url, 'GET', '/user/info', { token })).status, 200);
    assert.equal((await call(server.url, 'GET', '/user/info', { token: elsewhere.body.auth_token })).status, 401);
    assert.equal((await post('/authentication/refresh', undefined, { cookie: elsewhere.cookie })).status, 401);
    assert.equal((await login(user.email, 'Changed-Pw-77')).status, 200);
  });
});

describe('account closure and API keys', () => {
  test('API key: shown once, stored hashed, checked, replaced', async () => {
    const user = await server.createUser();
    const { body } = await login(user.email, TEST_PASSWORD);
    const token = body.auth_token;
    assert.deepEqual((await call(server.url, 'GET', '/user/check-api-key', { token })).body, { valid: false });
    const key1 = (await post('/user/update-key', undefined, { token })).body.api_key as string;
    server.markSecret(key1);
    assert.match(key1, /^[0-9a-f]{48}$/);
    const row = await server.runtime.db.selectFrom('users').select(['api_key_hash', 'api_key_hint']).where('id', '=', user.id).executeTakeFirstOrThrow();
    assert.equal(row.api_key_hash, sha256(key1));
    const info = await call(server.url, 'GET', '/user/info', { token });
    assert.equal(info.body.api_private_key, `••••${key1.slice(-4)}`);
    const header = server.runtime.config.apiKeyHeader;
    assert.equal((await call(server.url, 'GET', '/user/check-api-key', { token, headers: { [header]: key1 } })).body.valid, true);
    const key2 = (await post('/user/update-key', undefined, { token })).body.api_key as string;
    server.markSecret(key2);
    assert.notEqual(key1, key2);
    assert.equal((await call(server.url, 'GET', '/user/check-api-key', { token, headers: { [header]: key1 } })).body.valid, false);
    assert.equal((await call(server.url, 'GET', '/user/check-api-key', { token, headers: { [header.toUpperCase()]: key2 } })).body.valid, true);
  });

  test('closure: mailed link, then every session ends and the API key is gone', async () => {
    const user = await server.createUser({ apiKey: true });
    const a = await login(user.email, TEST_PASSWORD);
    const b = await login(user.email, TEST_PASSWORD);
    assert.equal((await post('/user/account-closure-request', undefined, { token: a.body.auth_token })).status, 200);
    const t = tokenFrom((await server.waitForMail(user.email, /closure/)).links[0]!, 't');
    // Another account cannot use the token.
    const other = await server.createUser();
    const otherLogin = await login(other.email, TEST_PASSWORD);
    assert.equal((await post('/user/account-closure-final', { token: t }, { token: otherLogin.body.auth_token })).status, 400);

    assert.equal((await post('/user/account-closure-final', { token: t }, { token: a.body.auth_token })).status, 200);
    for (const session of [a, b]) {
      assert.equal((await call(server.url, 'GET', '/user/info', { token: session.body.auth_token })).status, 401);
      assert.equal((await post('/authentication/refresh', undefined, { cookie: session.cookie })).status, 401);
    }
    const row = await server.runtime.db.selectFrom('users').select(['api_key_hash', 'closed_at']).where('id', '=', user.id).executeTakeFirstOrThrow();
    assert.equal(row.api_key_hash, null);
    assert.ok(row.closed_at);
    assert.equal((await login(user.email, TEST_PASSWORD)).status, 403, 'a closed account cannot log in');
  });

  test('profile and notification settings; extra properties are refused', async () => {
    const user = await server.createUser();
    const token = (await login(user.email, TEST_PASSWORD)).body.auth_token;
    const profile = await call(server.url, 'GET', '/user/profile', { token });
    assert.equal(profile.body.store_invoices, true);
    const sneaky = await post('/user/update-notification-setting', { setting: 'store_invoices', set: false, elevated: true, search_credits: 999 }, { token });
    assert.equal(sneaky.status, 400, 'a body with extra properties is refused');
    assert.equal((await call(server.url, 'GET', '/user/profile', { token })).body.store_invoices, true, 'and changes nothing');
    const update = await post('/user/update-notification-setting', { setting: 'store_invoices', set: false }, { token });
    assert.equal(update.status, 200);
    assert.equal((await call(server.url, 'GET', '/user/profile', { token })).body.store_invoices, false);
    const info = await call(server.url, 'GET', '/user/info', { token });
    assert.equal(info.body.elevated, false);
    assert.equal(info.body.search_credits, 0);
    assert.equal((await post('/user/update-notification-setting', { setting: 'is_admin', set: true }, { token })).status, 400);
  });
});

describe('throttling', () => {
  test('one address hammering login gets 429 with Retry-After', async () => {
    const ip = freshIp();
    let last;
    for (let i = 0; i < 25; i++) last = await login(`spray-${i}@example.com`, 'Wrong-Pw-123', ip);
    assert.equal(last!.status, 429);
    assert.ok(Number(last!.headers.get('retry-after')) >= 1);
  });

  test('failures from many addresses throttle the account for strangers but not for its owner', async () => {
    const user = await server.createUser();
    const ownerIp = freshIp();
    assert.equal((await login(user.email, TEST_PASSWORD, ownerIp)).status, 200);
    for (let i = 0; i < 12; i++) await login(user.email, 'Wrong-Pw-123', freshIp());
    const stranger = await login(user.email, TEST_PASSWORD, freshIp());
    assert.equal(stranger.status, 429, 'the account is throttled for new addresses');
    assert.equal((await login(user.email, TEST_PASSWORD, ownerIp)).status, 200, 'the owner is not locked out');
  });

  test('X-Forwarded-For is ignored unless the peer is a trusted proxy', async () => {
    const untrusted = await startTestServer();
    try {
      let last;
      for (let i = 0; i < 22; i++) {
        last = await call(untrusted.url, 'POST', '/authentication/login', {
          body: packLogin({ email: `x${i}@example.com`, password: 'Wrong-Pw-1', remember: true }),
          ip: `192.0.2.${i + 1}`,
        });
      }
      assert.equal(last!.status, 429, 'spoofed addresses do not escape the per-address limit');
    } finally {
      await untrusted.close();
    }
  });
});

describe('logs', () => {
  test('no passwords, tokens, keys or query strings in the log', async () => {
    const user = await server.createUser({ apiKey: true });
    const session = await login(user.email, TEST_PASSWORD);
    await call(server.url, 'GET', '/search?q=very-private-query-text', { headers: { accept: 'text/html' } });
    await call(server.url, 'GET', '/user/info', { token: session.body.auth_token });
    const logs = server.logs();
    assert.ok(logs.includes('"url":"/search?[redacted]"'), 'request URLs are logged without their query');
    assert.ok(!logs.includes('very-private-query-text'));
    assert.ok(!logs.includes(TEST_PASSWORD));
    assert.ok(!logs.includes(session.body.auth_token));
  });
});
