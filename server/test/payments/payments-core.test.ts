// The payment state machine and the grants it applies, against real PostgreSQL: a payment is
// granted once however often it is marked paid, moves only forward, a refund never takes a
// balance below zero, a refund that arrives before its payment still ends refunded, and
// purchases extend a plan from max(now, end).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../support/harness';
import { expireOverduePayments, lockPayment, markExpired, markPaid, markRefunded, openPayment, recordRenewal } from '../../src/payments/payments';
import { renewSubscription, stopRenewing } from '../../src/payments/grants-service';
import { DEFAULT_PRICE_CENTS, PRODUCTS } from '../../src/common/catalogue';

let server: TestServer;
before(async () => {
  server = await startTestServer();
});
after(() => server.close());

const db = () => server.runtime.db;
const DAY = 86_400_000;

async function pay(paymentId: string, occurredAt = new Date(), extra: Parameters<typeof markPaid>[2] = { occurredAt }) {
  return db().transaction().execute(async (trx) => markPaid(trx, (await lockPayment(trx, { id: paymentId }))!, { ...extra, occurredAt }));
}
async function refund(paymentId: string, occurredAt = new Date()) {
  return db().transaction().execute(async (trx) => markRefunded(trx, (await lockPayment(trx, { id: paymentId }))!, { occurredAt }));
}
async function user(id: string) {
  return db().selectFrom('users').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}
async function ledger(id: string) {
  return db().selectFrom('credit_ledger').select(['kind', 'delta', 'balance_after', 'reference']).where('user_id', '=', id).orderBy('id').execute();
}

describe('catalogue', () => {
  test('the default prices are the spec\'s: search $5.49 / $15.49 / $179.99, recurring plans 10% less', () => {
    assert.equal(DEFAULT_PRICE_CENTS['search-nonsub-weekly'], 549);
    assert.equal(DEFAULT_PRICE_CENTS['search-nonsub-monthly'], 1549);
    assert.equal(DEFAULT_PRICE_CENTS['search-nonsub-yearly'], 17999);
    assert.equal(DEFAULT_PRICE_CENTS['search-sub-monthly'], 1394);
    // docs/payments.md: credits $0.05 and $0.02; domain monitoring $9.99 and enterprise $99.99 a month.
    assert.equal(DEFAULT_PRICE_CENTS['search-credits'], 5);
    assert.equal(DEFAULT_PRICE_CENTS['whois-credits'], 2);
    assert.equal(DEFAULT_PRICE_CENTS['domain-nonsub-monthly'], 999);
    assert.equal(DEFAULT_PRICE_CENTS['enterprise-nonsub-monthly'], 9999);
    for (const sku of Object.keys(DEFAULT_PRICE_CENTS).filter((sku) => sku.includes('-sub-'))) {
      assert.equal(DEFAULT_PRICE_CENTS[sku], Math.floor((DEFAULT_PRICE_CENTS[sku.replace('-sub-', '-nonsub-')]! * 9) / 10), sku);
    }
  });

  test('every SKU of the catalogue is seeded with its default price', async () => {
    const rows = await db().selectFrom('products').select(['sku', 'price_cents']).execute();
    const prices = new Map(rows.map((r) => [r.sku, r.price_cents]));
    assert.deepEqual([...prices.keys()].sort(), PRODUCTS.map((p) => p.sku).sort());
    assert.deepEqual(Object.fromEntries(prices), DEFAULT_PRICE_CENTS);
    assert.equal(prices.get('search-nonsub-monthly'), 1549);
  });

  test('the server prices a purchase and refuses what the buyer may not buy', async () => {
    const { id } = await server.createUser();
    const payment = await openPayment(db(), { userId: id, sku: 'search-credits', quantity: 250, method: 'card', provider: 'test' });
    assert.equal(payment.amount_cents, 250 * DEFAULT_PRICE_CENTS['search-credits']!);
    await assert.rejects(openPayment(db(), { userId: id, sku: 'search-credits', quantity: 100_001, method: 'card', provider: 'test' }), /at most 100,000/);
    await assert.rejects(openPayment(db(), { userId: id, sku: 'search-sub-monthly', quantity: 2, method: 'card', provider: 'test' }), /at most 1/);
    await assert.rejects(openPayment(db(), { userId: id, sku: 'gold-bars', quantity: 1, method: 'card', provider: 'test' }), /Unknown product/);
    await assert.rejects(openPayment(db(), { userId: id, sku: 'whois-credits', quantity: 0, method: 'card', provider: 'test' }), /at least 1/);
    const enterprise = await server.createUser({ enterprise: true });
    await assert.rejects(openPayment(db(), { userId: enterprise.id, sku: 'enterprise-nonsub-monthly', quantity: 1, method: 'card', provider: 'test' }), /already subscribed/);
  });
});

