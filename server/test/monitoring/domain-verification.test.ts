/**
 * Domain verification (docs/monitoring.md "Domain verification";
 * reliability-security.md 37): a domain task's records reach its owner only after the owner
 * proved control of the domain. Against real servers: a DNS server of our own on loopback
 * (dns2, through DNS_SERVERS) answering TXT and A, a local HTTP server holding the
 * `.well-known` file, the role-address mail read from the outbox, the operator's override
 * run as the CLI. The defect this guards: an enterprise account watching `gmail.com` got
 * every gmail record of every new dump, passwords included.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { randomUUID } from 'node:crypto';
import { eventually, sql, startTestServer, type TestServer } from '../support/harness';
import { call, freshIp } from '../support/helpers';
import { startTestDnsServer, type TestDnsServer } from '../support/dns-server';
import { createDomainVerifier } from '../../src/monitoring/domain-verifier';
import { CHECK_BUCKET, MAIL_BUCKET, markDomainVerified } from '../../src/monitoring/domain-verification-service';
import { grantPurchase } from '../../src/payments/grants-service';
import { cliArgs } from '../../../scripts/lib/cli-command';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const run = promisify(execFile);
/** What our HTTP server serves at /.well-known/leakwell-verification.txt, per Host; and the webhook bodies it received. */
const files = new Map<string, string>();
const webhookBodies: string[] = [];

let dnsServer: TestDnsServer;
let httpServer: http.Server;
let httpPort: number;
let server: TestServer;

interface User {
  id: string;
  email: string;
  token: string;
  apiKey: string;
  ip: string;
}

async function makeUser(options: { enterprise?: boolean } = {}): Promise<User> {
  const user = await server.createUser({ searchDays: 30, enterprise: options.enterprise ?? true, apiKey: true });
  return { id: user.id, email: user.email, apiKey: user.apiKey!, token: (await server.login(user.email)).token, ip: freshIp() };
}

function dashboard(user: User, route: string, body: unknown = {}) {
  return call(server.url, 'POST', route, { body, token: user.token });
}

async function addDomainTask(user: User, domain: string): Promise<void> {
  const added = await dashboard(user, '/monitoring/add-task', { key: 'domain', value: domain });
  assert.equal(added.status, 200, JSON.stringify(added.body));
}

async function verification(user: User, domain: string) {
  const listed = await dashboard(user, '/monitoring/domains/get');
  assert.equal(listed.status, 200, JSON.stringify(listed.body));
  return listed.body.domains.find((d: { domain: string }) => d.domain === domain);
}

before(async () => {
  dnsServer = await startTestDnsServer();

  httpServer = http.createServer((request, response) => {
    const host = (request.headers.host ?? '').split(':')[0]!.toLowerCase();
    if (request.method === 'POST') {
      let body = '';
      request.on('data', (chunk) => (body += chunk));
      request.on('end', () => {
        webhookBodies.push(body);
        response.end('ok');
      });
      return;
    }
    const file = files.get(host);
    if (request.url !== '/.well-known/leakwell-verification.txt' || file === undefined) {
      response.statusCode = 404;
      response.end('not found');
      return;
    }
    if (file.startsWith('redirect:')) {
      response.writeHead(302, { location: file.slice('redirect:'.length) });
      response.end();
      return;
    }
    response.end(file);
  });
  await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
  httpPort = (httpServer.address() as AddressInfo).port;

  server = await startTestServer({
    env: { DNS_SERVERS: `127.0.0.1:${dnsServer.port}`, WEBHOOK_ALLOW_PRIVATE: 'true', MONITOR_SWEEP_MS: '3600000', TRUSTED_PROXIES: '127.0.0.1' },
    domainFilePort: httpPort,
  });
});

after(async () => {
  await server?.close();
  await new Promise((resolve) => httpServer?.close(resolve));
  await dnsServer?.close();
});

