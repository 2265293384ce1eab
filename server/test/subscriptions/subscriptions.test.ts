/**
 * GET /subscriptions and POST /subscriptions/domain-info (the
 * subscriptions summary), and the current-user fields purchases set (/user/info,
 * /user/profile): real PostgreSQL, purchases applied through the foundation's grantPurchase.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { eventually, payWithSandbox, startTestServer, type TestServer, signedIn } from '../support/harness';
import { call } from '../support/helpers';
import { grantPurchase } from '../../src/payments/grants-service';

let server: TestServer;

before(async () => {
  server = await startTestServer();
});
after(() => server.close());

function purchase(userId: string, sku: string, quantity: number, extra: { provider?: string; providerSubscriptionId?: string } = {}) {
  return server.runtime.db.transaction().execute((trx) =>
    grantPurchase(trx, { userId, sku, quantity, source: `payment:${randomUUID()}`, reason: 'purchase', ...extra }),
  );
}

const get = (path: string, token?: string) => call(server.url, 'GET', path, { token });
const post = (path: string, body: unknown, token?: string) => call(server.url, 'POST', path, { body, token });
const DAY = 86_400_000;

function near(iso: string | null, expected: number, what: string) {
  assert.ok(iso, `${what} is set`);
  assert.ok(Math.abs(Date.parse(iso) - expected) < 60_000, `${what}: ${iso} is about ${new Date(expected).toISOString()}`);
}

describe('GET /subscriptions', () => {
  test('needs a signed-in user', async () => {
    assert.equal((await get('/subscriptions')).status, 401);
    assert.equal((await post('/subscriptions/domain-info', { domain: randomUUID() })).status, 401);
  });

  test('a fresh user: nothing active, no key, no domains', async () => {
    const user = await signedIn(server);
    const reply = await get('/subscriptions', user.token);
    assert.equal(reply.status, 200);
    assert.deepEqual(reply.body, {
      search_active: false,
      search_expiry: null,
      search_auto_renew: false,
      api_credits: 0,
      api_private_key: null,
      is_enterprise: false,
      monitoring_api_active: false,
      monitoring_api_auto_renew: false,
      monitoring_api_expiry: null,
      whois_credits: 0,
      domains: [],
      domain_plans: [],
      search_cancel_requested: false,
      monitoring_api_cancel_requested: false,
      email: user.email,
      elevated: false,
    });
  });

  test('an elevated user is always active; the API key shows only as its hint, as in /user/info', async () => {
    const user = await signedIn(server, { elevated: true, apiKey: true, searchCredits: 7 });
    const reply = await get('/subscriptions', user.token);
    assert.equal(reply.body.elevated, true);
    assert.equal(reply.body.search_active, true);
    assert.equal(reply.body.search_auto_renew, false);
    assert.equal(reply.body.api_credits, 7);
    assert.equal(reply.body.api_private_key, `••••${user.apiKey!.slice(-4)}`);
    assert.ok(!JSON.stringify(reply.body).includes(user.apiKey!), 'never the key');
    assert.equal(reply.body.api_private_key, (await get('/user/info', user.token)).body.api_private_key);
  });

  test('purchases applied: recurring search, enterprise by the period, credits; /user/info agrees', async () => {
    const user = await signedIn(server);
    await purchase(user.id, 'search-sub-monthly', 1, { provider: 'sandbox', providerSubscriptionId: `sub_${randomUUID()}` });
    await purchase(user.id, 'enterprise-sub-yearly', 1, { provider: 'sandbox', providerSubscriptionId: `sub_${randomUUID()}` });
    await purchase(user.id, 'search-credits', 500);
    await purchase(user.id, 'whois-credits', 20);
    const reply = await get('/subscriptions', user.token);
    assert.equal(reply.status, 200);
    assert.equal(reply.body.search_active, true);
    assert.equal(reply.body.search_auto_renew, true);
    near(reply.body.search_expiry, Date.now() + 30 * DAY, 'search_expiry');
    assert.equal(reply.body.api_credits, 500);
    assert.equal(reply.body.whois_credits, 20);
    assert.equal(reply.body.is_enterprise, true);
    assert.equal(reply.body.monitoring_api_active, true);
    assert.equal(reply.body.monitoring_api_auto_renew, true);
    near(reply.body.monitoring_api_expiry, Date.now() + 365 * DAY, 'monitoring_api_expiry');

    const info = (await get('/user/info', user.token)).body;
    assert.equal(info.search_access, true);
    assert.equal(info.search_is_recurring, true);
    assert.equal(info.is_enterprise, true, 'enterprise bought for a period is enterprise');
    assert.equal((await get('/user/profile', user.token)).body.enterprise, true);
  });

  test('one-time plans: active, not renewing; once their period ended, nothing is active or renewing', async () => {
    const user = await signedIn(server);
    await purchase(user.id, 'search-nonsub-weekly', 2);
    await purchase(user.id, 'enterprise-nonsub-monthly', 1);
    let body = (await get('/subscriptions', user.token)).body;
    assert.equal(body.search_active, true);
    assert.equal(body.search_auto_renew, false);
    near(body.search_expiry, Date.now() + 14 * DAY, 'two weeks of search');
    assert.equal(body.monitoring_api_active, true);
    assert.equal(body.monitoring_api_auto_renew, false);

    // A recurring search whose period ended without a renewal, and an enterprise period that ended.
    const past = new Date(Date.now() - DAY);
    await server.runtime.db
      .updateTable('users')
      .set({ search_subscribed_until: past, search_is_recurring: true, enterprise_until: past })
      .where('id', '=', user.id)
      .execute();
    await server.runtime.db.updateTable('subscriptions').set({ period_end: past }).where('user_id', '=', user.id).execute();
    body = (await get('/subscriptions', user.token)).body;
    assert.equal(body.search_active, false);
    assert.equal(body.search_auto_renew, false, 'a lapsed subscription renews nothing');
    assert.equal(body.search_expiry, past.toISOString());
    assert.equal(body.is_enterprise, false);
    assert.equal(body.monitoring_api_active, false);
    assert.equal(body.monitoring_api_expiry, past.toISOString());
    const info = (await get('/user/info', user.token)).body;
    assert.equal(info.search_access, false);
    assert.equal(info.search_is_recurring, false);
    assert.equal(info.is_enterprise, false);
  });

  test("an operator's enterprise flag is enterprise without an expiry", async () => {
    const user = await signedIn(server, { enterprise: true });
    const body = (await get('/subscriptions', user.token)).body;
    assert.equal(body.is_enterprise, true);
    assert.equal(body.monitoring_api_active, true);
    assert.equal(body.monitoring_api_auto_renew, false);
    assert.equal(body.monitoring_api_expiry, null);
  });
});

describe('domain slots', () => {
  test('domain plans show renewal or expiry; a recurring one is cancelled from the summary; Monitoring counts them', async () => {
    const user = await signedIn(server);
    const recurring = await payWithSandbox(server, user.token, 'domain-sub-monthly', 2);
    const subscriptionId = String((await server.runtime.db.selectFrom('payments').select('details').where('id', '=', recurring).executeTakeFirstOrThrow()).details.subscription_id);
    await purchase(user.id, 'domain-nonsub-weekly', 1);
    let summary = (await get('/subscriptions', user.token)).body;
    assert.equal(summary.domains.length, 3);
    assert.deepEqual(
      summary.domain_plans.map((p: any) => [p.domains, p.auto_renew, p.cancel_requested]),
      [
        [2, true, false],
        [1, false, false],
      ],
    );
    near(summary.domain_plans[0].expiry, Date.now() + 30 * DAY, 'the monthly plan renews in a month');
    near(summary.domain_plans[1].expiry, Date.now() + 7 * DAY, 'the weekly plan ends in a week');
    assert.equal(summary.domain_plans[0].id, subscriptionId);

    // A cancel asked and not yet confirmed by the provider shows as such.
    await server.runtime.db.updateTable('subscriptions').set({ cancel_requested_at: new Date() }).where('id', '=', subscriptionId).execute();
    assert.equal((await get('/subscriptions', user.token)).body.domain_plans[0].cancel_requested, true);
    await server.runtime.db.updateTable('subscriptions').set({ cancel_requested_at: null }).where('id', '=', subscriptionId).execute();

    // The dashboard's cancel: the provider is told, its event stops the renewal; access runs to the period end.
    const cancelled = await post('/subscriptions/cancel', { type: 'subscription-domain', id: subscriptionId }, user.token);
    assert.deepEqual([cancelled.status, cancelled.body], [200, { success: true }]);
    await eventually(async () => (await get('/subscriptions', user.token)).body.domain_plans[0].auto_renew === false);
    summary = (await get('/subscriptions', user.token)).body;
    assert.deepEqual(summary.domain_plans[0], { ...summary.domain_plans[0], auto_renew: false, cancel_requested: false });
    assert.equal(summary.domains.length, 3, 'the slots stay until the period ends');
    assert.equal((await post('/subscriptions/cancel', { type: 'subscription-domain', id: subscriptionId }, user.token)).status, 404, 'nothing left to cancel');
  });

  test('the summary lists the slots of current domain subscriptions; domain-info the slots of one, of the caller only', async () => {
    const user = await signedIn(server);
    const other = await signedIn(server);
    const { subscriptionId } = await purchase(user.id, 'domain-nonsub-monthly', 3);
    const { subscriptionId: ended } = await purchase(user.id, 'domain-nonsub-weekly', 1);
    const { subscriptionId: othersId } = await purchase(other.id, 'domain-sub-monthly', 2);
    await server.runtime.db.updateTable('subscriptions').set({ period_end: new Date(Date.now() - 1000) }).where('id', '=', ended!).execute();
    const slots = await server.runtime.db.selectFrom('subscription_domains').select('id').where('subscription_id', '=', subscriptionId!).orderBy('id').execute();
    await server.runtime.db.updateTable('subscription_domains').set({ domain: 'example.com' }).where('id', '=', slots[0]!.id).execute();

    const summary = (await get('/subscriptions', user.token)).body;
    assert.equal(summary.domains.length, 3, 'the ended subscription has no slots listed; the other user’s none');
    assert.deepEqual(
      summary.domains.map((d: { id: string; domain: string | null }) => d.domain).sort(),
      ['example.com', null, null].sort(),
    );
    assert.deepEqual(new Set(summary.domains.map((d: { id: string }) => d.id)), new Set(slots.map((s) => s.id)));

    const info = await post('/subscriptions/domain-info', { domain: subscriptionId }, user.token);
    assert.equal(info.status, 200);
    assert.deepEqual(info.body, { domains: [{ id: slots[0]!.id, domain: 'example.com' }, ...slots.slice(1).map((s) => ({ id: s.id, domain: null }))] });

    const foreign = await post('/subscriptions/domain-info', { domain: othersId }, user.token);
    assert.equal(foreign.status, 404, "another user's subscription is not found");
    assert.equal(foreign.body.error, 'Subscription not found');
    assert.equal((await post('/subscriptions/domain-info', { domain: randomUUID() }, user.token)).status, 404);
    assert.equal((await post('/subscriptions/domain-info', { domain: othersId }, other.token)).body.domains.length, 2);
    assert.equal((await post('/subscriptions/domain-info', { domain: 'not-an-id' }, user.token)).status, 400);
    assert.equal((await post('/subscriptions/domain-info', { domain: subscriptionId, user_id: other.id }, user.token)).status, 400, 'unknown properties refused');
  });

  test('domain-info of a search or enterprise plan id is not found (only domain subscriptions have slots)', async () => {
    const user = await signedIn(server);
    const { subscriptionId } = await purchase(user.id, 'search-nonsub-weekly', 1);
    assert.equal((await post('/subscriptions/domain-info', { domain: subscriptionId }, user.token)).status, 404);
  });
});
