/**
 * Card payments end to end on real PostgreSQL and real queues: the sandbox provider over HTTP
 * (checkout → overlay page → Pay → signed event → queue → /webhooks/sandbox → payment-event job),
 * the Paddle provider with signed fixtures (server/test/fixtures/paddle) and a loopback stub
 * for Paddle's API, and reliability-security.md tests 17–19 and 22 for the card side.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import vm from 'node:vm';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { AddressInfo } from 'node:net';
import { eventually, payWithSandbox, sql, startTestServer, type TestServer, signedIn } from '../support/harness';
import { call } from '../support/helpers';
import { ConfigError, loadConfig } from '../../src/config';
import { DEFAULT_PRICE_CENTS, centsToUsd } from '../../src/common/catalogue';
import { paddleSignature } from '../../src/payments/card/paddle-format';
import { cardProviderFor, type AnyCardProvider } from '../../src/payments/card/card-provider';
import type { SandboxCardProvider } from '../../src/payments/card/sandbox-provider';
import { createQueueSystem, type QueueSystem } from '../../src/infra/queues';
import { cliArgs } from '../../../scripts/lib/cli-command';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '../../..');
const FIXTURES = path.join(HERE, '../fixtures/paddle');

type Fixture = { event_id: string; event_type: string; occurred_at: string; data: Record<string, any> };
function fixture(name: string): Fixture {
  return JSON.parse(fs.readFileSync(path.join(FIXTURES, `${name}.json`), 'utf8')) as Fixture;
}

/** POSTs `event` to /webhooks/<provider> signed like Paddle (secret(s), `ts` in seconds). */
async function deliver(server: TestServer, provider: string, event: object, options: { secret?: string; secrets?: string[]; ts?: number; header?: string } = {}) {
  const body = JSON.stringify(event);
  const ts = options.ts ?? Math.floor(Date.now() / 1000);
  const header =
    options.header ??
    (options.secrets ?? [options.secret!]).map((secret, i) => (i === 0 ? paddleSignature(secret, ts, body) : `h1=${paddleSignature(secret, ts, body).split('h1=')[1]}`)).join(';');
  const response = await fetch(`${server.url}/webhooks/${provider}`, { method: 'POST', headers: { 'content-type': 'application/json', 'paddle-signature': header }, body });
  return { status: response.status, body: await response.text() };
}

function runAdmin(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...cliArgs('admin'), ...args], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const db = (server: TestServer) => server.runtime.db;
const payment = (server: TestServer, id: string) => db(server).selectFrom('payments').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const userRow = (server: TestServer, id: string) => db(server).selectFrom('users').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const ledger = (server: TestServer, userId: string) =>
  db(server).selectFrom('credit_ledger').select(['delta', 'reference', 'kind', 'balance_after']).where('user_id', '=', userId).orderBy('id').execute();

async function checkout(server: TestServer, token: string, sku: string, quantity: number) {
  const reply = await call(server.url, 'POST', '/payments/checkout', { token, body: { sku, quantity } });
  assert.equal(reply.status, 200, JSON.stringify(reply.body));
  return reply.body as { checkout_id: string; sku: string; quantity: number; amount: number };
}