describe('payment state machine', () => {
  test('marked paid twice, concurrently, grants once with one ledger row', async () => {
    const { id } = await server.createUser();
    const payment = await openPayment(db(), { userId: id, sku: 'search-credits', quantity: 40, method: 'card', provider: 'test' });
    const results = await Promise.all(Array.from({ length: 5 }, () => pay(payment.id)));
    assert.equal(results.filter(Boolean).length, 1);
    assert.equal((await user(id)).search_credits, 40);
    assert.deepEqual(await ledger(id), [{ kind: 'search', delta: 40, balance_after: 40, reference: `payment:${payment.id}` }]);
    const invoice = await db().selectFrom('invoices').selectAll().where('user_id', '=', id).execute();
    assert.equal(invoice.length, 1);
    assert.equal(invoice[0]!.amount_cents, 40 * DEFAULT_PRICE_CENTS['search-credits']!);
  });

  test('the ledger refuses a second grant from the same source even past the state machine', async () => {
    const { id } = await server.createUser();
    const payment = await openPayment(db(), { userId: id, sku: 'whois-credits', quantity: 10, method: 'card', provider: 'test' });
    assert.equal(await pay(payment.id), true);
    await db().updateTable('payments').set({ status: 'pending' }).where('id', '=', payment.id).execute();
    await assert.rejects(pay(payment.id), /credit_ledger_source_key/);
    assert.equal((await user(id)).whois_credits, 10);
  });

  test('a refund takes credits back, never below zero', async () => {
    const { id } = await server.createUser();
    const payment = await openPayment(db(), { userId: id, sku: 'search-credits', quantity: 30, method: 'card', provider: 'test' });
    await pay(payment.id);
    await db().updateTable('users').set({ search_credits: 12 }).where('id', '=', id).execute(); // 18 spent
    assert.equal(await refund(payment.id), true);
    assert.equal((await user(id)).search_credits, 0);
    assert.deepEqual((await ledger(id)).at(-1), { kind: 'search', delta: -12, balance_after: 0, reference: `refund:${payment.id}` });
    assert.equal(await refund(payment.id), false, 'a second refund changes nothing');
    assert.equal(await pay(payment.id), false, 'a refunded payment is never paid again');
  });

  test('a refund delivered before its payment ends refunded once the payment arrives', async () => {
    const { id } = await server.createUser();
    const payment = await openPayment(db(), { userId: id, sku: 'search-nonsub-weekly', quantity: 1, method: 'card', provider: 'test' });
    assert.equal(await refund(payment.id, new Date(Date.now() + 1000)), true);
    assert.equal((await user(id)).search_subscribed_until, null);
    assert.equal(await pay(payment.id), true);
    const row = await db().selectFrom('payments').select('status').where('id', '=', payment.id).executeTakeFirstOrThrow();
    assert.equal(row.status, 'refunded');
    const until = (await user(id)).search_subscribed_until;
    assert.ok(until && until.getTime() <= Date.now(), 'access ended');
  });

  test('an expired crypto payment paid late is paid; an expiry after payment changes nothing', async () => {
    const { id } = await server.createUser();
    const payment = await openPayment(db(), { userId: id, sku: 'search-credits', quantity: 5, method: 'crypto', provider: 'test' });
    const expire = () => db().transaction().execute(async (trx) => markExpired(trx, (await lockPayment(trx, { id: payment.id }))!, { occurredAt: new Date() }));
    assert.equal(await expire(), true);
    assert.equal(await pay(payment.id), true);
    assert.equal(await expire(), false);
    assert.equal((await user(id)).search_credits, 5);
  });
});

test('overdue pending payments expire; paid ones and those still in time do not', async () => {
  const { id } = await server.createUser();
  const past = new Date(Date.now() - 60_000);
  const overdue = await openPayment(db(), { userId: id, sku: 'search-credits', quantity: 5, method: 'crypto', provider: 'test', expiresAt: past });
  const paid = await openPayment(db(), { userId: id, sku: 'search-credits', quantity: 5, method: 'crypto', provider: 'test', expiresAt: past });
  await pay(paid.id);
  const inTime = await openPayment(db(), { userId: id, sku: 'search-credits', quantity: 5, method: 'crypto', provider: 'test', expiresAt: new Date(Date.now() + 3_600_000) });
  const expired = (await expireOverduePayments(db())).map((row) => row.id);
  assert.ok(expired.includes(overdue.id));
  assert.ok(!expired.includes(paid.id) && !expired.includes(inTime.id));
  const status = async (paymentId: string) => (await db().selectFrom('payments').select('status').where('id', '=', paymentId).executeTakeFirstOrThrow()).status;
  assert.deepEqual([await status(overdue.id), await status(paid.id), await status(inTime.id)], ['expired', 'paid', 'pending']);
});

