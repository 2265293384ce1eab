/**
 * Operator commands on accounts and the audit log, run as an
 * operator runs them: the real CLI (`npm run admin -- …`, another process) against two
 * running instances of one server (same database, index and Redis namespace).
 *
 * - user:list (text, --query, --json) with plan, credits, flags and last sign-in;
 * - user:suspend: sign-in refused with the message naming support, the existing session's
 *   access token and refresh cookie refused, the API key refused on /v2 and the Monitor API
 *   by the OTHER instance within seconds (its in-process snapshot cannot keep it working),
 *   its websocket on the other instance closed, its monitoring paused (a new match makes no
 *   report while another account's same task does); nothing deleted;
 * - user:unsuspend restores sign-in, the key and monitoring;
 * - user:set-le / user:unset-le keep the reference and who set it;
 * - an audit entry for every command that changes something, without secrets, in an
 *   append-only table (UPDATE and DELETE refused); audit:list --since / --json.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { eventually, sql, startTestServer, TEST_PASSWORD, type TestServer } from '../support/harness';
import { call, callV2, connectWebSocket, freshIp } from '../support/helpers';
import { matchValue } from '../../src/common/monitoring-rules';
import { packLogin } from '../../src/common/obfuscation';
import { cliArgs } from '../../../scripts/lib/cli-command';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const run = promisify(execFile);

let server: TestServer;
let other: TestServer;
let dataDir: string;

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** `npm run admin -- ARGS` against the test servers' database; never throws. */
async function admin(...args: string[]): Promise<CliResult> {
  try {
    const { stdout, stderr } = await run(process.execPath, [...cliArgs('admin'), ...args], {
      cwd: ROOT,
      // A small pool: the CLI needs a connection or two, and the test machine's PostgreSQL is shared.
      env: { ...process.env, DATABASE_URL: server.runtime.config.DATABASE_URL, DATA_DIR: dataDir, DB_POOL_SIZE: '2' },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof failed.code === 'number' ? failed.code : -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

function ok(result: CliResult): string {
  assert.equal(result.code, 0, `admin failed: ${result.stderr}`);
  return result.stdout;
}

const unique = () => randomBytes(4).toString('hex');

async function signIn(target: TestServer, email: string, password = TEST_PASSWORD) {
  return call(target.url, 'POST', '/authentication/login', { body: packLogin({ email, password, remember: true }), ip: freshIp() });
}

async function auditRows(action: string, target?: string) {
  let query = server.runtime.db.selectFrom('audit_log').selectAll().where('action', '=', action);
  if (target !== undefined) query = query.where('target', '=', target);
  return query.orderBy('id').execute();
}

async function addTask(userId: string, value: string): Promise<void> {
  await server.runtime.db.insertInto('monitor_tasks').values({ user_id: userId, kind: 'username', value, match_value: matchValue('username', value), active: true }).execute();
}

async function reportsOf(userId: string): Promise<number> {
  const row = await server.runtime.db.selectFrom('monitor_reports').select(sql<string>`count(*)`.as('n')).where('user_id', '=', userId).executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Ingests a dump holding `username` and waits until the server has matched it. */
async function ingestAndMatch(username: string): Promise<void> {
  const segment = await server.ingest(`Dump ${unique()}`, [{ username, password: 'x' }]);
  await eventually(async () => {
    const row = await server.runtime.db.selectFrom('monitor_segments').select('status').where('segment_id', '=', segment).executeTakeFirst();
    return row?.status === 'matched';
  }, 30_000);
}

before(async () => {
  const env = { MONITOR_SWEEP_MS: '3600000', TRUSTED_PROXIES: '127.0.0.1', SUPPORT_URL: 'https://help.example.test/contact', DB_POOL_SIZE: '5' };
  server = await startTestServer({ env });
  other = await startTestServer({ shareWith: server, env });
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lw-operator-accounts-'));
});
after(async () => {
  await other?.close();
  await server?.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('user:list', () => {
  test('lists accounts with plan, credits, flags and last sign-in; --query filters; --json is parseable', { timeout: 300_000 }, async () => {
    const tag = unique();
    const signedIn = await server.createUser({ email: `list-${tag}-a@example.com`, searchDays: 10, searchCredits: 7, whoisCredits: 3 });
    const never = await server.createUser({ email: `list-${tag}-b@example.com`, verified: false });
    await server.createUser({ email: `elsewhere-${unique()}@example.com` });
    assert.equal((await server.login(signedIn.email)).status, 200);

    const listed = JSON.parse(ok(await admin('user:list', '--query', `LIST-${tag}`, '--json')));
    assert.deepEqual(listed.map((a: { email: string }) => a.email).sort(), [signedIn.email, never.email]);
    const a = listed.find((x: { email: string }) => x.email === signedIn.email);
    assert.equal(a.id, signedIn.id);
    assert.equal(a.verified, true);
    assert.equal(a.search_credits, 7);
    assert.equal(a.whois_credits, 3);
    assert.match(a.plan[0], /^search until \d{4}-\d{2}-\d{2}$/);
    assert.deepEqual(a.flags, []);
    assert.ok(Date.now() - Date.parse(a.last_sign_in) < 60_000, a.last_sign_in);
    assert.ok(Date.parse(a.created_at) <= Date.now());
    const b = listed.find((x: { email: string }) => x.email === never.email);
    assert.equal(b.verified, false);
    assert.equal(b.last_sign_in, null);

    const text = ok(await admin('user:list', '--query', `list-${tag}-b`));
    assert.match(text, new RegExp(`^${never.email.replace(/\./g, '\\.')} .*unverified.*plan free.*last sign-in never`, 'm'));
    assert.match(text, /^1 account$/m);
    // A LIKE wildcard in the query is a literal character.
    assert.match(ok(await admin('user:list', '--query', '%_%')), /No account matches/);
  });
});

describe('suspension', () => {
  let user: { id: string; email: string; apiKey: string };
  let token: string;
  let cookie: string;
  const watched = `watched-${unique()}`;
  let control: { id: string };

  before(async () => {
    const created = await server.createUser({ email: `suspend-${unique()}@example.com`, searchDays: 30, searchCredits: 500, apiKey: true });
    user = { id: created.id, email: created.email, apiKey: created.apiKey! };
    ({ token, cookie } = await server.login(user.email));
    await addTask(user.id, watched);
    await server.runtime.db.insertInto('notification_channels').values({ user_id: user.id, kind: 'email', value: user.email, active: true, verified_at: new Date() }).execute();
    control = await server.createUser({ searchDays: 30 });
    await addTask(control.id, watched);
  });

  test('a suspended account: sign-in, session, refresh, /v2 and Monitor API keys refused on every instance, sockets closed, nothing deleted', { timeout: 300_000 }, async () => {
    // Warm the other instance: its in-process snapshot knows the key.
    const v2 = (key: string) => callV2(other, key, { query: `username:"${watched}"` });
    const monitor = (key: string) => call(other.url, 'POST', '/monitor-api/v1/get-user-info', { body: { type: 'tasks' }, headers: { authorization: `Bearer ${key}` }, ip: freshIp() });
    assert.equal((await v2(user.apiKey)).status, 200);
    assert.equal((await monitor(user.apiKey)).status, 200);
    assert.equal((await call(server.url, 'GET', '/user/info', { token })).status, 200);
    const socket = await connectWebSocket(other);
    socket.send({ type: 'auth', token });
    assert.deepEqual(await socket.next(), { type: 'auth', ok: true });

    assert.equal((await admin('user:suspend', '--email', user.email)).code, 2, '--reason is required');
    const out = ok(await admin('user:suspend', '--email', user.email.toUpperCase(), '--reason', 'abuse report 7', '--operator', 'ops-anna'));
    // Committed when the command returns: from then on, the other instance's snapshot of the
    // key lives at most a second.
    const suspendedAt = Date.now();
    await eventually(async () => (await v2(user.apiKey)).status === 400, 5000);
    await eventually(async () => (await monitor(user.apiKey)).status === 401, 5000);
    const keyStoppedMs = Date.now() - suspendedAt;
    assert.ok(keyStoppedMs < 5000, `key stopped after ${keyStoppedMs} ms`);
    assert.match(out, new RegExp(`^Suspended \\(${user.email.replace(/\./g, '\\.')}, ${user.id}\\)`));

    const refused = await signIn(server, user.email);
    assert.equal(refused.status, 403);
    assert.equal(refused.body.error, 'This account is suspended. Please contact support: https://help.example.test/contact');
    // The wrong password tells nothing about the suspension.
    const wrong = await signIn(server, user.email, 'Wrong-Pw-1234');
    assert.equal(wrong.status, 403);
    assert.equal(wrong.body.error, 'Invalid email or password');
    assert.equal((await call(server.url, 'GET', '/user/info', { token })).status, 401);
    assert.equal((await call(other.url, 'GET', '/user/info', { token })).status, 401);
    assert.equal((await call(server.url, 'POST', '/authentication/refresh', { cookie })).status, 401);

    // The socket on the other instance is closed by its periodic session check.
    assert.equal(await Promise.race([socket.closed, new Promise((resolve) => setTimeout(() => resolve('still open'), 8000))]), 4401);

    // Nothing deleted.
    const row = await server.runtime.db.selectFrom('users').selectAll().where('id', '=', user.id).executeTakeFirstOrThrow();
    assert.ok(row.api_key_hash);
    assert.equal(row.closed_at, null);
    assert.equal(row.suspended_reason, 'abuse report 7');
    assert.equal(row.suspended_by, 'ops-anna');
    const tasks = await server.runtime.db.selectFrom('monitor_tasks').select('active').where('user_id', '=', user.id).execute();
    assert.deepEqual(tasks, [{ active: true }]);

    const listed = JSON.parse(ok(await admin('user:list', '--query', user.email, '--json')));
    assert.deepEqual(listed[0].flags, ['suspended']);
    assert.equal(listed[0].suspended_reason, 'abuse report 7');
    // Twice: nothing more happens, nothing more is recorded.
    assert.match(ok(await admin('user:suspend', '--email', user.email, '--reason', 'again')), /^Already suspended/);
    const audit = await auditRows('user:suspend', user.email);
    assert.equal(audit.length, 1);
    assert.equal(audit[0]!.operator, 'ops-anna');
    assert.equal(audit[0]!.reason, 'abuse report 7');
    assert.deepEqual(audit[0]!.details, { user_id: user.id });
    const revoked = await server.runtime.db.selectFrom('sessions').select('revoked_reason').where('user_id', '=', user.id).execute();
    assert.deepEqual(revoked.map((s) => s.revoked_reason), ['suspended']);
  });

  test('monitoring of a suspended account is paused: a new match makes no report and no alert (another account\'s same task does)', { timeout: 300_000 }, async () => {
    await ingestAndMatch(watched);
    assert.equal(await reportsOf(control.id), 1);
    assert.equal(await reportsOf(user.id), 0);
    const deliveries = await server.runtime.db.selectFrom('deliveries').select('id').where('user_id', '=', user.id).execute();
    assert.equal(deliveries.length, 0);
  });

  test('user:unsuspend restores sign-in, the API key on every instance and monitoring', { timeout: 300_000 }, async () => {
    assert.equal((await admin('user:unsuspend', '--email', 'nobody-here@example.com')).code, 1);
    assert.match(ok(await admin('user:unsuspend', '--email', user.email, '--reason', 'appeal accepted')), /^Unsuspended/);
    const signedIn = await signIn(server, user.email);
    assert.equal(signedIn.status, 200);
    assert.equal((await call(other.url, 'GET', '/user/info', { token: signedIn.body.auth_token })).status, 200);
    await eventually(async () => (await callV2(other, user.apiKey, { query: `username:"${watched}"` })).status === 200, 3000);
    await ingestAndMatch(watched);
    assert.equal(await reportsOf(user.id), 1);
    assert.equal(await reportsOf(control.id), 2);
    const [entry] = await auditRows('user:unsuspend', user.email);
    assert.equal(entry!.reason, 'appeal accepted');
    assert.match(ok(await admin('user:unsuspend', '--email', user.email)), /^Not suspended; nothing changed/);
  });
});

describe('law enforcement', () => {
  test('user:set-le keeps the reference and who set it; user:unset-le ends it; user:create/grant refuse --le', { timeout: 300_000 }, async () => {
    const user = await server.createUser({ email: `le-${unique()}@example.com` });
    assert.equal((await admin('user:set-le', '--email', user.email)).code, 2, '--reference is required');
    assert.match(ok(await admin('user:set-le', '--email', user.email, '--reference', 'KYC-2026-0042', '--operator', 'ops-ben')), /^Law-enforcement status set/);
    let row = await server.runtime.db.selectFrom('users').selectAll().where('id', '=', user.id).executeTakeFirstOrThrow();
    assert.equal(row.law_enforcement, true);
    assert.equal(row.law_enforcement_reference, 'KYC-2026-0042');
    assert.equal(row.law_enforcement_set_by, 'ops-ben');
    assert.ok(row.law_enforcement_set_at);
    const info = await call(server.url, 'GET', '/user/info', { token: (await server.login(user.email)).token });
    assert.equal(info.body.law_enforcement, true);
    const listed = JSON.parse(ok(await admin('user:list', '--query', user.email, '--json')));
    assert.deepEqual(listed[0].flags, ['law-enforcement']);
    assert.equal(listed[0].law_enforcement_reference, 'KYC-2026-0042');

    assert.match(ok(await admin('user:unset-le', '--email', user.email, '--reason', 'mandate ended')), /^Law-enforcement status removed/);
    row = await server.runtime.db.selectFrom('users').selectAll().where('id', '=', user.id).executeTakeFirstOrThrow();
    assert.equal(row.law_enforcement, false);
    assert.equal(row.law_enforcement_reference, null);
    const [set] = await auditRows('user:set-le', user.email);
    assert.equal(set!.operator, 'ops-ben');
    assert.deepEqual(set!.details, { user_id: user.id, reference: 'KYC-2026-0042', previous_reference: null });
    const [unset] = await auditRows('user:unset-le', user.email);
    assert.equal(unset!.reason, 'mandate ended');
    assert.deepEqual(unset!.details, { user_id: user.id, reference: 'KYC-2026-0042' });

    const refused = await admin('user:create', '--email', `le-new-${unique()}@example.com`, '--password', TEST_PASSWORD, '--le');
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /use user:set-le/);
    assert.equal((await admin('user:grant', '--email', user.email, '--le')).code, 2);
    assert.equal((await server.runtime.db.selectFrom('users').select('law_enforcement').where('id', '=', user.id).executeTakeFirstOrThrow()).law_enforcement, false);
  });
});

describe('audit log', () => {
  test('every changing command of admin.ts writes who, what, on what and details, never a secret', { timeout: 300_000 }, async () => {
    const email = `audited-${unique()}@example.com`;
    const created = JSON.parse(ok(await admin('user:create', '--email', email, '--password', TEST_PASSWORD, '--verified', '--json', '--operator', 'ops-cy')));
    const granted = JSON.parse(ok(await admin('user:grant', '--email', email, '--search-credits', '5', '--api-key', '--json', '--operator', 'ops-cy')));
    assert.ok(granted.api_key);
    server.markSecret(granted.api_key);
    const code = `AUDIT${unique().toUpperCase()}`;
    ok(await admin('event-code:create', '--code', code, '--grant', 'search-credits:10', '--operator', 'ops-cy'));
    ok(await admin('product:set', '--sku', 'search-credits', '--price', '0.07', '--operator', 'ops-cy'));
    const bannerId = ok(await admin('banner:set', '--message', 'Audited <b>banner</b>', '--operator', 'ops-cy')).trim();
    ok(await admin('banner:clear', '--operator', 'ops-cy'));
    ok(await admin('notify:global', '--message', 'Maintenance tonight', '--operator', 'ops-cy'));
    ok(await admin('domain:verify', '--email', email, '--domain', 'Audited.example', '--operator', 'ops-cy'));

    const rows = await server.runtime.db.selectFrom('audit_log').selectAll().where('operator', '=', 'ops-cy').orderBy('id').execute();
    assert.deepEqual(
      rows.map((r) => [r.action, r.target]),
      [
        ['user:create', email],
        ['user:grant', email],
        ['event-code:create', code],
        ['product:set', 'search-credits'],
        ['banner:set', bannerId],
        ['banner:clear', null],
        ['notify:global', null],
        ['domain:verify', email],
      ],
    );
    const details = Object.fromEntries(rows.map((r) => [r.action, r.details]));
    assert.deepEqual(details['user:create'], { user_id: created.id, verified: true });
    assert.deepEqual(details['user:grant'], { user_id: created.id, search_credits: 5, new_api_key: true });
    assert.deepEqual(details['event-code:create'], { grants: [{ sku: 'search-credits', quantity: 10 }], max_uses: 1, expires_at: null });
    assert.equal((details['product:set'] as { price_cents: number }).price_cents, 7);
    assert.deepEqual(details['banner:set'], { message: 'Audited <b>banner</b>' });
    assert.equal((details['notify:global'] as { message: string }).message, 'Maintenance tonight');
    assert.deepEqual(details['domain:verify'], { user_id: created.id, domain: 'audited.example' });
    const everything = JSON.stringify(rows);
    assert.ok(!everything.includes(TEST_PASSWORD), 'no password in the audit log');
    assert.ok(!everything.includes(granted.api_key), 'no API key in the audit log');
    for (const row of rows) assert.ok(Date.now() - row.at.getTime() < 120_000);

    // A command that fails writes nothing.
    assert.equal((await admin('product:set', '--sku', 'no-such-sku', '--price', '1', '--operator', 'ops-cy')).code, 2);
    assert.equal((await server.runtime.db.selectFrom('audit_log').select('id').where('operator', '=', 'ops-cy').execute()).length, rows.length);
    // Without --operator: the OS user.
    ok(await admin('banner:set', '--message', 'Anonymous'));
    const [last] = await server.runtime.db.selectFrom('audit_log').selectAll().orderBy('id', 'desc').limit(1).execute();
    assert.equal(last!.operator, os.userInfo().username);
  });

  test('the audit log is append-only: UPDATE, DELETE and TRUNCATE are refused', async () => {
    const db = server.runtime.db;
    await db.insertInto('audit_log').values({ operator: 'test', action: 'test:append' }).execute();
    await assert.rejects(sql`update audit_log set operator = 'someone else'`.execute(db), /append-only/);
    await assert.rejects(sql`delete from audit_log`.execute(db), /append-only/);
    await assert.rejects(sql`truncate audit_log`.execute(db), /append-only/);
    assert.equal((await db.selectFrom('audit_log').select('id').where('action', '=', 'test:append').execute()).length, 1);
  });

  test('audit:list prints the entries, --since keeps the later ones, --json is parseable, a bad --since is refused', { timeout: 300_000 }, async () => {
    const all = JSON.parse(ok(await admin('audit:list', '--json')));
    assert.ok(all.length >= 5);
    for (let i = 1; i < all.length; i++) assert.ok(Number(all[i].id) > Number(all[i - 1].id), 'oldest first');
    const suspend = all.find((e: { action: string }) => e.action === 'user:suspend');
    assert.equal(suspend.operator, 'ops-anna');
    assert.equal(suspend.reason, 'abuse report 7');
    assert.ok(!Number.isNaN(Date.parse(suspend.at)));

    const middle = all[Math.floor(all.length / 2)];
    const since = JSON.parse(ok(await admin('audit:list', '--since', middle.at, '--json')));
    assert.ok(since.length > 0 && since.length < all.length);
    assert.ok(since.every((e: { at: string }) => Date.parse(e.at) >= Date.parse(middle.at)));
    const today = new Date().toISOString().slice(0, 10);
    assert.equal(JSON.parse(ok(await admin('audit:list', '--since', today, '--json'))).length, all.length);
    assert.match(ok(await admin('audit:list', '--since', '2999-01-01')), /^No audit entries\.$/m);

    const text = ok(await admin('audit:list', '--since', today));
    assert.match(text, /^#\d+ \S+Z ops-anna user:suspend \S+ \(reason: "abuse report 7"\) \{"user_id":"[0-9a-f-]+"\}$/m);
    for (const bad of ['yesterday', '2026-13-01', '2026-11-28T10:00']) {
      const refused = await admin('audit:list', '--since', bad);
      assert.equal(refused.code, 2, bad);
      assert.match(refused.stderr, /--since takes a date/);
    }
  });
});
