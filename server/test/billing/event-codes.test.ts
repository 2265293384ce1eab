/**
 * Event codes (reliability-security.md 21): the operator's
 * `event-code:create`, redemption that grants through the ledger once, one message for every
 * code that gives nothing, 50 concurrent redemptions of a single-use code, and throttled
 * wrong guesses. Real PostgreSQL (and Redis when TEST_REDIS_URL is set).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { startTestServer, TEST_PASSWORD, type TestServer, signedIn } from '../support/harness';
import { call, freshIp } from '../support/helpers';
import { hashPassword } from '../../src/auth/passwords';
import { insertUser } from '../../src/users/user-repository';
import { createSession } from '../../src/auth/auth-repository';
import { createEventCode, eventCodeProblem, parseGrant } from '../../src/billing/event-code-service';
import { cliArgs } from '../../../scripts/lib/cli-command';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const DAY = 86_400_000;
let server: TestServer;
let cliDataDir: string;

before(async () => {
  // Client addresses from X-Forwarded-For, so each test's guesses come from an address of its own.
  server = await startTestServer({ env: { TRUSTED_PROXIES: '127.0.0.1' } });
  cliDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lw-event-codes-'));
});
after(async () => {
  await server.close();
  fs.rmSync(cliDataDir, { recursive: true, force: true });
});

/** The operator CLI against the test server's database. */
function admin(...args: string[]) {
  const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root', DATA_DIR: cliDataDir, DATABASE_URL: server.runtime.config.DATABASE_URL! };
  return spawnSync(process.execPath, [...cliArgs('admin'), ...args], { cwd: ROOT, env, encoding: 'utf8' });
}

let passwordHash: Promise<string> | undefined;
/** Many signed-in users quickly: one password hash, a session each, a token signed by the server. */
async function manyUsers(count: number) {
  passwordHash ??= hashPassword(TEST_PASSWORD);
  const hash = await passwordHash;
  return Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const id = (await insertUser(server.runtime.db, { email: `crowd-${i}-${Date.now()}@example.com`, passwordHash: hash, verified: true }))!;
      const sid = await createSession(server.runtime.db, { userId: id, remember: false, expiresAt: new Date(Date.now() + 3_600_000) });
      return { id, token: server.runtime.app.jwt.sign({ sub: id, sid }) };
    }),
  );
}

const redeem = (token: string, code: string, ip = freshIp()) => call(server.url, 'POST', '/user/event-code', { token, body: { code }, ip });

async function account(userId: string) {
  return server.runtime.db
    .selectFrom('users')
    .select(['search_credits', 'whois_credits', 'search_subscribed_until', 'search_is_recurring'])
    .where('id', '=', userId)
    .executeTakeFirstOrThrow();
}

let codeCounter = 0;
/** A fresh code straight through the service (the CLI has its own tests). */
async function newCode(grants: { sku: string; quantity: number }[], maxUses = 1): Promise<string> {
  const code = `T${Date.now().toString(36)}${codeCounter++}`.toUpperCase();
  await createEventCode(server.runtime.db, { code, grants, maxUses, expiresAt: null });
  return code;
}