describe('an unverified domain task holds no record values', () => {
  const GMAIL_RECORDS = [
    { email: 'jane.doe.lw@gmail.com', username: 'janedoe-lw', password: 'hunter2-gmail-secret' },
    { email: 'someone.lw@mail.gmail.com', password: 'p4ss-subdomain-secret' },
    { email: 'other.lw@example.net', password: 'not-gmail-secret' },
  ];
  const VALUES = ['jane.doe.lw', 'janedoe-lw', 'hunter2-gmail-secret', 'someone.lw', 'p4ss-subdomain-secret'];
  let owner: User;
  let reportId: string;
  /** A standard account: a paid domain slot, its domain set through /v2/monitoring/update-domain. */
  let standard: User;

  before(async () => {
    owner = await makeUser({ enterprise: true });
    await addDomainTask(owner, 'gmail.com');
    for (const [kind, value] of [
      ['email', 'gmail-alerts@example.com'],
      ['phone', '+15550104242'],
      ['webhook', `http://127.0.0.1:${httpPort}/hook`],
    ] as const) {
      await server.runtime.db
        .insertInto('notification_channels')
        // The email channel confirmed already (channel-confirmation.test.ts covers unconfirmed ones).
        .values({ user_id: owner.id, kind, value, verified_at: kind === 'email' ? new Date() : null, secret: kind === 'webhook' ? 'whsec_dGVzdHRlc3R0ZXN0dGVzdHRlc3R0ZXN0dGVzdHRlc3Q=' : null })
        .execute();
    }
    standard = await makeUser({ enterprise: false });
    await server.runtime.db
      .transaction()
      .execute((trx) => grantPurchase(trx, { userId: standard.id, sku: 'domain-nonsub-monthly', quantity: 1, source: `payment:${randomUUID()}`, reason: 'purchase' }));
    const set = await call(server.url, 'POST', '/v2/monitoring/update-domain', { body: { domain: 'gmail.com' }, headers: { [server.runtime.config.apiKeyHeader]: standard.apiKey }, ip: standard.ip });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    await server.ingest('Gmail Dump', GMAIL_RECORDS);
    reportId = await eventually(async () => {
      const row = await server.runtime.db.selectFrom('monitor_reports').select('id').where('user_id', '=', owner.id).executeTakeFirst();
      return row?.id;
    }, 30_000);
  });

  test('the report is written with its counts, and every reader gets counts only', { timeout: 30_000 }, async () => {
    const listed = await dashboard(owner, '/monitoring/reports/get-reports', { page: 1, page_size: 20 });
    assert.equal(listed.status, 200);
    assert.deepEqual(listed.body.reports.map((r: { results: number }) => r.results), [2]);

    const detail = await dashboard(owner, '/monitoring/reports/get-report', { id: reportId });
    assert.equal(detail.status, 200, JSON.stringify(detail.body));
    const record = detail.body.records.find((r: { key: string }) => r.key === 'domain');
    assert.equal(record.results_count, 2);
    assert.deepEqual(record.data, []);
    assert.equal(record.domain_unverified, true);

    const v2 = await call(server.url, 'POST', '/v2/monitoring/get-report', { body: { id: reportId }, headers: { [server.runtime.config.apiKeyHeader]: owner.apiKey }, ip: owner.ip });
    assert.equal(v2.status, 200, JSON.stringify(v2.body));
    assert.deepEqual(v2.body.tasks.map((t: { results_count: number; results: unknown[]; domain_unverified?: boolean }) => [t.results_count, t.results.length, t.domain_unverified]), [[2, 0, true]]);

    const v1 = await call(server.url, 'POST', '/monitor-api/v1/get-breach-entries', { body: { breach_id: reportId }, headers: { authorization: `Bearer ${owner.apiKey}` }, ip: owner.ip });
    assert.equal(v1.status, 200, JSON.stringify(v1.body));
    assert.deepEqual([v1.body.entries, v1.body.unverified_domains], [[], ['gmail.com']]);

    for (const body of [listed.body, detail.body, v2.body, v1.body]) {
      for (const value of VALUES) assert.ok(!JSON.stringify(body).includes(value), `no ${value} in ${JSON.stringify(body)}`);
    }
  });

  test("a standard account's paid domain slot is held to the same rule", { timeout: 30_000 }, async () => {
    const id = await eventually(async () => {
      const row = await server.runtime.db.selectFrom('monitor_reports').select('id').where('user_id', '=', standard.id).executeTakeFirst();
      return row?.id;
    }, 20_000);
    const detail = await dashboard(standard, '/monitoring/reports/get-report', { id });
    assert.deepEqual(detail.body.records.map((r: { results_count: number; data: unknown[]; domain_unverified?: boolean }) => [r.results_count, r.data.length, r.domain_unverified]), [[2, 0, true]]);
  });

  test('alerts go out with counts and never with values (mail, SMS, webhook)', { timeout: 30_000 }, async () => {
    const mail = await server.waitForMail('gmail-alerts@example.com', /new results/, 20_000);
    const sms = await eventually(async () => (await sql<{ body: string }>`select body from sms_outbox where to_number = '+15550104242'`.execute(server.runtime.db)).rows[0], 20_000);
    const hook = await eventually(async () => webhookBodies.find((b) => b.includes(reportId)), 20_000);
    for (const text of [mail.text, sms.body, hook]) {
      assert.match(text, /2 new record|"id"/);
      for (const value of VALUES) assert.ok(!text.includes(value), `no ${value} in ${text}`);
    }
  });

  test('after the operator verifies the domain (npm run admin -- domain:verify), the same report shows the values', { timeout: 60_000 }, async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lw-domain-admin-'));
    try {
      const { stdout } = await run(process.execPath, [...cliArgs('admin'), 'domain:verify', '--email', owner.email, '--domain', 'GMAIL.com'], {
        cwd: ROOT,
        env: { ...process.env, DATABASE_URL: server.runtime.config.DATABASE_URL, DATA_DIR: dataDir },
      });
      assert.match(stdout, /gmail\.com verified/);
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
    assert.equal((await verification(owner, 'gmail.com')).method, 'operator');

    const detail = await dashboard(owner, '/monitoring/reports/get-report', { id: reportId });
    const record = detail.body.records.find((r: { key: string }) => r.key === 'domain');
    assert.equal(record.domain_unverified, undefined);
    assert.deepEqual(record.data.map((e: { email: string[] }) => e.email[0]).sort(), ['jane.doe.lw@gmail.com', 'someone.lw@mail.gmail.com']);
    const v2 = await call(server.url, 'POST', '/v2/monitoring/get-report', { body: { id: reportId }, headers: { [server.runtime.config.apiKeyHeader]: owner.apiKey }, ip: owner.ip });
    assert.equal(v2.body.tasks[0].results.length, 2);
    const v1 = await call(server.url, 'POST', '/monitor-api/v1/get-breach-entries', { body: { breach_id: reportId }, headers: { authorization: `Bearer ${owner.apiKey}` }, ip: owner.ip });
    assert.deepEqual([v1.body.entries.length, v1.body.unverified_domains], [2, undefined]);
  });

  test('a verification older than a year hides the values again (checked on read)', async () => {
    await sql`update domain_verifications set verified_at = now() - interval '366 days' where user_id = ${owner.id}`.execute(server.runtime.db);
    const detail = await dashboard(owner, '/monitoring/reports/get-report', { id: reportId });
    const record = detail.body.records.find((r: { key: string }) => r.key === 'domain');
    assert.deepEqual([record.data, record.domain_unverified], [[], true]);
    assert.equal((await verification(owner, 'gmail.com')).verified, false);
  });

  test("another account's verification covers nothing of this one", async () => {
    const other = await makeUser();
    await markDomainVerified(server.runtime.db, other.id, 'gmail.com');
    const detail = await dashboard(owner, '/monitoring/reports/get-report', { id: reportId });
    assert.equal(detail.body.records[0].domain_unverified, true);
    const listed = await dashboard(standard, '/monitoring/reports/get-reports', { page: 1, page_size: 20 });
    const theirs = await dashboard(standard, '/monitoring/reports/get-report', { id: listed.body.reports[0].id });
    assert.equal(theirs.body.records[0].domain_unverified, true);
  });
});