describe('sandbox card provider', () => {
  let server: TestServer;
  let secret: string;
  let sandbox: SandboxCardProvider;
  let queues: QueueSystem;

  before(async () => {
    server = await startTestServer();
    const card: AnyCardProvider = cardProviderFor({ config: server.runtime.config, db: db(server), queues: undefined as unknown as QueueSystem });
    assert.equal(card.name, 'sandbox');
    sandbox = card;
    [secret] = (await sandbox.secrets()) as [string];
    server.markSecret(secret);
    // The admin CLI's path: the same provider functions on the server's queues.
    queues = createQueueSystem({ connectionString: server.runtime.connectionString, redisUrl: server.runtime.config.REDIS_URL, namespace: server.namespace });
  });
  after(async () => {
    await queues.close();
    await server.close();
  });

  test('card-config is the sandbox overlay for every SKU; /misc/check answers', async () => {
    const user = await signedIn(server);
    assert.equal((await call(server.url, 'GET', '/payments/card-config')).status, 401);
    const config = await call(server.url, 'GET', '/payments/card-config', { token: user.token });
    assert.equal(config.status, 200);
    assert.equal(config.body.provider, 'sandbox');
    assert.equal(config.body.script_url, '/sandbox/checkout.js');
    assert.equal(config.body.global_name, 'SandboxCheckout');
    assert.equal(config.body.price_ids['search-credits'], 'pri_sandbox_search-credits');
    assert.equal(Object.keys(config.body.price_ids).length, 20);
    const check = await call(server.url, 'GET', '/misc/check');
    assert.deepEqual([check.status, check.body], [200, { success: true }]);
  });

  test('the full flow over HTTP: checkout, the overlay page, Pay, then access and an invoice', async () => {
    const user = await signedIn(server);
    const before = await call(server.url, 'GET', '/user/info', { token: user.token });
    assert.equal(before.body.search_access, false);
    const opened = await checkout(server, user.token, 'search-nonsub-monthly', 2);
    const amountCents = 2 * DEFAULT_PRICE_CENTS['search-nonsub-monthly']!;
    assert.deepEqual({ sku: opened.sku, quantity: opened.quantity, amount: opened.amount }, { sku: 'search-nonsub-monthly', quantity: 2, amount: centsToUsd(amountCents) });

    const page = await fetch(`${server.url}/sandbox/checkout?checkout_id=${opened.checkout_id}`);
    assert.equal(page.status, 200);
    const html = await page.text();
    assert.match(html, /Monthly Search Subscription/);
    assert.match(html, /id="quantity">2</);
    assert.ok(html.includes(`$${centsToUsd(amountCents).toFixed(2)}`), 'the amount shown');
    assert.match(html, /id="pay"/);
    assert.match(html, /id="cancel"/);
    assert.doesNotMatch(html, /<script>/, 'no inline script (CSP script-src self)');
    assert.match(page.headers.get('content-security-policy') ?? '', /frame-ancestors 'self'/);
    assert.match(page.headers.get('content-security-policy') ?? '', /script-src 'self'/);
    assert.equal(page.headers.get('x-frame-options'), 'SAMEORIGIN');
    const script = await fetch(`${server.url}/sandbox/checkout.js`);
    assert.match(script.headers.get('content-type') ?? '', /javascript/);
    assert.match(await script.text(), /window\.SandboxCheckout/);

    const pay = await call(server.url, 'POST', `/sandbox/checkouts/${opened.checkout_id}/pay`);
    assert.equal(pay.status, 200);
    await eventually(async () => (await call(server.url, 'GET', '/user/info', { token: user.token })).body.search_access === true, 20_000);
    const paid = await payment(server, opened.checkout_id);
    assert.equal(paid.status, 'paid');
    assert.match(paid.provider_ref ?? '', /^txn_sbx_/);
    const status = await call(server.url, 'GET', `/sandbox/checkouts/${opened.checkout_id}`);
    assert.deepEqual(status.body, { status: 'paid' });
    const invoices = await db(server).selectFrom('invoices').selectAll().where('user_id', '=', user.id).execute();
    assert.equal(invoices.length, 1);
    assert.equal(invoices[0]!.amount_cents, amountCents);
    assert.equal(invoices[0]!.method, 'Card');
    // 60 days of access from now.
    const row = await userRow(server, user.id);
    assert.ok(row.search_subscribed_until!.getTime() > Date.now() + 59 * 86_400_000);
    // Paying again: the checkout is closed.
    assert.equal((await call(server.url, 'POST', `/sandbox/checkouts/${opened.checkout_id}/pay`)).status, 409);
    assert.equal((await fetch(`${server.url}/sandbox/checkout?checkout_id=${opened.checkout_id}`)).status, 409);
  });

  test('credits: +N with one ledger row payment:<id>; no invoice with store_invoices off', async () => {
    const user = await signedIn(server);
    await db(server).updateTable('users').set({ store_invoices: false }).where('id', '=', user.id).execute();
    const id = await payWithSandbox(server, user.token, 'search-credits', 250);
    assert.equal((await userRow(server, user.id)).search_credits, 250);
    assert.deepEqual(await ledger(server, user.id), [{ delta: 250, reference: `payment:${id}`, kind: 'search', balance_after: 250 }]);
    assert.equal((await db(server).selectFrom('invoices').select('id').where('user_id', '=', user.id).execute()).length, 0);
    const whois = await payWithSandbox(server, user.token, 'whois-credits', 40);
    assert.equal((await userRow(server, user.id)).whois_credits, 40);
    assert.equal((await ledger(server, user.id)).filter((r) => r.reference === `payment:${whois}`).length, 1);
  });

  test('price tampering: the amount is products.price × quantity; a sent price is refused; product:set changes the next checkout', async () => {
    const user = await signedIn(server);
    const tampered = await call(server.url, 'POST', '/payments/checkout', { token: user.token, body: { sku: 'search-credits', quantity: 100, price: 0.01 } });
    assert.equal(tampered.status, 400);
    assert.equal((await call(server.url, 'POST', '/payments/checkout', { token: user.token, body: { sku: 'search-credits', quantity: 100, amount: 1 } })).status, 400);
    assert.equal((await call(server.url, 'POST', '/payments/checkout', { token: user.token, body: { sku: 'gold-bars', quantity: 1 } })).status, 400);
    assert.equal((await call(server.url, 'POST', '/payments/checkout', { token: user.token, body: { sku: 'search-credits', quantity: 0 } })).status, 400);
    assert.equal((await call(server.url, 'POST', '/payments/checkout', { body: { sku: 'search-credits', quantity: 1 } })).status, 401);
    assert.equal((await checkout(server, user.token, 'search-credits', 100)).amount, centsToUsd(100 * DEFAULT_PRICE_CENTS['search-credits']!));

    const env = { DATABASE_URL: server.runtime.config.DATABASE_URL!, DATA_DIR: server.runtime.config.dataDir, LOG_LEVEL: 'silent' };
    const bad = await runAdmin(['product:set', '--sku', 'gold-bars', '--price', '1'], env);
    assert.equal(bad.code, 2, bad.stderr);
    const negative = await runAdmin(['product:set', '--sku', 'search-credits', '--price', '-1'], env);
    assert.equal(negative.code, 2, negative.stderr);
    const zero = await runAdmin(['product:set', '--sku', 'search-credits', '--price', '0'], env);
    assert.equal(zero.code, 2, zero.stderr);
    const set = await runAdmin(['product:set', '--sku', 'search-credits', '--price', '0.07'], env);
    assert.equal(set.code, 0, set.stderr);
    try {
      assert.equal((await checkout(server, user.token, 'search-credits', 100)).amount, 7);
      const row = await db(server).selectFrom('products').select('price_cents').where('sku', '=', 'search-credits').executeTakeFirstOrThrow();
      assert.equal(row.price_cents, 7);
    } finally {
      await db(server).updateTable('products').set({ price_cents: DEFAULT_PRICE_CENTS['search-credits']! }).where('sku', '=', 'search-credits').execute();
    }
  });

  test('test 17: a bad signature or a stale timestamp is rejected (400); nothing stored, nothing changed', async () => {
    const user = await signedIn(server);
    const opened = await checkout(server, user.token, 'search-credits', 10);
    const event = {
      event_id: `evt_test_${randomUUID().replace(/-/g, '')}`,
      event_type: 'transaction.completed',
      occurred_at: new Date().toISOString(),
      data: { id: `txn_test_${randomUUID()}`, status: 'completed', origin: 'web', subscription_id: null, custom_data: { checkout_id: opened.checkout_id }, items: [{ price: { id: 'pri_sandbox_search-credits' }, quantity: 10 }] },
    };
    const count = async () => Number((await sql<{ n: string }>`select count(*) as n from payment_events where event_id = ${event.event_id}`.execute(db(server))).rows[0]!.n);
    assert.equal((await deliver(server, 'sandbox', event, { secret: 'not-the-secret-0123456789' })).status, 400);
    assert.equal((await deliver(server, 'sandbox', event, { header: 'ts=1;h1=zz' })).status, 400);
    assert.equal((await deliver(server, 'sandbox', event, { header: '' })).status, 400);
    assert.equal((await deliver(server, 'sandbox', event, { secret, ts: Math.floor(Date.now() / 1000) - 3600 })).status, 400, 'an hour old');
    assert.equal((await deliver(server, 'sandbox', event, { secret, ts: Math.floor(Date.now() / 1000) + 3600 })).status, 400, 'an hour ahead');
    // The body changed after signing.
    const body = JSON.stringify(event);
    const ts = Math.floor(Date.now() / 1000);
    const tampered = await fetch(`${server.url}/webhooks/sandbox`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'paddle-signature': paddleSignature(secret, ts, body) },
      body: body.replace('"quantity":10', '"quantity":11'),
    });
    assert.equal(tampered.status, 400);
    assert.equal(await count(), 0);
    await new Promise((r) => setTimeout(r, 300));
    assert.equal((await payment(server, opened.checkout_id)).status, 'pending');
    assert.equal((await userRow(server, user.id)).search_credits, 0);
    // The same event, signed right: applied.
    assert.equal((await deliver(server, 'sandbox', event, { secret })).status, 200);
    await eventually(async () => (await payment(server, opened.checkout_id)).status === 'paid');
  });

  test('test 18: one valid event delivered 5 times concurrently grants once; a second event for the same checkout grants nothing', async () => {
    const user = await signedIn(server);
    const opened = await checkout(server, user.token, 'search-credits', 300);
    const event = (eventId: string) => ({
      event_id: eventId,
      event_type: 'transaction.completed',
      occurred_at: new Date().toISOString(),
      data: { id: `txn_test_${randomUUID()}`, status: 'completed', origin: 'web', subscription_id: null, custom_data: { checkout_id: opened.checkout_id }, items: [{ price: { id: 'pri_sandbox_search-credits' }, quantity: 300 }] },
    });
    const first = event(`evt_test_${randomUUID().replace(/-/g, '')}`);
    const replies = await Promise.all(Array.from({ length: 5 }, () => deliver(server, 'sandbox', first, { secret })));
    assert.deepEqual(replies.map((r) => r.status), [200, 200, 200, 200, 200]);
    await eventually(async () => (await payment(server, opened.checkout_id)).status === 'paid');
    assert.equal((await deliver(server, 'sandbox', event(`evt_test_${randomUUID().replace(/-/g, '')}`), { secret })).status, 200);
    await eventually(async () => {
      const rows = await db(server).selectFrom('payment_events').select('processed_at').where('payload', '@>', JSON.stringify({ data: { custom_data: { checkout_id: opened.checkout_id } } })).execute();
      return rows.length === 2 && rows.every((r) => r.processed_at !== null);
    });
    assert.equal((await userRow(server, user.id)).search_credits, 300);
    assert.equal((await ledger(server, user.id)).length, 1);
  });

  test('an event stored whose job was never enqueued (the enqueue failed) is applied when the provider delivers it again', async () => {
    const user = await signedIn(server);
    const opened = await checkout(server, user.token, 'search-credits', 40);
    const event = {
      event_id: `evt_test_${randomUUID().replace(/-/g, '')}`,
      event_type: 'transaction.completed',
      occurred_at: new Date().toISOString(),
      data: { id: `txn_test_${randomUUID()}`, status: 'completed', origin: 'web', subscription_id: null, custom_data: { checkout_id: opened.checkout_id }, items: [{ price: { id: 'pri_sandbox_search-credits' }, quantity: 40 }] },
    };
    // What the first delivery left when its enqueue failed: the row, no job.
    await db(server)
      .insertInto('payment_events')
      .values({ provider: 'sandbox', event_id: event.event_id, event_type: event.event_type, occurred_at: new Date(event.occurred_at), payload: JSON.stringify(event) })
      .execute();
    await new Promise((r) => setTimeout(r, 300));
    assert.equal((await payment(server, opened.checkout_id)).status, 'pending');
    assert.equal((await deliver(server, 'sandbox', event, { secret })).status, 200);
    await eventually(async () => (await payment(server, opened.checkout_id)).status === 'paid');
    assert.equal((await userRow(server, user.id)).search_credits, 40);
    // Delivered once more after it was applied: nothing changes.
    assert.equal((await deliver(server, 'sandbox', event, { secret })).status, 200);
    await new Promise((r) => setTimeout(r, 300));
    assert.equal((await userRow(server, user.id)).search_credits, 40);
    assert.equal((await ledger(server, user.id)).length, 1);
  });

  test('test 19: a refund before its purchase, a renewal before its purchase: retried until the purchase lands, right end state', async () => {
    const user = await signedIn(server);
    // Refund first: the transaction is unknown until the purchase arrives; the job retries.
    const credits = await checkout(server, user.token, 'search-credits', 120);
    const txn = `txn_test_${randomUUID()}`;
    const refund = {
      event_id: `evt_test_${randomUUID().replace(/-/g, '')}`,
      event_type: 'adjustment.created',
      occurred_at: new Date().toISOString(),
      data: { id: `adj_test_${randomUUID()}`, action: 'refund', type: 'full', status: 'approved', transaction_id: txn },
    };
    assert.equal((await deliver(server, 'sandbox', refund, { secret })).status, 200);
    await eventually(async () => {
      const row = await db(server).selectFrom('payment_events').select(['last_error', 'attempts']).where('event_id', '=', refund.event_id).executeTakeFirst();
      return row?.last_error?.includes('unknown transaction') === true;
    });
    const purchase = {
      event_id: `evt_test_${randomUUID().replace(/-/g, '')}`,
      event_type: 'transaction.completed',
      occurred_at: new Date(Date.now() - 1000).toISOString(),
      data: { id: txn, status: 'completed', origin: 'web', subscription_id: null, custom_data: { checkout_id: credits.checkout_id }, items: [{ price: { id: 'pri_sandbox_search-credits' }, quantity: 120 }] },
    };
    // Renewal first: the subscription is unknown until its purchase arrives.
    const monthly = await checkout(server, user.token, 'search-sub-monthly', 1);
    const subId = `sandbox-sub-${randomUUID()}`;
    const renewal = {
      event_id: `evt_test_${randomUUID().replace(/-/g, '')}`,
      event_type: 'transaction.completed',
      occurred_at: new Date().toISOString(),
      data: { id: `txn_test_${randomUUID()}`, status: 'completed', origin: 'subscription_recurring', subscription_id: subId, custom_data: null, items: [{ price: { id: 'pri_sandbox_search-sub-monthly' }, quantity: 1 }] },
    };
    assert.equal((await deliver(server, 'sandbox', renewal, { secret })).status, 200);
    await eventually(async () => {
      const row = await db(server).selectFrom('payment_events').select('last_error').where('event_id', '=', renewal.event_id).executeTakeFirst();
      return row?.last_error?.includes('unknown subscription') === true;
    });
    const subscribe = {
      event_id: `evt_test_${randomUUID().replace(/-/g, '')}`,
      event_type: 'transaction.completed',
      occurred_at: new Date(Date.now() - 1000).toISOString(),
      data: { id: `txn_test_${randomUUID()}`, status: 'completed', origin: 'web', subscription_id: subId, custom_data: { checkout_id: monthly.checkout_id }, items: [{ price: { id: 'pri_sandbox_search-sub-monthly' }, quantity: 1 }] },
    };
    assert.equal((await deliver(server, 'sandbox', purchase, { secret })).status, 200);
    assert.equal((await deliver(server, 'sandbox', subscribe, { secret })).status, 200);

    await eventually(async () => (await payment(server, credits.checkout_id)).status === 'refunded', 30_000);
    const row = await userRow(server, user.id);
    assert.equal(row.search_credits, 0);
    assert.deepEqual((await ledger(server, user.id)).map((r) => r.delta), [120, -120]);
    await eventually(async () => {
      const sub = await db(server).selectFrom('subscriptions').select('period_end').where('provider_subscription_id', '=', subId).executeTakeFirst();
      // The purchase's month, then the renewal's.
      return sub !== undefined && sub.period_end.getTime() > Date.now() + 59 * 86_400_000;
    }, 30_000);
    const events = await db(server).selectFrom('payment_events').select(['processed_at', 'last_error']).where('event_id', 'in', [refund.event_id, renewal.event_id]).execute();
    assert.ok(events.every((e) => e.processed_at !== null && e.last_error === null));
  });

  test('a mismatched item (price or quantity) grants nothing and says why in last_error', async () => {
    const user = await signedIn(server);
    const opened = await checkout(server, user.token, 'search-credits', 10);
    const event = {
      event_id: `evt_test_${randomUUID().replace(/-/g, '')}`,
      event_type: 'transaction.completed',
      occurred_at: new Date().toISOString(),
      data: { id: `txn_test_${randomUUID()}`, status: 'completed', origin: 'web', subscription_id: null, custom_data: { checkout_id: opened.checkout_id }, items: [{ price: { id: 'pri_sandbox_search-credits' }, quantity: 10000 }] },
    };
    assert.equal((await deliver(server, 'sandbox', event, { secret })).status, 200);
    await eventually(async () => {
      const row = await db(server).selectFrom('payment_events').select('last_error').where('event_id', '=', event.event_id).executeTakeFirst();
      return row?.last_error?.includes('does not match') === true;
    });
    assert.equal((await payment(server, opened.checkout_id)).status, 'pending');
    assert.equal((await userRow(server, user.id)).search_credits, 0);
  });

  test('refunds take credits back never below zero and end access (payment:refund path)', async () => {
    const user = await signedIn(server);
    const credits = await payWithSandbox(server, user.token, 'search-credits', 100);
    // 70 of them spent.
    await db(server).updateTable('users').set({ search_credits: 30 }).where('id', '=', user.id).execute();
    await sandboxWith(queues).refund(credits);
    await eventually(async () => (await payment(server, credits)).status === 'refunded');
    assert.equal((await userRow(server, user.id)).search_credits, 0);
    assert.deepEqual((await ledger(server, user.id)).map((r) => [r.delta, r.reference]), [
      [100, `payment:${credits}`],
      [-30, `refund:${credits}`],
    ]);

    const week = await payWithSandbox(server, user.token, 'search-nonsub-weekly', 1);
    assert.equal((await call(server.url, 'GET', '/user/info', { token: user.token })).body.search_access, true);
    await sandboxWith(queues).refund(week);
    await eventually(async () => (await payment(server, week)).status === 'refunded');
    assert.equal((await call(server.url, 'GET', '/user/info', { token: user.token })).body.search_access, false);
    // Only a paid sandbox payment is refunded.
    await assert.rejects(sandboxWith(queues).refund(week), /only a paid payment/);
    await assert.rejects(sandboxWith(queues).refund(randomUUID()), /No sandbox payment/);
  });

  test('cancel: the provider is told, access runs to the period end; renewals extend; another user gets 404 (test 22)', async () => {
    const alice = await signedIn(server);
    const bob = await signedIn(server);
    const monthly = await payWithSandbox(server, alice.token, 'search-sub-monthly', 1);
    const { provider_subscription_id: subId } = await payment(server, monthly);
    assert.match(subId ?? '', /^sandbox-sub-[0-9a-f-]{36}$/);

    // A renewal charged by the provider (payment:renew): one more month.
    const before = (await userRow(server, alice.id)).search_subscribed_until!.getTime();
    await sandboxWith(queues).renew(subId!);
    await eventually(async () => (await userRow(server, alice.id)).search_subscribed_until!.getTime() > before + 29 * 86_400_000);

    // Bob has nothing to cancel; Alice's domain subscription id is a 404 for him.
    const domains = await payWithSandbox(server, alice.token, 'domain-sub-monthly', 2);
    const domainSub = String((await payment(server, domains)).details.subscription_id);
    assert.equal((await call(server.url, 'POST', '/subscriptions/cancel', { token: bob.token, body: { type: 'subscription-search', id: '' } })).status, 404);
    assert.equal((await call(server.url, 'POST', '/subscriptions/cancel', { token: bob.token, body: { type: 'subscription-domain', id: domainSub } })).status, 404);
    assert.equal((await call(server.url, 'POST', '/subscriptions/cancel', { token: bob.token, body: { type: 'subscription-domain', id: 'not-a-uuid' } })).status, 404);
    assert.equal((await call(server.url, 'POST', '/subscriptions/cancel', { token: alice.token, body: { type: 'subscription-monitoring', id: '' } })).status, 404, 'no enterprise plan');
    assert.equal((await call(server.url, 'POST', '/subscriptions/cancel', { token: alice.token, body: { type: 'subscription-search', id: '', extra: 1 } })).status, 400);
    assert.equal((await call(server.url, 'POST', '/subscriptions/cancel', { body: { type: 'subscription-search', id: '' } })).status, 401);

    const cancel = await call(server.url, 'POST', '/subscriptions/cancel', { token: alice.token, body: { type: 'subscription-search', id: '' } });
    assert.deepEqual([cancel.status, cancel.body], [200, { success: true }]);
    const sub = await db(server).selectFrom('subscriptions').selectAll().where('provider_subscription_id', '=', subId).executeTakeFirstOrThrow();
    assert.ok(sub.cancel_requested_at);
    await eventually(async () => (await userRow(server, alice.id)).search_is_recurring === false);
    const after = await db(server).selectFrom('subscriptions').selectAll().where('id', '=', sub.id).executeTakeFirstOrThrow();
    assert.equal(after.recurring, false);
    assert.ok(after.period_end.getTime() > Date.now() + 59 * 86_400_000, 'access runs to the period end');
    assert.equal((await call(server.url, 'GET', '/user/info', { token: alice.token })).body.search_access, true);
    // Cancelled: nothing recurring to cancel any more, and no renewal.
    assert.equal((await call(server.url, 'POST', '/subscriptions/cancel', { token: alice.token, body: { type: 'subscription-search', id: '' } })).status, 404);
    await assert.rejects(sandboxWith(queues).renew(subId!), /does not renew/);

    const domainCancel = await call(server.url, 'POST', '/subscriptions/cancel', { token: alice.token, body: { type: 'subscription-domain', id: domainSub } });
    assert.equal(domainCancel.status, 200);
    await eventually(async () => (await db(server).selectFrom('subscriptions').select('recurring').where('id', '=', domainSub).executeTakeFirstOrThrow()).recurring === false);
  });

  test("the checkout id is the capability: anyone holding it pays that checkout (for its owner); nothing else", async () => {
    const alice = await signedIn(server);
    const bob = await signedIn(server);
    const opened = await checkout(server, alice.token, 'whois-credits', 50);
    assert.equal((await call(server.url, 'POST', `/sandbox/checkouts/${randomUUID()}/pay`)).status, 404);
    assert.equal((await call(server.url, 'POST', '/sandbox/checkouts/not-a-uuid/pay')).status, 404);
    assert.equal((await fetch(`${server.url}/sandbox/checkout?checkout_id=${randomUUID()}`)).status, 404);
    // A payment of another provider (crypto) cannot be paid here.
    const crypto = await db(server)
      .insertInto('payments')
      .values({ user_id: bob.id, sku: 'whois-credits', quantity: 50, amount_cents: 100, method: 'crypto', provider: 'sandbox-crypto' })
      .returning('id')
      .executeTakeFirstOrThrow();
    assert.equal((await call(server.url, 'POST', `/sandbox/checkouts/${crypto.id}/pay`)).status, 404);
    // Bob's browser paying Alice's checkout id credits Alice, never Bob.
    assert.equal((await call(server.url, 'POST', `/sandbox/checkouts/${opened.checkout_id}/pay`, { token: bob.token })).status, 200);
    await eventually(async () => (await userRow(server, alice.id)).whois_credits === 50);
    assert.equal((await userRow(server, bob.id)).whois_credits, 0);
  });

  test('payment:renew and payment:refund from the admin CLI enqueue signed sandbox events', async () => {
    const user = await signedIn(server);
    const id = await payWithSandbox(server, user.token, 'search-credits', 60);
    const env = {
      DATABASE_URL: server.runtime.config.DATABASE_URL!,
      DATA_DIR: server.runtime.config.dataDir,
      LOG_LEVEL: 'silent',
      ...(server.runtime.config.REDIS_URL ? { REDIS_URL: server.runtime.config.REDIS_URL } : {}),
    };
    const missing = await runAdmin(['payment:refund', '--payment', randomUUID(), '--namespace', server.namespace], env);
    assert.equal(missing.code, 1, missing.stderr);
    const refunded = await runAdmin(['payment:refund', '--payment', id, '--namespace', server.namespace], env);
    assert.equal(refunded.code, 0, refunded.stderr);
    await eventually(async () => (await payment(server, id)).status === 'refunded', 20_000);
    assert.equal((await userRow(server, user.id)).search_credits, 0);
  });

  test("checkout.js: the overlay's events reach the callback only from its own frame and origin", async () => {
    const source = await (await fetch(`${server.url}/sandbox/checkout.js`)).text();
    const listeners: ((event: object) => void)[] = [];
    const appended: any[] = [];
    const frameWindow = {};
    const element = (tag: string) => ({
      tag,
      style: {},
      attributes: {} as Record<string, string>,
      children: [] as any[],
      contentWindow: tag === 'iframe' ? frameWindow : undefined,
      setAttribute(name: string, value: string) {
        this.attributes[name] = value;
      },
      appendChild(child: any) {
        this.children.push(child);
      },
      remove() {
        appended.splice(appended.indexOf(this), 1);
      },
    });
    const window: any = {
      addEventListener: (_type: string, fn: (event: object) => void) => listeners.push(fn),
      removeEventListener: (_type: string, fn: (event: object) => void) => listeners.splice(listeners.indexOf(fn), 1),
    };
    const context = vm.createContext({
      window,
      location: { href: `${server.url}/checkout`, origin: server.url },
      document: { currentScript: { src: `${server.url}/sandbox/checkout.js` }, createElement: element, body: { appendChild: (el: any) => appended.push(el) } },
      URL,
      setTimeout,
      encodeURIComponent,
    });
    vm.runInContext(source, context);
    const events: string[] = [];
    window.SandboxCheckout.Environment.set('sandbox');
    window.SandboxCheckout.Initialize({ token: 'sandbox', eventCallback: (event: { name: string }) => events.push(event.name) });
    window.SandboxCheckout.Checkout.open({ items: [{ priceId: 'pri_sandbox_search-credits', quantity: 5 }], customer: { email: 'a@example.com' }, customData: { checkout_id: 'c-1' } });
    assert.equal(appended.length, 1);
    const frame = appended[0].children[0];
    assert.equal(frame.src, `${server.url}/sandbox/checkout?checkout_id=c-1`);
    const send = (event: object) => [...listeners].forEach((fn) => fn(event));
    const message = { type: 'sandbox-checkout', event: 'checkout.completed', checkout_id: 'c-1' };
    send({ origin: 'https://evil.example', source: frameWindow, data: message });
    send({ origin: server.url, source: {}, data: message });
    send({ origin: server.url, source: frameWindow, data: { ...message, checkout_id: 'c-2' } });
    send({ origin: server.url, source: frameWindow, data: { ...message, type: 'other' } });
    assert.deepEqual(events, []);
    assert.equal(appended.length, 1);
    send({ origin: server.url, source: frameWindow, data: message });
    assert.deepEqual(events, ['checkout.completed', 'checkout.closed']);
    assert.equal(appended.length, 0, 'the overlay is removed');
    assert.equal(listeners.length, 0);

    window.SandboxCheckout.Checkout.open({ items: [], customer: { email: 'a@example.com' }, customData: { checkout_id: 'c-3' } });
    const frame3 = appended[0].children[0];
    send({ origin: server.url, source: frame3.contentWindow, data: { type: 'sandbox-checkout', event: 'checkout.closed', checkout_id: 'c-3' } });
    assert.deepEqual(events, ['checkout.completed', 'checkout.closed', 'checkout.closed']);
    assert.equal(appended.length, 0);
  });

  /** The sandbox provider on the test's queue handle (what the admin CLI builds). */
  function sandboxWith(q: QueueSystem): SandboxCardProvider {
    const card = cardProviderFor({ config: { ...server.runtime.config }, db: db(server), queues: q });
    assert.equal(card.name, 'sandbox');
    return card;
  }
});

