/**
 * Second-factor attacks from outside (docs/reliability-security.md, tests 56 and 57):
 * - a passkey challenge is bound to its purpose and to the pending sign-in or session it was
 *   issued to, and an assertion's user handle must name the passkey's account;
 * - wrong codes slow the address they come from, not the owner elsewhere; recovery
 *   codes and passkeys get through the code throttle; the owner is mailed about repeated
 *   wrong codes after a right password.
 * Passkeys are made and used by a software authenticator (server/test/support/soft-authenticator.ts),
 * so the server's WebAuthn checks run for real.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Secret, TOTP } from 'otpauth';
import { packLogin } from '../../src/common/obfuscation';
import { relyingParty } from '../../src/auth/two-factor';
import { findLeaks, startTestServer, TEST_PASSWORD, type TestServer } from '../support/harness';
import { call, callV2, freshIp } from '../support/helpers';
import { SoftAuthenticator, userHandleOf, type SoftPasskey } from '../support/soft-authenticator';

let server: TestServer;
let authenticator: SoftAuthenticator;

before(async () => {
  server = await startTestServer({ env: { TRUSTED_PROXIES: '127.0.0.1' } });
  authenticator = new SoftAuthenticator(relyingParty(server.runtime.config));
});
after(async () => {
  await server.close();
});

const post = (path: string, body?: unknown, extra: Parameters<typeof call>[3] = {}) => call(server.url, 'POST', path, { body, ...extra });

const login = (email: string, ip: string) => post('/authentication/login', packLogin({ email, password: TEST_PASSWORD, remember: false }), { ip });

/** A pending sign-in (right password, second step awaited) from `ip`. */
async function pendingSignIn(email: string, ip: string): Promise<string> {
  const reply = await login(email, ip);
  assert.equal(reply.status, 200, JSON.stringify(reply.body));
  assert.equal(reply.body.second_factor_required, true);
  server.markSecret(reply.body.pending_token);
  return reply.body.pending_token;
}

/** A session of an account without two-factor yet (its address becomes a known one). */
async function signIn(email: string, ip: string): Promise<string> {
  const reply = await login(email, ip);
  assert.equal(reply.status, 200, JSON.stringify(reply.body));
  assert.ok(reply.body.auth_token);
  server.markSecret(reply.body.auth_token);
  return reply.body.auth_token;
}

function codeFor(secret: string, offsetSteps = 0): string {
  return new TOTP({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 }).generate({ timestamp: Date.now() + offsetSteps * 30_000 });
}

/** Six digits that are none of the codes accepted now (one step of drift each way). */
function wrongCode(secret: string, n: number): string {
  const accepted = new Set([-1, 0, 1, 2].map((o) => codeFor(secret, o)));
  for (let i = n; ; i++) {
    const guess = String(100000 + ((i * 7919) % 900000));
    if (!accepted.has(guess)) return guess;
  }
}

/** A signed-in account with a passkey (its first second factor): session, passkey and recovery codes. */
async function withPasskey(options: { apiKey?: boolean } = {}) {
  const ip = freshIp();
  const user = await server.createUser({ apiKey: options.apiKey ?? false });
  const token = await signIn(user.email, ip);
  const registration = await post('/user/two-factor/passkeys/options', {}, { token, ip });
  assert.equal(registration.status, 200, JSON.stringify(registration.body));
  const { passkey, response } = authenticator.register(registration.body);
  const added = await post('/user/two-factor/passkeys', { name: 'Soft key', response }, { token, ip });
  assert.equal(added.status, 200, JSON.stringify(added.body));
  const codes: string[] = added.body.recovery_codes;
  server.markSecret(...codes);
  return { ...user, token, ip, passkey, codes };
}

/** withPasskey() with TOTP on too (begun with a passkey step-up); the recovery codes are TOTP's. */
async function withTotpAndPasskey() {
  const user = await withPasskey();
  const begin = await post('/user/two-factor/totp/begin', { passkey: await stepUpAssertion(user.token, user.passkey) }, { token: user.token, ip: user.ip });
  assert.equal(begin.status, 200, JSON.stringify(begin.body));
  const secret: string = begin.body.secret;
  server.markSecret(secret);
  const confirm = await post('/user/two-factor/totp/confirm', { code: codeFor(secret) }, { token: user.token, ip: user.ip });
  assert.equal(confirm.status, 200, JSON.stringify(confirm.body));
  server.markSecret(...confirm.body.recovery_codes);
  return { ...user, secret, codes: confirm.body.recovery_codes as string[] };
}