describe('proving control', () => {
  test('DNS TXT: check now finds the account token at the domain; the verification covers subdomains, not parents', { timeout: 30_000 }, async () => {
    const user = await makeUser();
    await addDomainTask(user, 'dns-proof.test');
    await addDomainTask(user, 'mail.dns-proof.test');
    const before = await verification(user, 'dns-proof.test');
    assert.equal(before.verified, false);
    assert.match(before.txt_record, /^leakwell-verification=[0-9a-f]{32}$/);
    assert.equal(before.file_content, before.txt_record.split('=')[1]);
    assert.deepEqual(before.role_addresses, ['security', 'admin', 'hostmaster', 'webmaster', 'postmaster'].map((l) => `${l}@dns-proof.test`));

    // Nothing published, then another account's token: not verified.
    let checked = await dashboard(user, '/monitoring/domains/check', { domain: 'dns-proof.test' });
    assert.equal(checked.status, 200, JSON.stringify(checked.body));
    assert.equal(checked.body.verified, false);
    dnsServer.txt.set('dns-proof.test', ['v=spf1 -all', 'leakwell-verification=0123456789abcdef0123456789abcdef']);
    checked = await dashboard(user, '/monitoring/domains/check', { domain: 'dns-proof.test' });
    assert.equal(checked.body.verified, false);

    dnsServer.txt.set('dns-proof.test', ['v=spf1 -all', before.txt_record]);
    checked = await dashboard(user, '/monitoring/domains/check', { domain: 'DNS-Proof.test' });
    assert.equal(checked.body.verified, true, checked.body.message);
    assert.equal(checked.body.domain.method, 'dns');
    assert.ok(Date.parse(checked.body.domain.expires_at) - Date.now() > 364 * 86_400_000);
    const sub = await verification(user, 'mail.dns-proof.test');
    assert.deepEqual([sub.verified, sub.verified_by], [true, 'dns-proof.test']);

    // A verified subdomain does not cover its parent.
    const other = await makeUser();
    await addDomainTask(other, 'sub.parent-proof.test');
    await addDomainTask(other, 'parent-proof.test');
    await markDomainVerified(server.runtime.db, other.id, 'sub.parent-proof.test');
    assert.equal((await verification(other, 'parent-proof.test')).verified, false);
  });

  test('.well-known file: fetched from the domain (resolved by our DNS), token checked; redirects and other content refused', { timeout: 30_000 }, async () => {
    const user = await makeUser();
    await addDomainTask(user, 'file-proof.test');
    const state = await verification(user, 'file-proof.test');
    assert.equal(state.file_url, `http://file-proof.test:${httpPort}/.well-known/leakwell-verification.txt`);
    dnsServer.addresses.set('file-proof.test', '127.0.0.1');

    files.set('file-proof.test', 'something else\n');
    assert.equal((await dashboard(user, '/monitoring/domains/check', { domain: 'file-proof.test' })).body.verified, false);
    files.set('file-proof.test', `redirect:http://other.test:${httpPort}/.well-known/leakwell-verification.txt`);
    files.set('other.test', state.file_content);
    dnsServer.addresses.set('other.test', '127.0.0.1');
    assert.equal((await dashboard(user, '/monitoring/domains/check', { domain: 'file-proof.test' })).body.verified, false);
    // The token beyond the body cap is not read.
    files.set('file-proof.test', `${'x'.repeat(8192)}\n${state.file_content}\n`);
    assert.equal((await dashboard(user, '/monitoring/domains/check', { domain: 'file-proof.test' })).body.verified, false);

    files.set('file-proof.test', `${state.file_content}\n`);
    const checked = await dashboard(user, '/monitoring/domains/check', { domain: 'file-proof.test' });
    assert.equal(checked.body.verified, true, checked.body.message);
    assert.equal(checked.body.domain.method, 'file');
  });

  test('the file fetch goes through the SSRF guard: a domain resolving to loopback is refused unless private targets are allowed', async () => {
    dnsServer.addresses.set('guarded.test', '127.0.0.1');
    files.set('guarded.test', 'token-guarded');
    const options = { dnsServers: `127.0.0.1:${dnsServer.port}`, brand: 'LeakWell', plainHttp: true, filePort: httpPort };
    const guarded = createDomainVerifier({ ...options, allowPrivate: false });
    const open = createDomainVerifier({ ...options, allowPrivate: true });
    try {
      assert.equal(await guarded.hasFile('guarded.test', 'token-guarded'), false);
      assert.equal(await open.hasFile('guarded.test', 'token-guarded'), true);
      // Production shape: https, no port.
      assert.equal(createDomainVerifier({ brand: 'Leak Well', allowPrivate: false, plainHttp: false }).fileUrl('example.com'), 'https://example.com/.well-known/leakwell-verification.txt');
    } finally {
      await guarded.close();
      await open.close();
    }
  });

  test('role address: the chosen address gets a single-use link; its page confirms on POST only', { timeout: 30_000 }, async () => {
    const user = await makeUser();
    await addDomainTask(user, 'mail-proof.test');
    const refused = await dashboard(user, '/monitoring/domains/send-mail', { domain: 'mail-proof.test', address: 'ceo' });
    assert.equal(refused.status, 400);
    const sent = await dashboard(user, '/monitoring/domains/send-mail', { domain: 'mail-proof.test', address: 'hostmaster' });
    assert.equal(sent.status, 200, JSON.stringify(sent.body));
    assert.equal(sent.body.domain.mail_sent_to, 'hostmaster@mail-proof.test');
    const mail = await server.waitForMail('hostmaster@mail-proof.test', /confirm monitoring of mail-proof\.test/);
    const link = mail.links.find((l) => l.includes('/monitoring/verify-domain?t='));
    assert.ok(link, mail.text);

    const page = await call(server.url, 'GET', new URL(link).pathname + new URL(link).search);
    assert.equal(page.status, 200);
    assert.match(page.body, /mail-proof\.test/);
    assert.equal((await verification(user, 'mail-proof.test')).verified, false, 'opening the link confirms nothing');

    const confirmed = await fetch(link, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '' });
    assert.equal(confirmed.status, 200);
    const state = await verification(user, 'mail-proof.test');
    assert.deepEqual([state.verified, state.method, state.mail_sent_to], [true, 'email', null]);
    const again = await fetch(link, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '' });
    assert.equal(again.status, 400, 'single use');
    assert.equal((await call(server.url, 'GET', '/monitoring/verify-domain?t=not-a-token')).status, 400);
  });

  test('only domains of the caller’s own tasks; checks and mails are throttled per account', { timeout: 60_000 }, async () => {
    const user = await makeUser();
    await addDomainTask(user, 'throttle-proof.test');
    assert.equal((await dashboard(user, '/monitoring/domains/check', { domain: 'gmail.com' })).status, 404);
    assert.equal((await dashboard(user, '/monitoring/domains/send-mail', { domain: 'gmail.com', address: 'admin' })).status, 404);
    assert.equal((await dashboard(user, '/monitoring/domains/get', { extra: 1 })).status, 400);

    for (let i = 0; i < CHECK_BUCKET.burst; i++) assert.equal((await dashboard(user, '/monitoring/domains/check', { domain: 'throttle-proof.test' })).status, 200);
    const limited = await dashboard(user, '/monitoring/domains/check', { domain: 'throttle-proof.test' });
    assert.equal(limited.status, 429);
    assert.ok(Number(limited.headers.get('retry-after')) > 0);

    for (let i = 0; i < MAIL_BUCKET.burst; i++) assert.equal((await dashboard(user, '/monitoring/domains/send-mail', { domain: 'throttle-proof.test', address: 'admin' })).status, 200);
    assert.equal((await dashboard(user, '/monitoring/domains/send-mail', { domain: 'throttle-proof.test', address: 'admin' })).status, 429);
    // Another account is not held back.
    const other = await makeUser();
    await addDomainTask(other, 'throttle-proof.test');
    assert.equal((await dashboard(other, '/monitoring/domains/check', { domain: 'throttle-proof.test' })).status, 200);
  });
});