describe('Paddle card provider (signed fixtures, a loopback stub for its API)', () => {
  const OLD_SECRET = 'pdl_ntfset_old_0123456789abcdefghij';
  const NEW_SECRET = 'pdl_ntfset_new_abcdefghij0123456789';
  const API_KEY = 'pdl_sdbx_apikey_0123456789abcdefghijklmnop';
  const PRICE_IDS = { 'search-credits': 'pri_01jc8vsearchcredits000000a', 'search-sub-monthly': 'pri_01jc8vsearchsubmonthly0000' };
  let server: TestServer;
  let stub: http.Server;
  const calls: { method: string; url: string; auth: string; body: string }[] = [];
  let cancelStatus = 200;

  before(async () => {
    stub = http.createServer((request, response) => {
      let body = '';
      request.on('data', (d) => (body += d));
      request.on('end', () => {
        calls.push({ method: request.method ?? '', url: request.url ?? '', auth: request.headers.authorization ?? '', body });
        const authorized = request.headers.authorization === `Bearer ${API_KEY}`;
        const status = !authorized ? 403 : request.url?.endsWith('/cancel') ? cancelStatus : 200;
        response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ data: {} }));
      });
    });
    await new Promise<void>((resolve) => stub.listen(0, '127.0.0.1', resolve));
    server = await startTestServer({
      env: {
        CARD_PROVIDER: 'paddle',
        PADDLE_API_KEY: API_KEY,
        PADDLE_CLIENT_TOKEN: 'test_client_token_0123',
        PADDLE_API_URL: `http://127.0.0.1:${(stub.address() as AddressInfo).port}`,
        PADDLE_WEBHOOK_SECRETS: `${OLD_SECRET},${NEW_SECRET}`,
        PADDLE_PRICE_IDS: JSON.stringify(PRICE_IDS),
      },
    });
    server.markSecret(OLD_SECRET, NEW_SECRET, API_KEY);
  });
  after(async () => {
    await server.close();
    await new Promise((resolve) => stub.close(resolve));
  });

  function purchaseEvent(checkoutId: string, fields: { sku?: keyof typeof PRICE_IDS; quantity?: number; priceId?: string; txn?: string; subscriptionId?: string | null } = {}) {
    const event = fixture('transaction-completed');
    event.event_id = `evt_${randomUUID().replace(/-/g, '')}`;
    event.occurred_at = new Date().toISOString();
    event.data.id = fields.txn ?? `txn_${randomUUID().replace(/-/g, '')}`;
    event.data.custom_data = { checkout_id: checkoutId };
    event.data.items[0].price.id = fields.priceId ?? PRICE_IDS[fields.sku ?? 'search-credits'];
    event.data.items[0].quantity = fields.quantity ?? 200;
    event.data.subscription_id = fields.subscriptionId ?? null;
    return event;
  }

  test('card-config is Paddle.js with the configured price ids; unmapped SKUs cannot be bought by card; /misc/check asks the API', async () => {
    const user = await signedIn(server);
    const config = await call(server.url, 'GET', '/payments/card-config', { token: user.token });
    assert.deepEqual(config.body, {
      provider: 'paddle',
      script_url: 'https://cdn.paddle.com/paddle/v2/paddle.js',
      global_name: 'Paddle',
      token: 'test_client_token_0123',
      environment: 'sandbox',
      price_ids: PRICE_IDS,
    });
    const unmapped = await call(server.url, 'POST', '/payments/checkout', { token: user.token, body: { sku: 'whois-credits', quantity: 10 } });
    assert.deepEqual([unmapped.status, unmapped.body.error], [400, 'This product cannot be bought by card']);
    assert.equal((await call(server.url, 'GET', '/misc/check')).body.success, true);
    // The dashboard may load Paddle.js and show its checkout frame; nothing else is let in.
    const page = await call(server.url, 'GET', '/checkout', { headers: { accept: 'text/html' } });
    const csp = page.headers.get('content-security-policy') ?? '';
    assert.match(csp, /script-src 'self' https:\/\/cdn\.paddle\.com;/);
    assert.match(csp, /frame-src 'self' https:\/\/\*\.paddle\.com;/);
    assert.ok(calls.some((c) => c.method === 'GET' && c.url === '/event-types' && c.auth === `Bearer ${API_KEY}`));
    // The sandbox is not there.
    assert.equal((await call(server.url, 'POST', `/sandbox/checkouts/${randomUUID()}/pay`)).status, 404);
    assert.equal((await deliver(server, 'sandbox', purchaseEvent(randomUUID()), { secret: OLD_SECRET })).status, 404);
  });

  test('secret rotation: events signed with the old or the new secret both pass; several h1 are read; others and stale ones are refused', async () => {
    const user = await signedIn(server);
    const first = await checkout(server, user.token, 'search-credits', 200);
    const second = await checkout(server, user.token, 'search-credits', 200);
    const third = await checkout(server, user.token, 'search-credits', 200);
    const stale = purchaseEvent(first.checkout_id);
    assert.equal((await deliver(server, 'paddle', stale, { secret: OLD_SECRET, ts: Math.floor(Date.now() / 1000) - 10 })).status, 400, 'older than 5 s');
    assert.equal((await deliver(server, 'paddle', stale, { secret: 'pdl_ntfset_unknown_secret_000000' })).status, 400);
    assert.equal((await deliver(server, 'paddle', purchaseEvent(first.checkout_id), { secret: OLD_SECRET })).status, 200);
    assert.equal((await deliver(server, 'paddle', purchaseEvent(second.checkout_id), { secret: NEW_SECRET })).status, 200);
    // Paddle during its own rotation: an h1 per secret, one of them unknown to us.
    assert.equal((await deliver(server, 'paddle', purchaseEvent(third.checkout_id), { secrets: ['pdl_ntfset_unknown_secret_000000', NEW_SECRET] })).status, 200);
    await eventually(async () => (await userRow(server, user.id)).search_credits === 600);
    assert.equal((await db(server).selectFrom('payment_events').select('id').where('event_id', '=', stale.event_id).execute()).length, 0);
  });

  test('fixtures: purchase, renewal, scheduled cancel (the API is called), refund', async () => {
    const user = await signedIn(server);
    const opened = await checkout(server, user.token, 'search-sub-monthly', 1);
    const subId = `sub_${randomUUID().replace(/-/g, '')}`;
    const txn = `txn_${randomUUID().replace(/-/g, '')}`;
    assert.equal((await deliver(server, 'paddle', purchaseEvent(opened.checkout_id, { sku: 'search-sub-monthly', quantity: 1, txn, subscriptionId: subId }), { secret: NEW_SECRET })).status, 200);
    await eventually(async () => (await payment(server, opened.checkout_id)).status === 'paid');
    const paid = await payment(server, opened.checkout_id);
    assert.deepEqual([paid.provider_ref, paid.provider_subscription_id], [txn, subId]);
    assert.equal((await userRow(server, user.id)).search_is_recurring, true);

    const renewal = fixture('transaction-completed-recurring');
    renewal.event_id = `evt_${randomUUID().replace(/-/g, '')}`;
    renewal.occurred_at = new Date().toISOString();
    renewal.data.subscription_id = subId;
    const before = (await userRow(server, user.id)).search_subscribed_until!.getTime();
    assert.equal((await deliver(server, 'paddle', renewal, { secret: OLD_SECRET })).status, 200);
    await eventually(async () => (await userRow(server, user.id)).search_subscribed_until!.getTime() > before + 29 * 86_400_000);

    // The cancel call failing at Paddle: 502, nothing recorded, so it can be asked again.
    cancelStatus = 500;
    const failed = await call(server.url, 'POST', '/subscriptions/cancel', { token: user.token, body: { type: 'subscription-search', id: '' } });
    assert.deepEqual([failed.status, failed.body.error], [502, 'Issue cancelling subscription']);
    assert.equal((await db(server).selectFrom('subscriptions').select('cancel_requested_at').where('provider_subscription_id', '=', subId).executeTakeFirstOrThrow()).cancel_requested_at, null);
    cancelStatus = 200;
    const cancel = await call(server.url, 'POST', '/subscriptions/cancel', { token: user.token, body: { type: 'subscription-search', id: '' } });
    assert.equal(cancel.status, 200);
    const cancelCall = calls.filter((c) => c.url === `/subscriptions/${subId}/cancel`).pop();
    assert.ok(cancelCall);
    assert.deepEqual([cancelCall.method, cancelCall.auth, JSON.parse(cancelCall.body)], ['POST', `Bearer ${API_KEY}`, { effective_from: 'next_billing_period' }]);
    // Paddle then sends subscription.updated with the scheduled cancel.
    const scheduled = fixture('subscription-updated-scheduled-cancel');
    scheduled.event_id = `evt_${randomUUID().replace(/-/g, '')}`;
    scheduled.occurred_at = new Date().toISOString();
    scheduled.data.id = subId;
    assert.equal((await deliver(server, 'paddle', scheduled, { secret: NEW_SECRET })).status, 200);
    await eventually(async () => (await userRow(server, user.id)).search_is_recurring === false);
    assert.equal((await call(server.url, 'GET', '/user/info', { token: user.token })).body.search_access, true, 'access to the period end');
    // …and subscription.canceled when the period ends: nothing more to change.
    const canceled = fixture('subscription-canceled');
    canceled.event_id = `evt_${randomUUID().replace(/-/g, '')}`;
    canceled.occurred_at = new Date().toISOString();
    canceled.data.id = subId;
    assert.equal((await deliver(server, 'paddle', canceled, { secret: NEW_SECRET })).status, 200);
    await eventually(async () => (await db(server).selectFrom('payment_events').select('processed_at').where('event_id', '=', canceled.event_id).executeTakeFirst())?.processed_at != null);

    const refund = fixture('adjustment-updated-refund');
    refund.event_id = `evt_${randomUUID().replace(/-/g, '')}`;
    refund.occurred_at = new Date().toISOString();
    refund.data.transaction_id = txn;
    assert.equal((await deliver(server, 'paddle', refund, { secret: OLD_SECRET })).status, 200);
    await eventually(async () => (await payment(server, opened.checkout_id)).status === 'refunded');
    assert.equal((await call(server.url, 'GET', '/user/info', { token: user.token })).body.search_access, false);
  });

  test('a price id that is not the checkout SKU grants nothing (last_error says so)', async () => {
    const user = await signedIn(server);
    const opened = await checkout(server, user.token, 'search-credits', 200);
    const event = purchaseEvent(opened.checkout_id, { priceId: PRICE_IDS['search-sub-monthly'], quantity: 200 });
    assert.equal((await deliver(server, 'paddle', event, { secret: OLD_SECRET })).status, 200);
    await eventually(async () => {
      const row = await db(server).selectFrom('payment_events').select('last_error').where('event_id', '=', event.event_id).executeTakeFirst();
      return row?.last_error?.includes('does not match') === true;
    });
    assert.equal((await payment(server, opened.checkout_id)).status, 'pending');
    assert.equal((await userRow(server, user.id)).search_credits, 0);
  });
});