describe('event-code:create (operator CLI)', () => {
  test('creates an upper-cased code with its grants, uses and expiry; --json prints it', async () => {
    const created = admin('event-code:create', '--code', 'Spring-2026', '--grant', 'search-credits:100', '--grant', 'search-nonsub-weekly:2', '--uses', '3', '--expires', '2099-12-31', '--json');
    assert.equal(created.status, 0, created.stderr);
    assert.deepEqual(JSON.parse(created.stdout), {
      code: 'SPRING-2026',
      grants: [
        { sku: 'search-credits', quantity: 100 },
        { sku: 'search-nonsub-weekly', quantity: 2 },
      ],
      max_uses: 3,
      expires_at: '2100-01-01T00:00:00.000Z',
    });
    const row = await server.runtime.db.selectFrom('event_codes').select(['grants', 'max_uses', 'uses', 'expires_at']).where('code', '=', 'SPRING-2026').executeTakeFirstOrThrow();
    assert.equal(row.max_uses, 3);
    assert.equal(row.uses, 0);
    assert.equal(row.expires_at!.toISOString(), '2100-01-01T00:00:00.000Z', 'usable through the named day (UTC)');

    const plain = admin('event-code:create', '--code', 'whois_gift', '--grant', 'whois-credits:50');
    assert.equal(plain.status, 0, plain.stderr);
    assert.match(plain.stdout, /Created event code WHOIS_GIFT: 50 × whois-credits; 1 use\(s\)/);

    const again = admin('event-code:create', '--code', 'spring-2026', '--grant', 'whois-credits:1');
    assert.equal(again.status, 1, 'codes are case-insensitive: the same code exists');
    assert.match(again.stderr, /exists already/);
  });

  test('refuses bad codes, unknown or recurring SKUs, quantities out of range, past or malformed expiries', () => {
    // Through the CLI (usage errors exit 2) ...
    const refusals: [string[], RegExp][] = [
      [['--code', 'abc', '--grant', 'search-credits:1'], /4 to 64/],
      [['--code', 'RECUR', '--grant', 'search-sub-monthly:1'], /nonsub/],
      [['--code', 'TOOMANY', '--grant', 'whois-credits:50001'], /at most 50,000/],
      [['--code', 'OLD1', '--grant', 'search-credits:1', '--expires', '2020-01-01'], /in the past/],
      [['--code', 'FEB30', '--grant', 'search-credits:1', '--expires', '2099-02-30'], /YYYY-MM-DD/],
    ];
    for (const [args, message] of refusals) {
      const result = admin('event-code:create', ...args);
      assert.equal(result.status, 2, `${args.join(' ')}: ${result.stderr}`);
      assert.match(result.stderr, message, args.join(' '));
    }
    // ... and the same rules in process (a CLI start costs a second each).
    const grant = (sku: string, quantity: number) => ({ sku, quantity });
    const problem = (code: string, grants: { sku: string; quantity: number }[], maxUses = 1) => eventCodeProblem({ code, grants, maxUses, expiresAt: null });
    assert.match(problem('a'.repeat(65), [grant('search-credits', 1)])!, /4 to 64/);
    assert.match(problem('has space', [grant('search-credits', 1)])!, /4 to 64/);
    assert.equal(problem('a'.repeat(64), [grant('search-credits', 1)]), undefined);
    assert.match(problem('NOGRANT', [])!, /at least one product/);
    assert.match(problem('BADSKU', [grant('gold-bars', 1)])!, /unknown SKU/);
    assert.match(problem('ZERO', [grant('search-credits', 0)])!, /at least 1/);
    assert.match(problem('TWICE', [grant('search-credits', 1), grant('search-credits', 2)])!, /at most once/);
    assert.match(problem('NOUSES', [grant('search-credits', 1)], 0)!, /uses must be/);
    assert.equal(problem('PLANS', [grant('search-nonsub-yearly', 2), grant('domain-nonsub-monthly', 3), grant('enterprise-nonsub-weekly', 1)]), undefined);
    assert.deepEqual(parseGrant('whois-credits:50'), grant('whois-credits', 50));
    assert.match(parseGrant('whois-credits')!.toString(), /SKU:QUANTITY/);
    assert.match(parseGrant('search-nonsub-weekly:53')!.toString(), /at most 52/);
  });
});