/** Options for a passkey sign-in (none) or a pending sign-in's second step (its token). */
async function signInOptions(pendingToken?: string): Promise<{ challenge: string }> {
  const reply = await post('/authentication/passkey-options', pendingToken ? { pending_token: pendingToken } : {}, { ip: freshIp() });
  assert.equal(reply.status, 200, JSON.stringify(reply.body));
  return reply.body;
}

/** A step-up assertion over a challenge the session asked for. */
async function stepUpAssertion(token: string, passkey: SoftPasskey) {
  const reply = await post('/user/two-factor/passkey-options', undefined, { token });
  assert.equal(reply.status, 200, JSON.stringify(reply.body));
  return authenticator.assert(passkey, reply.body);
}

async function keyRefused(key: string | undefined): Promise<boolean> {
  const reply = await callV2(server, key, { query: 'email:"someone@example.com"' });
  return reply.status === 400 && /Invalid or missing/.test(String(reply.body.error));
}

const notRecognised = (reply: { status: number; body: { error?: string } }, what: string) =>
  assert.deepEqual([reply.status, reply.body.error], [403, 'Passkey not recognised'], what);

describe('a passkey challenge serves only the step it was issued for', () => {
  test("an anonymous sign-in challenge signed by B's authenticator is refused for B's second step and B's new API key", async () => {
    const b = await withPasskey({ apiKey: true });
    const pending = await pendingSignIn(b.email, freshIp());

    const stolen = authenticator.assert(b.passkey, await signInOptions());
    notRecognised(await post('/authentication/second-factor', { pending_token: pending, passkey: stolen }), 'second step with a sign-in challenge');
    // The assertion itself is sound: where it was issued (a passkey sign-in) it signs in.
    const own = await post('/authentication/passkey', { response: stolen });
    assert.equal(own.status, 200, JSON.stringify(own.body));
    server.markSecret(own.body.auth_token);

    const forKey = authenticator.assert(b.passkey, await signInOptions());
    notRecognised(await post('/user/update-key', { passkey: forKey }, { token: b.token }), 'new API key with a sign-in challenge');
    // A second step's challenge is no step-up either, nor a step-up's a second step.
    const secondStep = authenticator.assert(b.passkey, await signInOptions(pending));
    notRecognised(await post('/user/update-key', { passkey: secondStep }, { token: b.token }), 'new API key with a second-step challenge');
    const stepUp = await stepUpAssertion(b.token, b.passkey);
    notRecognised(await post('/authentication/second-factor', { pending_token: pending, passkey: stepUp }), 'second step with a step-up challenge');
    assert.equal(await keyRefused(b.apiKey), false, 'the key did not change');

    // Another session of B cannot use this session's step-up challenge.
    const otherSession = own.body.auth_token as string;
    const fromFirst = await stepUpAssertion(b.token, b.passkey);
    notRecognised(await post('/user/update-key', { passkey: fromFirst }, { token: otherSession }), "another session's step-up challenge");
    // Where they belong, they pass (and were not used up by the refusals).
    const signedIn = await post('/authentication/second-factor', { pending_token: pending, passkey: secondStep });
    assert.equal(signedIn.status, 200, JSON.stringify(signedIn.body));
    server.markSecret(signedIn.body.auth_token);
    const made = await post('/user/update-key', { passkey: fromFirst }, { token: b.token });
    assert.equal(made.status, 200, JSON.stringify(made.body));
    server.markSecret(made.body.api_key);
    assert.equal(await keyRefused(b.apiKey), true, 'the step-up made a new key');
  });

  test('a challenge issued to one pending sign-in is refused for another pending sign-in of the same account', async () => {
    const b = await withPasskey();
    const first = await pendingSignIn(b.email, freshIp());
    const second = await pendingSignIn(b.email, freshIp());
    const forFirst = authenticator.assert(b.passkey, await signInOptions(first));
    notRecognised(await post('/authentication/second-factor', { pending_token: second, passkey: forFirst }), "the other pending sign-in's challenge");
    assert.equal((await post('/authentication/second-factor', { pending_token: first, passkey: forFirst })).status, 200, 'its own pending sign-in takes it');
  });

  test("an assertion whose user handle names another account is refused (passkey sign-in and second step)", async () => {
    const a = await withPasskey();
    const b = await withPasskey();
    const handleOfA = userHandleOf(a.id);
    notRecognised(
      await post('/authentication/passkey', { response: authenticator.assert(b.passkey, await signInOptions(), { userHandle: handleOfA }) }),
      "passkey sign-in with B's passkey naming A",
    );
    notRecognised(
      await post('/authentication/passkey', { response: authenticator.assert(b.passkey, await signInOptions(), { userHandle: null }) }),
      'passkey sign-in without a user handle',
    );
    const pending = await pendingSignIn(b.email, freshIp());
    notRecognised(
      await post('/authentication/second-factor', { pending_token: pending, passkey: authenticator.assert(b.passkey, await signInOptions(pending), { userHandle: handleOfA }) }),
      "B's second step naming A",
    );
    const stepUp = await stepUpAssertion(b.token, b.passkey);
    notRecognised(
      await post('/user/update-key', { passkey: { ...stepUp, response: { ...stepUp.response, userHandle: handleOfA } } }, { token: b.token }),
      "B's step-up naming A",
    );
    // B's own handle signs B in; a second step may omit it (the account is known already).
    const signedIn = await post('/authentication/passkey', { response: authenticator.assert(b.passkey, await signInOptions()) });
    assert.equal(signedIn.status, 200, JSON.stringify(signedIn.body));
    server.markSecret(signedIn.body.auth_token);
    const me = await call(server.url, 'GET', '/user/two-factor', { token: signedIn.body.auth_token });
    assert.equal(me.status, 200);
    const second = await post('/authentication/second-factor', {
      pending_token: pending,
      passkey: authenticator.assert(b.passkey, await signInOptions(pending), { userHandle: null }),
    });
    assert.equal(second.status, 200, JSON.stringify(second.body));
    server.markSecret(second.body.auth_token);
  });

  test('a registration challenge serves only the session that asked for it', async () => {
    const ip = freshIp();
    const user = await server.createUser();
    const first = await signIn(user.email, ip);
    const other = await signIn(user.email, freshIp());
    const options = await post('/user/two-factor/passkeys/options', {}, { token: first, ip });
    const { response } = authenticator.register(options.body);
    const refused = await post('/user/two-factor/passkeys', { name: 'Soft key', response }, { token: other });
    assert.deepEqual([refused.status, refused.body.error], [400, 'The passkey could not be added; please try again']);
    const added = await post('/user/two-factor/passkeys', { name: 'Soft key', response }, { token: first });
    assert.equal(added.status, 200, JSON.stringify(added.body));
    server.markSecret(...added.body.recovery_codes);
  });
});

