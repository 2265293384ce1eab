/**
 * /v2/monitoring tasks, channels and domains in DeHashed v2's shapes
 * (docs/monitoring.md "Calls"): behind the /v2 key guard, free of credits, the same rules and limits as
 * the dashboard, and another user's ids answered 404 (test 22). Real PostgreSQL.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { startTestServer, type TestServer } from '../support/harness';
import { call, callV2, freshIp, type Reply } from '../support/helpers';
import { grantPurchase } from '../../src/payments/grants-service';
import { MONITORING_MESSAGES } from '../../src/common/monitoring-rules';
import { API_CHANNEL_TYPE_MESSAGE, API_TASK_TYPE_MESSAGE } from '../../src/monitoring/monitoring-v2-routes';
import { DUPLICATE_TASK_MESSAGE } from '../../src/monitoring/monitoring-service';
import { insertChannel } from '../../src/monitoring/channels-repository';

let server: TestServer;

before(async () => {
  server = await startTestServer({ env: { API_RATE_BURST: '1000', API_RATE_PER_SECOND: '1000', WEBHOOK_ALLOW_PRIVATE: 'false' } });
});
after(() => server.close());

async function apiUser(grant: Parameters<TestServer['createUser']>[0] = {}) {
  const user = await server.createUser({ ...grant, apiKey: true });
  return { id: user.id, apiKey: user.apiKey! };
}

async function buyDomainSlots(userId: string, slots: number): Promise<void> {
  await server.runtime.db
    .transaction()
    .execute((trx) => grantPurchase(trx, { userId, sku: 'domain-nonsub-monthly', quantity: slots, source: `payment:${randomUUID()}`, reason: 'purchase' }));
}

const v2 = (key: string | undefined, path: string, body: unknown = {}) => callV2(server, key, body, { path: `/v2/monitoring/${path}` });
const v2get = (key: string, path: string) =>
  call(server.url, 'GET', `/v2/monitoring/${path}`, { headers: { [server.runtime.config.apiKeyHeader]: key }, ip: freshIp() });

function assertStatus(reply: Reply, status: number, message?: string) {
  assert.equal(reply.status, status, JSON.stringify(reply.body));
  if (message !== undefined) assert.equal(reply.body.error, message);
}

describe('tasks', () => {
  test('create, get, get-tasks, update and delete in the documented shapes; no credits needed', async () => {
    const user = await apiUser();
    const created = await v2(user.apiKey, 'create-task', { type: 'email', value: 'v2-watch@example.com' });
    assertStatus(created, 200);
    assert.equal(created.body.success, true);
    const id = created.body.id;
    assert.equal(typeof id, 'string');
    assertStatus(await v2(user.apiKey, 'create-task', { type: 'username', value: 'v2watcher' }), 200);

    const one = await v2(user.apiKey, 'get-task', { id });
    assertStatus(one, 200);
    assert.deepEqual(Object.keys(one.body).sort(), ['active', 'created', 'id', 'type', 'updated', 'value']);
    assert.equal(one.body.type, 'email');
    assert.equal(one.body.value, 'v2-watch@example.com');
    assert.equal(one.body.active, true);
    // A number id works as well as its text.
    assertStatus(await v2(user.apiKey, 'get-task', { id: Number(id) }), 200);

    assertStatus(await v2(user.apiKey, 'update-task', { id, active: false }), 200);
    assertStatus(await v2(user.apiKey, 'update-task', { id, type: 'username', value: 'renamed-watch' }), 200);
    const list = await v2(user.apiKey, 'get-tasks', {});
    assertStatus(list, 200);
    assert.deepEqual(
      { total: list.body.total, active: list.body.active, inactive: list.body.inactive, max: list.body.max, next_page: list.body.next_page },
      { total: 2, active: 1, inactive: 1, max: 10, next_page: null },
    );
    assert.deepEqual(
      list.body.tasks.map((t: any) => [t.type, t.value, t.active]),
      [
        ['username', 'renamed-watch', false],
        ['username', 'v2watcher', true],
      ],
    );
    assertStatus(await v2(user.apiKey, 'delete-task', { id }), 200);
    assertStatus(await v2(user.apiKey, 'get-task', { id }), 404);
    assert.equal((await v2(user.apiKey, 'get-tasks', { page: 1 })).body.total, 1);
    // Credits never moved.
    const account = await server.runtime.db.selectFrom('users').select('search_credits').where('id', '=', user.id).executeTakeFirstOrThrow();
    assert.equal(account.search_credits, 0);
  });

  test('the same rules, messages and limits as the dashboard; pages of 100', async () => {
    const user = await apiUser({ enterprise: true });
    assertStatus(await v2(user.apiKey, 'create-task', { type: 'domain', value: 'example.com' }), 400, API_TASK_TYPE_MESSAGE);
    assertStatus(await v2(user.apiKey, 'create-task', { type: 'password', value: 'secret' }), 400, API_TASK_TYPE_MESSAGE);
    assertStatus(await v2(user.apiKey, 'create-task', { type: 'email', value: 'bad' }), 400, MONITORING_MESSAGES.email);
    assertStatus(await v2(user.apiKey, 'create-task', { type: 'phone', value: '12' }), 400, MONITORING_MESSAGES.phone);
    assertStatus(await v2(user.apiKey, 'create-task', { type: 'name', value: 'Al' }), 400, MONITORING_MESSAGES.nameLength);
    assertStatus(await v2(user.apiKey, 'create-task', { type: 'email', value: '' }), 400, MONITORING_MESSAGES.empty);
    // An undeclared property is dropped, never acted on: the task is created active.
    const extra = await v2(user.apiKey, 'create-task', { type: 'email', value: 'a@b.com', active: false });
    assertStatus(extra, 200);
    assert.equal((await v2(user.apiKey, 'get-task', { id: extra.body.id })).body.active, true);
    assertStatus(await v2(user.apiKey, 'delete-task', { id: extra.body.id }), 200);
    for (let i = 0; i < 105; i++) assertStatus(await v2(user.apiKey, 'create-task', { type: 'username', value: `paged-${i}` }), 200);
    assertStatus(await v2(user.apiKey, 'create-task', { type: 'username', value: 'PAGED-0' }), 400, DUPLICATE_TASK_MESSAGE);
    const first = await v2(user.apiKey, 'get-tasks', { page: 1 });
    assert.equal(first.body.tasks.length, 100);
    assert.equal(first.body.next_page, 2);
    assert.equal(first.body.max, 500);
    const second = await v2(user.apiKey, 'get-tasks', { page: 2 });
    assert.equal(second.body.tasks.length, 5);
    assert.equal(second.body.next_page, null);

    const free = await apiUser();
    for (let i = 0; i < 10; i++) await v2(free.apiKey, 'create-task', { type: 'username', value: `limit-${i}` });
    assertStatus(await v2(free.apiKey, 'create-task', { type: 'username', value: 'limit-10' }), 400, MONITORING_MESSAGES.maxTasks);
  });
});

describe('channels', () => {
  test('get-channels, update-channel (upsert, secret once, disable) and delete-channel by type or id', async () => {
    const user = await apiUser();
    await buyDomainSlots(user.id, 1);
    assertStatus(await v2(user.apiKey, 'update-channel', { type: 'email', value: 'v2-alerts@example.com' }), 200);
    const hook = await v2(user.apiKey, 'update-channel', { type: 'webhook', value: 'https://93.184.216.34/v2' });
    assertStatus(hook, 200);
    assert.match(hook.body.secret, /^whsec_/);
    // Updating the same webhook gives no new secret.
    const again = await v2(user.apiKey, 'update-channel', { type: 'webhook', value: 'https://93.184.216.34/v2-new' });
    assertStatus(again, 200);
    assert.equal(again.body.secret, undefined);
    assertStatus(await v2(user.apiKey, 'update-channel', { type: 'webhook', value: 'http://127.0.0.1/' }), 400);
    assertStatus(await v2(user.apiKey, 'update-channel', { type: 'pager', value: 'x' }), 400);

    let channels = await v2get(user.apiKey, 'get-channels');
    assertStatus(channels, 200);
    assert.deepEqual(Object.keys(channels.body.channels[0]).sort(), ['awaiting_confirmation', 'id', 'type', 'updated_at', 'value']);
    assert.deepEqual(
      channels.body.channels.map((c: any) => [c.type, c.value]),
      [
        ['webhook', 'https://93.184.216.34/v2-new'],
        ['email', 'v2-alerts@example.com'],
      ],
    );
    assert.ok(!JSON.stringify(channels.body).includes(hook.body.secret));

    // An empty value disables (the channel stays, value '').
    assertStatus(await v2(user.apiKey, 'update-channel', { type: 'email', value: '' }), 200);
    channels = await v2get(user.apiKey, 'get-channels');
    assert.equal(channels.body.channels.find((c: any) => c.type === 'email').value, '');

    assertStatus(await v2(user.apiKey, 'delete-channel', { channel: 'webhook' }), 200);
    const emailId = (await v2get(user.apiKey, 'get-channels')).body.channels[0].id;
    assertStatus(await v2(user.apiKey, 'delete-channel', { channel: emailId }), 200);
    assert.deepEqual((await v2get(user.apiKey, 'get-channels')).body.channels, []);
    assertStatus(await v2(user.apiKey, 'delete-channel', { channel: 'email' }), 404);

    // SMS channels belong to the dashboard: /v2 neither sets, lists nor deletes them.
    const sms = await v2(user.apiKey, 'update-channel', { type: 'sms', value: '15551234567' });
    assertStatus(sms, 400, API_CHANNEL_TYPE_MESSAGE);
    assertStatus(await v2(user.apiKey, 'update-channel', { type: 'phone', value: '15551234567' }), 400, API_CHANNEL_TYPE_MESSAGE);
    const dashboardSms = await insertChannel(server.runtime.db, { userId: user.id, kind: 'phone', value: '15551234567', secret: null, verifiedAt: null });
    await v2(user.apiKey, 'update-channel', { type: 'email', value: 'v2-again@example.com' });
    assert.deepEqual(
      (await v2get(user.apiKey, 'get-channels')).body.channels.map((c: any) => c.type),
      ['email'],
    );
    assertStatus(await v2(user.apiKey, 'delete-channel', { channel: 'sms' }), 400, API_CHANNEL_TYPE_MESSAGE);
    assertStatus(await v2(user.apiKey, 'delete-channel', { channel: String(dashboardSms.id) }), 404);

    // A free account: no webhooks.
    const free = await apiUser();
    assertStatus(await v2(free.apiKey, 'update-channel', { type: 'webhook', value: 'https://93.184.216.34/x' }), 400, MONITORING_MESSAGES.maxWebhooks);
  });
});

describe('domains', () => {
  test('get-domains lists slots, update-domain sets them, clear-domain empties them', async () => {
    const user = await apiUser();
    await buyDomainSlots(user.id, 2);
    let domains = await v2get(user.apiKey, 'get-domains');
    assertStatus(domains, 200);
    assert.equal(domains.body.domains.length, 2);
    assert.deepEqual(Object.keys(domains.body.domains[0]).sort(), ['domain', 'id', 'updated']);
    const [slotA, slotB] = domains.body.domains.map((d: any) => d.id);
    assertStatus(await v2(user.apiKey, 'update-domain', { id: slotA, domain: 'V2.Example.com' }), 200);
    assertStatus(await v2(user.apiKey, 'update-domain', { id: slotB, domain: 'https://bad.example.com' }), 400, MONITORING_MESSAGES.domainValue);
    assertStatus(await v2(user.apiKey, 'update-domain', { domain: 'second.example.com' }), 200);
    assertStatus(await v2(user.apiKey, 'update-domain', { domain: 'third.example.com' }), 400, MONITORING_MESSAGES.maxDomainTasks);
    domains = await v2get(user.apiKey, 'get-domains');
    assert.deepEqual(
      domains.body.domains.map((d: any) => d.domain),
      ['v2.example.com', 'second.example.com'],
    );
    // Domain tasks are not standard tasks.
    assert.equal((await v2(user.apiKey, 'get-tasks', {})).body.total, 0);
    assertStatus(await v2(user.apiKey, 'clear-domain', { id: slotA }), 200);
    domains = await v2get(user.apiKey, 'get-domains');
    assert.deepEqual(
      domains.body.domains.map((d: any) => d.domain),
      [null, 'second.example.com'],
    );
    assertStatus(await v2(user.apiKey, 'update-domain', { id: randomUUID(), domain: 'x.example.com' }), 404);
    assertStatus(await v2(user.apiKey, 'clear-domain', { id: randomUUID() }), 404);

    // Enterprise: domain tasks of its own, listed by task id.
    const enterprise = await apiUser({ enterprise: true });
    assertStatus(await v2(enterprise.apiKey, 'update-domain', { domain: 'corp.example.com' }), 200);
    const [own] = (await v2get(enterprise.apiKey, 'get-domains')).body.domains;
    assert.match(own.id, /^\d+$/);
    assertStatus(await v2(enterprise.apiKey, 'update-domain', { id: own.id, domain: 'corp.example.org' }), 200);
    assert.equal((await v2get(enterprise.apiKey, 'get-domains')).body.domains[0].domain, 'corp.example.org');
    assertStatus(await v2(enterprise.apiKey, 'clear-domain', { id: own.id }), 200);
    assert.deepEqual((await v2get(enterprise.apiKey, 'get-domains')).body.domains, []);
  });
});

describe('guard and test 22', () => {
  test('without a key every monitoring call is refused', async () => {
    for (const path of ['create-task', 'update-task', 'delete-task', 'get-task', 'get-tasks', 'update-channel', 'delete-channel', 'update-domain', 'clear-domain']) {
      assertStatus(await v2(undefined, path, {}), 400);
    }
    for (const path of ['get-channels', 'get-domains']) assertStatus(await call(server.url, 'GET', `/v2/monitoring/${path}`, { ip: freshIp() }), 400);
  });

  test("another user's task, channel and domain by id: 404, and nothing of theirs moves", async () => {
    const a = await apiUser({ enterprise: true });
    const b = await apiUser({ enterprise: true });
    await buyDomainSlots(b.id, 1);
    const bTask = (await v2(b.apiKey, 'create-task', { type: 'email', value: 'b-v2@example.com' })).body.id;
    assertStatus(await v2(b.apiKey, 'update-channel', { type: 'email', value: 'b-v2-alerts@example.com' }), 200);
    const bChannel = (await v2get(b.apiKey, 'get-channels')).body.channels[0].id;
    const [bSlot] = (await v2get(b.apiKey, 'get-domains')).body.domains.map((d: any) => d.id);
    assertStatus(await v2(b.apiKey, 'update-domain', { id: bSlot, domain: 'b-slot.example.com' }), 200);
    assertStatus(await v2(b.apiKey, 'update-domain', { domain: 'b-own.example.com' }), 200);
    const bDomainTask = (await v2get(b.apiKey, 'get-domains')).body.domains.find((d: any) => d.domain === 'b-own.example.com').id;

    for (const [path, body] of [
      ['get-task', { id: bTask }],
      ['update-task', { id: bTask, active: false }],
      ['update-task', { id: bTask, value: 'stolen@example.com' }],
      ['delete-task', { id: bTask }],
      ['delete-channel', { channel: bChannel }],
      ['update-domain', { id: bSlot, domain: 'stolen.example.com' }],
      ['update-domain', { id: bDomainTask, domain: 'stolen.example.com' }],
      ['clear-domain', { id: bSlot }],
      ['clear-domain', { id: bDomainTask }],
      ['get-task', { id: 'abc' }],
      ['get-task', { id: '99999999999' }],
    ] as const) {
      assertStatus(await v2(a.apiKey, path, body), 404);
    }
    assert.deepEqual((await v2get(a.apiKey, 'get-channels')).body.channels, []);
    assert.deepEqual((await v2get(a.apiKey, 'get-domains')).body.domains, []);
    assert.equal((await v2(a.apiKey, 'get-tasks', {})).body.total, 0);
    const bTaskNow = await v2(b.apiKey, 'get-task', { id: bTask });
    assert.deepEqual([bTaskNow.body.value, bTaskNow.body.active], ['b-v2@example.com', true]);
    assert.deepEqual(
      (await v2get(b.apiKey, 'get-domains')).body.domains.map((d: any) => d.domain),
      ['b-slot.example.com', 'b-own.example.com'],
    );
    assert.equal((await v2get(b.apiKey, 'get-channels')).body.channels[0].value, 'b-v2-alerts@example.com');
  });
});