describe('POST /user/event-code', () => {
  test('grants credits (one ledger row each, with the source) and extends search access from its current end', async () => {
    const user = await signedIn(server, { searchDays: 10 });
    const code = await newCode([
      { sku: 'search-credits', quantity: 100 },
      { sku: 'whois-credits', quantity: 5 },
      { sku: 'search-nonsub-weekly', quantity: 2 },
    ]);
    const reply = await redeem(user.token, code.toLowerCase());
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    assert.deepEqual(reply.body, {
      products: [
        { sku: 'search-credits', quantity: 100 },
        { sku: 'whois-credits', quantity: 5 },
        { sku: 'search-nonsub-weekly', quantity: 2 },
      ],
    });
    const after = await account(user.id);
    assert.equal(after.search_credits, 100);
    assert.equal(after.whois_credits, 5);
    assert.equal(after.search_is_recurring, false);
    assert.ok(Math.abs(after.search_subscribed_until!.getTime() - (Date.now() + 24 * DAY)) < 60_000, '10 days left + 2 weeks');

    const ledger = await server.runtime.db.selectFrom('credit_ledger').select(['kind', 'delta', 'reason', 'reference']).where('user_id', '=', user.id).orderBy('kind').execute();
    assert.deepEqual(ledger, [
      { kind: 'search', delta: 100, reason: 'event-code', reference: `event-code:${code}:${user.id}:search-credits` },
      { kind: 'whois', delta: 5, reason: 'event-code', reference: `event-code:${code}:${user.id}:whois-credits` },
    ]);
    const info = (await call(server.url, 'GET', '/user/info', { token: user.token })).body;
    assert.equal(info.search_credits, 100);
    assert.equal(info.search_access, true);
  });

  test("unknown, short, expired, used-up and already-redeemed codes: one answer, 'Invalid event code', nothing granted", async () => {
    const user = await signedIn(server);
    const first = await signedIn(server);
    const usedUp = await newCode([{ sku: 'search-credits', quantity: 1 }]);
    assert.equal((await redeem(first.token, usedUp)).status, 200);
    const expired = await newCode([{ sku: 'search-credits', quantity: 1 }], 10);
    await server.runtime.db.updateTable('event_codes').set({ expires_at: new Date(Date.now() - 1000) }).where('code', '=', expired).execute();
    const multi = await newCode([{ sku: 'whois-credits', quantity: 3 }], 10);
    assert.equal((await redeem(user.token, multi)).status, 200);

    for (const code of ['NO-SUCH-CODE', 'abc', '', 'x'.repeat(200), expired, usedUp, multi, multi.toLowerCase()]) {
      const reply = await redeem(user.token, code);
      assert.equal(reply.status, 400, code);
      assert.deepEqual(reply.body, { error: 'Invalid event code' }, code);
    }
    const after = await account(user.id);
    assert.equal(after.search_credits, 0);
    assert.equal(after.whois_credits, 3, 'the multi-use code granted once');
    const uses = await server.runtime.db.selectFrom('event_codes').select(['code', 'uses']).where('code', 'in', [usedUp, expired, multi]).orderBy('code').execute();
    assert.deepEqual(
      Object.fromEntries(uses.map((row) => [row.code, row.uses])),
      { [usedUp]: 1, [expired]: 0, [multi]: 1 },
      'a refused redemption takes no use',
    );
    assert.equal((await call(server.url, 'POST', '/user/event-code', { body: { code: multi } })).status, 401);
    assert.equal((await call(server.url, 'POST', '/user/event-code', { token: user.token, body: { code: multi, user_id: first.id }, ip: freshIp() })).status, 400);
  });

  test('50 concurrent redemptions of a single-use code by 50 users: exactly one succeeds, one grant', async () => {
    const users = await manyUsers(50);
    const code = await newCode([{ sku: 'search-credits', quantity: 25 }]);
    const replies = await Promise.all(users.map((user) => redeem(user.token, code)));
    const statuses = replies.map((reply) => reply.status);
    assert.equal(statuses.filter((status) => status === 200).length, 1, `statuses: ${statuses.join(',')}`);
    assert.ok(replies.every((reply) => reply.status === 200 || reply.body.error === 'Invalid event code'));
    const row = await server.runtime.db.selectFrom('event_codes').select('uses').where('code', '=', code).executeTakeFirstOrThrow();
    assert.equal(row.uses, 1);
    const redemptions = await server.runtime.db.selectFrom('event_code_redemptions').select('user_id').where('code', '=', code).execute();
    assert.equal(redemptions.length, 1);
    const ledger = await server.runtime.db.selectFrom('credit_ledger').select(['user_id', 'delta']).where('reference', 'like', `event-code:${code}:%`).execute();
    assert.deepEqual(ledger, [{ user_id: redemptions[0]!.user_id, delta: 25 }]);
  });

  test('the same user redeeming a multi-use code 10 times at once: granted once', async () => {
    const user = await signedIn(server);
    const code = await newCode([{ sku: 'whois-credits', quantity: 7 }], 100);
    const replies = await Promise.all(Array.from({ length: 10 }, () => redeem(user.token, code)));
    assert.equal(replies.filter((reply) => reply.status === 200).length, 1);
    assert.equal((await account(user.id)).whois_credits, 7);
    const row = await server.runtime.db.selectFrom('event_codes').select('uses').where('code', '=', code).executeTakeFirstOrThrow();
    assert.equal(row.uses, 1);
  });

  test('wrong guesses are throttled per account and per address: the 11th gets 429 with Retry-After, even for a valid code', async () => {
    const guesser = await signedIn(server);
    const valid = await newCode([{ sku: 'search-credits', quantity: 1 }], 10);
    for (let i = 0; i < 10; i++) assert.equal((await redeem(guesser.token, `WRONG-${i}`)).status, 400, `guess ${i}`);
    const throttled = await redeem(guesser.token, valid);
    assert.equal(throttled.status, 429, 'the account is throttled from any address');
    assert.ok(Number(throttled.headers.get('retry-after')) >= 1);
    assert.equal((await account(guesser.id)).search_credits, 0);

    // One address, several accounts: the address runs out after 10 wrong guesses.
    const address = freshIp();
    const [a, b, c] = await Promise.all([signedIn(server), signedIn(server), signedIn(server)]);
    for (let i = 0; i < 5; i++) assert.equal((await redeem(a.token, `NOPE-A-${i}`, address)).status, 400);
    for (let i = 0; i < 5; i++) assert.equal((await redeem(b.token, `NOPE-B-${i}`, address)).status, 400);
    assert.equal((await redeem(c.token, valid, address)).status, 429, 'a fresh account from the same address');
    assert.equal((await redeem(c.token, valid)).status, 200, 'the same account from another address');

    // Successes do not count: a shared code redeemed by 12 accounts behind one address is never throttled.
    const shared = freshIp();
    const popular = await newCode([{ sku: 'search-credits', quantity: 1 }], 100);
    for (const user of await manyUsers(12)) assert.equal((await redeem(user.token, popular, shared)).status, 200);
  });
});
