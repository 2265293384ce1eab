/**
 * POST /user/payment-history, POST /user/clear-payment-history and GET /payments/get-products:
 * payment history 20 a page, invoices and products as the dashboard reads them.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { startTestServer, type TestServer, signedIn } from '../support/harness';
import { call } from '../support/helpers';
import { DEFAULT_PRICE_CENTS, PRODUCTS, centsToUsd } from '../../src/common/catalogue';
import { lockPayment, markPaid, openPayment } from '../../src/payments/payments';

let server: TestServer;

before(async () => {
  server = await startTestServer();
});
after(() => server.close());

const post = (path: string, body: unknown, token?: string) => call(server.url, 'POST', path, { body, token });
const history = (token: string, page = 1) => post('/user/payment-history', { page }, token);

/** `count` invoices for the user, the i-th created i minutes ago; ids name their owner. */
async function addInvoices(userId: string, count: number, extra: Partial<{ extra_info: string }> = {}) {
  const now = Date.now();
  await server.runtime.db
    .insertInto('invoices')
    .values(
      Array.from({ length: count }, (_, i) => ({
        id: `inv-${userId.slice(0, 8)}-${String(i).padStart(2, '0')}`,
        user_id: userId,
        item_type: 'Search Credits',
        quantity: 100 + i,
        amount_cents: 500 + i,
        method: 'Card',
        created: new Date(now - i * 60_000),
        ...extra,
      })),
    )
    .execute();
}

describe('payment history', () => {
  test('20 a page, newest first; another user’s invoices never appear', async () => {
    const user = await signedIn(server);
    const other = await signedIn(server);
    await addInvoices(user.id, 25);
    await addInvoices(other.id, 2);

    const first = await history(user.token, 1);
    assert.equal(first.status, 200);
    assert.equal(first.body.total_results, 25);
    assert.equal(first.body.extra_data, false);
    assert.equal(first.body.invoices.length, 20);
    const second = await history(user.token, 2);
    assert.equal(second.body.invoices.length, 5);
    assert.equal(second.body.total_results, 25);
    assert.equal((await history(user.token, 3)).body.invoices.length, 0);

    const all = [...first.body.invoices, ...second.body.invoices];
    assert.deepEqual(
      all.map((invoice: { id: string }) => invoice.id),
      Array.from({ length: 25 }, (_, i) => `inv-${user.id.slice(0, 8)}-${String(i).padStart(2, '0')}`),
      'newest first, no overlap between pages',
    );
    assert.deepEqual(first.body.invoices[0], {
      id: `inv-${user.id.slice(0, 8)}-00`,
      item_type: 'Search Credits',
      quantity: 100,
      created: first.body.invoices[0].created,
      amount: 5,
      method: 'Card',
    });
    assert.ok(!Number.isNaN(Date.parse(first.body.invoices[0].created)));
    assert.equal(second.body.invoices[4].amount, 5.24, 'USD from cents');

    const others = await history(other.token);
    assert.equal(others.body.total_results, 2);
    assert.ok(others.body.invoices.every((invoice: { id: string }) => invoice.id.startsWith(`inv-${other.id.slice(0, 8)}`)));
  });

  test('extra_info only while the user keeps extra invoice data, and only where stored', async () => {
    const user = await signedIn(server);
    await addInvoices(user.id, 1, { extra_info: JSON.stringify({ name: 'Ada', company: 'Analytical Ltd' }) });
    await server.runtime.db
      .insertInto('invoices')
      .values({ id: `plain-${randomUUID()}`, user_id: user.id, item_type: 'WHOIS Credits', quantity: 1, amount_cents: 2, method: 'Card', created: new Date(Date.now() - 3_600_000) })
      .execute();
    let body = (await history(user.token)).body;
    assert.equal(body.extra_data, false);
    assert.ok(body.invoices.every((invoice: object) => !('extra_info' in invoice)), 'setting off: no extra_info');

    const set = await post('/user/update-notification-setting', { setting: 'store_extra_invoice_data', set: true }, user.token);
    assert.equal(set.status, 200);
    body = (await history(user.token)).body;
    assert.equal(body.extra_data, true);
    assert.deepEqual(body.invoices[0].extra_info, { name: 'Ada', company: 'Analytical Ltd' });
    assert.ok(!('extra_info' in body.invoices[1]), 'none stored: none shown');
  });

  test('a paid payment appears with its product name and method; clearing deletes the caller’s invoices only, never payments', async () => {
    const user = await signedIn(server);
    const other = await signedIn(server);
    const db = server.runtime.db;
    for (const owner of [user, other]) {
      const payment = await openPayment(db, { userId: owner.id, sku: 'search-nonsub-monthly', quantity: 2, method: 'card', provider: 'sandbox' });
      await db.transaction().execute(async (trx) => markPaid(trx, (await lockPayment(trx, { id: payment.id }))!, { occurredAt: new Date() }));
    }
    const before = (await history(user.token)).body;
    assert.equal(before.total_results, 1);
    assert.equal(before.invoices[0].item_type, 'Monthly Search Subscription');
    assert.equal(before.invoices[0].quantity, 2);
    assert.equal(before.invoices[0].amount, centsToUsd(2 * DEFAULT_PRICE_CENTS['search-nonsub-monthly']!));
    assert.equal(before.invoices[0].method, 'Card');

    const cleared = await call(server.url, 'POST', '/user/clear-payment-history', { token: user.token });
    assert.equal(cleared.status, 200);
    assert.deepEqual(cleared.body, { success: true });
    assert.deepEqual((await history(user.token)).body, { invoices: [], total_results: 0, extra_data: false });
    assert.equal((await history(other.token)).body.total_results, 1, "another user's history is untouched");
    const payments = await db.selectFrom('payments').select('status').where('user_id', '=', user.id).execute();
    assert.deepEqual(payments, [{ status: 'paid' }], 'the payment is kept');
    assert.equal((await post('/user/clear-payment-history', {}, user.token)).status, 200, 'an empty JSON body is fine too');
  });

  test('billing details: saved, printed on the next invoices while the setting is on, kept by the invoice', async () => {
    const user = await signedIn(server);
    const db = server.runtime.db;
    const get = () => call(server.url, 'GET', '/user/invoice-details', { token: user.token });
    assert.deepEqual((await get()).body, { name: '', company: '', address: '', vat_id: '' });
    const saved = await post('/user/invoice-details', { name: ' Ada Lovelace ', company: 'Analytical Ltd', vat_id: 'GB123456789' }, user.token);
    assert.deepEqual([saved.status, saved.body], [200, { name: 'Ada Lovelace', company: 'Analytical Ltd', address: '', vat_id: 'GB123456789' }]);
    assert.deepEqual((await get()).body, saved.body);
    assert.equal((await post('/user/invoice-details', { vat_id: 'x'.repeat(41) }, user.token)).status, 400);
    assert.equal((await post('/user/invoice-details', { name: 'x', user_id: 'y' }, user.token)).status, 400);
    assert.equal((await call(server.url, 'GET', '/user/invoice-details', {})).status, 401);

    const pay = async () => {
      const payment = await openPayment(db, { userId: user.id, sku: 'search-credits', quantity: 100, method: 'card', provider: 'sandbox' });
      await db.transaction().execute(async (trx) => markPaid(trx, (await lockPayment(trx, { id: payment.id }))!, { occurredAt: new Date(), extraInfo: { card: 'visa •••• 4242' } }));
    };
    await pay(); // setting off: nothing extra kept
    await db.updateTable('users').set({ store_extra_invoice_data: true }).where('id', '=', user.id).execute();
    await pay();
    await post('/user/invoice-details', { name: 'Ada King' }, user.token); // later changes do not rewrite written invoices
    const { invoices } = (await history(user.token)).body;
    assert.deepEqual(invoices[0].extra_info, { name: 'Ada Lovelace', company: 'Analytical Ltd', vat_id: 'GB123456789' });
    assert.ok(!('extra_info' in invoices[1]), 'paid while the setting was off');
  });

  test('validation and authentication', async () => {
    const user = await signedIn(server);
    assert.equal((await history(user.token, 0)).status, 400);
    assert.equal((await post('/user/payment-history', { page: 1, user_id: randomUUID() }, user.token)).status, 400, 'unknown properties refused');
    assert.equal((await post('/user/payment-history', { page: '1' }, user.token)).status, 400);
    assert.equal((await post('/user/payment-history', { page: 1 })).status, 401);
    assert.equal((await call(server.url, 'POST', '/user/clear-payment-history')).status, 401);
  });
});