describe('a password thief cannot lock the owner out of the code step', () => {
  test("after 5 wrong codes from address X, X waits (429) but the owner's right code from address Y is accepted", async () => {
    const owner = await withTotpAndPasskey();
    const x = freshIp();
    const thief = await pendingSignIn(owner.email, x);
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) statuses.push((await post('/authentication/second-factor', { pending_token: thief, code: wrongCode(owner.secret, i) }, { ip: x })).status);
    assert.deepEqual(statuses, [403, 403, 403, 403, 403, 429, 429]);
    const slowed = await post('/authentication/second-factor', { pending_token: thief, code: wrongCode(owner.secret, 9) }, { ip: x });
    assert.equal(slowed.status, 429, 'wrong codes from X keep waiting');
    assert.ok(Number(slowed.headers.get('retry-after')) >= 1);

    const y = freshIp();
    const mine = await pendingSignIn(owner.email, y);
    const ok = await post('/authentication/second-factor', { pending_token: mine, code: codeFor(owner.secret, 1) }, { ip: y });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    server.markSecret(ok.body.auth_token);
  });

  test('a recovery code and a passkey get through when the code throttle is spent for the address', async () => {
    const owner = await withTotpAndPasskey();
    const x = freshIp();
    const pending = await pendingSignIn(owner.email, x);
    for (let i = 0; i < 5; i++) assert.equal((await post('/authentication/second-factor', { pending_token: pending, code: wrongCode(owner.secret, i) }, { ip: x })).status, 403);
    assert.equal((await post('/authentication/second-factor', { pending_token: pending, code: codeFor(owner.secret, 1) }, { ip: x })).status, 429, 'codes from X wait, even a right one');
    const recovered = await post('/authentication/second-factor', { pending_token: pending, recovery_code: owner.codes[0] }, { ip: x });
    assert.equal(recovered.status, 200, JSON.stringify(recovered.body));
    server.markSecret(recovered.body.auth_token);
    // Wrong codes again from X (the recovery code's success forgave X's typos), then a passkey.
    const again = await pendingSignIn(owner.email, x);
    const codes: number[] = [];
    for (let i = 0; i < 6; i++) codes.push((await post('/authentication/second-factor', { pending_token: again, code: wrongCode(owner.secret, 20 + i) }, { ip: x })).status);
    assert.deepEqual(codes, [403, 403, 403, 403, 403, 429]);
    const withPasskeyReply = await post('/authentication/second-factor', { pending_token: again, passkey: authenticator.assert(owner.passkey, await signInOptions(again)) }, { ip: x });
    assert.equal(withPasskeyReply.status, 200, JSON.stringify(withPasskeyReply.body));
    server.markSecret(withPasskeyReply.body.auth_token);
  });

  test("wrong codes from many addresses slow the account for new addresses only; its known address, recovery codes and passkeys still pass", async () => {
    const owner = await withTotpAndPasskey();
    // Six addresses, five wrong codes each: the account's 30 are spent.
    for (let a = 0; a < 6; a++) {
      const ip = freshIp();
      const pending = await pendingSignIn(owner.email, ip);
      for (let i = 0; i < 5; i++) {
        const reply = await post('/authentication/second-factor', { pending_token: pending, code: wrongCode(owner.secret, a * 5 + i) }, { ip });
        assert.equal(reply.status, 403, `address ${a}, code ${i}`);
      }
    }
    const stranger = freshIp();
    const pending = await pendingSignIn(owner.email, stranger);
    const waits = await post('/authentication/second-factor', { pending_token: pending, code: wrongCode(owner.secret, 40) }, { ip: stranger });
    assert.equal(waits.status, 429, 'a new address waits once the account is spent');
    assert.ok(Number(waits.headers.get('retry-after')) >= 1);
    // The address the owner signed in from before still gets its code checked.
    const home = await pendingSignIn(owner.email, owner.ip);
    const ok = await post('/authentication/second-factor', { pending_token: home, code: codeFor(owner.secret, 1) }, { ip: owner.ip });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    server.markSecret(ok.body.auth_token);
    // From the new address: a recovery code and a passkey pass.
    assert.equal((await post('/authentication/second-factor', { pending_token: pending, recovery_code: owner.codes[1] }, { ip: stranger })).status, 200);
    const next = await pendingSignIn(owner.email, stranger);
    const byPasskey = await post('/authentication/second-factor', { pending_token: next, passkey: authenticator.assert(owner.passkey, await signInOptions(next)) }, { ip: stranger });
    assert.equal(byPasskey.status, 200, JSON.stringify(byPasskey.body));
  });

  test('the owner gets one mail about repeated wrong codes after a right password, with no code or secret in it', async () => {
    const owner = await withTotpAndPasskey();
    const x = freshIp();
    const pending = await pendingSignIn(owner.email, x);
    const tried: string[] = [];
    const subject = /wrong authentication codes/i;
    const mailsAbout = async () => (await server.outbox()).filter((m) => m.to === owner.email && subject.test(m.subject));
    for (let i = 0; i < 4; i++) {
      tried.push(wrongCode(owner.secret, i));
      assert.equal((await post('/authentication/second-factor', { pending_token: pending, code: tried.at(-1) }, { ip: x })).status, 403);
    }
    await new Promise((r) => setTimeout(r, 500));
    assert.equal((await mailsAbout()).length, 0, 'four wrong codes: no mail yet');
    tried.push(wrongCode(owner.secret, 4));
    assert.equal((await post('/authentication/second-factor', { pending_token: pending, code: tried.at(-1) }, { ip: x })).status, 403);
    const mail = await server.waitForMail(owner.email, subject);
    // More wrong codes, from another address and another pending sign-in: no second mail.
    const z = freshIp();
    const other = await pendingSignIn(owner.email, z);
    for (let i = 5; i < 9; i++) {
      tried.push(wrongCode(owner.secret, i));
      assert.equal((await post('/authentication/second-factor', { pending_token: other, code: tried.at(-1) }, { ip: z })).status, 403);
    }
    await new Promise((r) => setTimeout(r, 1000));
    assert.equal((await mailsAbout()).length, 1, 'one mail an hour at most');
    for (const value of [...tried, owner.secret, pending, other, ...owner.codes, x, z]) {
      assert.ok(!mail.text.includes(value), `the mail holds no code, secret, token or address (${value.slice(0, 3)}…)`);
    }
    assert.match(mail.text, /password/);
    assert.deepEqual(mail.links, [`${server.runtime.config.publicUrl}/profile`]);
  });
});

test('no code, secret or token reaches the logs', () => {
  assert.deepEqual(findLeaks(server.logs(), []), []);
});