describe('plans', () => {
  test('one-time search periods stack from the current end; a recurring plan renews and stops renewing', async () => {
    const { id } = await server.createUser();
    const first = await openPayment(db(), { userId: id, sku: 'search-nonsub-weekly', quantity: 2, method: 'card', provider: 'test' });
    await pay(first.id);
    const afterFirst = (await user(id)).search_subscribed_until!.getTime();
    assert.ok(Math.abs(afterFirst - (Date.now() + 14 * DAY)) < 60_000);
    const second = await openPayment(db(), { userId: id, sku: 'search-nonsub-monthly', quantity: 1, method: 'card', provider: 'test' });
    await pay(second.id);
    assert.ok(Math.abs((await user(id)).search_subscribed_until!.getTime() - (afterFirst + 30 * DAY)) < 60_000);

    const other = await server.createUser();
    const recurring = await openPayment(db(), { userId: other.id, sku: 'search-sub-monthly', quantity: 1, method: 'card', provider: 'test' });
    await pay(recurring.id, new Date(), { occurredAt: new Date(), providerSubscriptionId: 'sub_123' });
    assert.equal((await user(other.id)).search_is_recurring, true);
    await assert.rejects(openPayment(db(), { userId: other.id, sku: 'search-nonsub-weekly', quantity: 1, method: 'card', provider: 'test' }), /already subscribed/);
    const end = (await user(other.id)).search_subscribed_until!.getTime();
    assert.equal(await db().transaction().execute((trx) => renewSubscription(trx, 'test', 'sub_123')), true);
    assert.ok(Math.abs((await user(other.id)).search_subscribed_until!.getTime() - (end + 30 * DAY)) < 60_000);
    assert.equal(await db().transaction().execute((trx) => stopRenewing(trx, 'test', 'sub_123')), true);
    const stopped = await user(other.id);
    assert.equal(stopped.search_is_recurring, false);
    assert.ok(stopped.search_subscribed_until!.getTime() > Date.now(), 'access runs to the end of the period');
  });

  test('a renewal charge is a paid payment with its invoice, recorded once per transaction, and refundable', async () => {
    const { id } = await server.createUser();
    const purchase = await openPayment(db(), { userId: id, sku: 'search-sub-weekly', quantity: 1, method: 'card', provider: 'test' });
    await pay(purchase.id, new Date(), { occurredAt: new Date(), providerSubscriptionId: 'sub_renew' });
    const end = (await user(id)).search_subscribed_until!.getTime();
    const renew = () => db().transaction().execute((trx) => recordRenewal(trx, { provider: 'test', providerRef: 'txn_renewal_1', providerSubscriptionId: 'sub_renew', occurredAt: new Date() }));
    assert.equal(await renew(), true);
    assert.equal(await renew(), true, 'the same charge again: nothing more');
    assert.ok(Math.abs((await user(id)).search_subscribed_until!.getTime() - (end + 7 * DAY)) < 60_000, 'one period added, once');
    const payments = await db().selectFrom('payments').select(['id', 'status', 'provider_ref']).where('user_id', '=', id).orderBy('created_at').execute();
    assert.deepEqual(payments.map((p) => [p.status, p.provider_ref]), [['paid', null], ['paid', 'txn_renewal_1']]);
    assert.equal((await db().selectFrom('invoices').select('id').where('user_id', '=', id).execute()).length, 2);
    assert.equal(await db().transaction().execute((trx) => recordRenewal(trx, { provider: 'test', providerRef: 'txn_x', providerSubscriptionId: 'sub_unknown', occurredAt: new Date() })), false);
    const refunded = await db().transaction().execute(async (trx) => markRefunded(trx, (await lockPayment(trx, { provider: 'test', providerRef: 'txn_renewal_1' }))!, { occurredAt: new Date() }));
    assert.equal(refunded, true);
    assert.ok((await user(id)).search_subscribed_until!.getTime() <= Date.now(), 'a refunded renewal ends access');
  });

  test('a domain plan buys that many domain slots', async () => {
    const { id } = await server.createUser();
    const payment = await openPayment(db(), { userId: id, sku: 'domain-nonsub-monthly', quantity: 3, method: 'card', provider: 'test' });
    await pay(payment.id);
    const slots = await db().selectFrom('subscription_domains').select(['domain']).where('user_id', '=', id).execute();
    assert.deepEqual(slots, [{ domain: null }, { domain: null }, { domain: null }]);
  });

  test('no invoice is kept when the user turned store_invoices off', async () => {
    const { id } = await server.createUser();
    await db().updateTable('users').set({ store_invoices: false }).where('id', '=', id).execute();
    const payment = await openPayment(db(), { userId: id, sku: 'whois-credits', quantity: 3, method: 'card', provider: 'test' });
    await pay(payment.id);
    assert.equal((await db().selectFrom('invoices').select('id').where('user_id', '=', id).execute()).length, 0);
    assert.equal((await user(id)).whois_credits, 3);
  });
});