describe('GET /payments/get-products', () => {
  // The catalogue's default prices (their values: server/test/payments/payments-core.test.ts).
  const SEEDED = Object.fromEntries(Object.entries(DEFAULT_PRICE_CENTS).map(([sku, cents]) => [sku, centsToUsd(cents)]));

  test('every SKU of the catalogue with its seeded price in USD; a changed price shows', async () => {
    const user = await signedIn(server);
    assert.equal((await call(server.url, 'GET', '/payments/get-products')).status, 401);
    const reply = await call(server.url, 'GET', '/payments/get-products', { token: user.token });
    assert.equal(reply.status, 200);
    const prices = Object.fromEntries(reply.body.products.map((p: { sku: string; price: number }) => [p.sku, p.price]));
    assert.deepEqual(Object.keys(prices).sort(), PRODUCTS.map((p) => p.sku).sort(), 'every SKU of the catalogue, once');
    assert.deepEqual(prices, SEEDED);

    await server.runtime.db.updateTable('products').set({ price_cents: 1299 }).where('sku', '=', 'search-nonsub-monthly').execute();
    const changed = await call(server.url, 'GET', '/payments/get-products', { token: user.token });
    assert.equal(changed.body.products.find((p: { sku: string }) => p.sku === 'search-nonsub-monthly').price, 12.99);
    await server.runtime.db.updateTable('products').set({ price_cents: DEFAULT_PRICE_CENTS['search-nonsub-monthly']! }).where('sku', '=', 'search-nonsub-monthly').execute();
  });
});