describe('card settings', () => {
  const base = { DATA_DIR: '/tmp/lw-config-test' };
  test('the sandbox is refused with NODE_ENV=production, naming CARD_PROVIDER', () => {
    assert.throws(() => loadConfig({ ...base, NODE_ENV: 'production' }), (error: unknown) => error instanceof ConfigError && /CARD_PROVIDER/.test(error.message));
    assert.equal(loadConfig({ ...base, NODE_ENV: 'development' }).CARD_PROVIDER, 'sandbox');
  });
  test('the crypto sandbox is refused with NODE_ENV=production, naming CRYPTO_PROVIDER', () => {
    assert.throws(() => loadConfig({ ...base, NODE_ENV: 'production' }), (error: unknown) => error instanceof ConfigError && /CRYPTO_PROVIDER/.test(error.message));
    assert.equal(loadConfig({ ...base, NODE_ENV: 'development' }).CRYPTO_PROVIDER, 'sandbox');
  });
  test('paddle needs its settings, a JSON price map of known SKUs and distinct price ids', () => {
    assert.throws(() => loadConfig({ ...base, CARD_PROVIDER: 'paddle' }), /PADDLE_API_KEY[\s\S]*PADDLE_CLIENT_TOKEN[\s\S]*PADDLE_WEBHOOK_SECRETS[\s\S]*PADDLE_PRICE_IDS/);
    const paddle = { ...base, CARD_PROVIDER: 'paddle', PADDLE_API_KEY: 'k', PADDLE_CLIENT_TOKEN: 't', PADDLE_WEBHOOK_SECRETS: 'a, b ,' };
    assert.throws(() => loadConfig({ ...paddle, PADDLE_PRICE_IDS: '[1]' }), /PADDLE_PRICE_IDS: must be a JSON object/);
    assert.throws(() => loadConfig({ ...paddle, PADDLE_PRICE_IDS: '{"gold":"pri_1"}' }), /unknown SKU gold/);
    assert.throws(() => loadConfig({ ...paddle, PADDLE_PRICE_IDS: '{"search-credits":"pri_1","whois-credits":"pri_1"}' }), /more than one SKU/);
    const config = loadConfig({ ...paddle, NODE_ENV: 'production', SMTP_URL: 'smtp://127.0.0.1:2525', CRYPTO_PROVIDER: 'btcpay', PADDLE_ENVIRONMENT: 'production', PADDLE_PRICE_IDS: '{"search-credits":"pri_1"}' });
    assert.deepEqual(config.card.paddle?.webhookSecrets, ['a', 'b']);
    assert.equal(config.card.paddle?.apiUrl, 'https://api.paddle.com');
    assert.equal(config.card.paddle?.toleranceSeconds, 5);
  });
});
