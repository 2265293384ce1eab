/**
 * Monitoring tasks and domains through the dashboard calls (docs/monitoring.md "Calls"):
 * every validation message from the server, the tier limits (also under 20
 * concurrent adds), duplicates, domain slots set through /monitoring/set-domain, and
 * another user's ids answered 404 (test 22). Real PostgreSQL.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { startTestServer, type TestServer, signedIn } from '../support/harness';
import { call } from '../support/helpers';
import { grantPurchase } from '../../src/payments/grants-service';
import { MONITORING_MESSAGES } from '../../src/common/monitoring-rules';
import { DUPLICATE_TASK_MESSAGE } from '../../src/monitoring/monitoring-service';

let server: TestServer;

before(async () => {
  server = await startTestServer();
});
after(() => server.close());

/** Buys `slots` domain slots (Domain Monitoring, one month) and answers their ids. */
async function buyDomainSlots(userId: string, slots: number): Promise<string[]> {
  const { subscriptionId } = await server.runtime.db
    .transaction()
    .execute((trx) => grantPurchase(trx, { userId, sku: 'domain-nonsub-monthly', quantity: slots, source: `payment:${randomUUID()}`, reason: 'purchase' }));
  const rows = await server.runtime.db.selectFrom('subscription_domains').select('id').where('subscription_id', '=', subscriptionId!).orderBy('id').execute();
  return rows.map((r) => r.id);
}

const post = (path: string, body: unknown, token: string) => call(server.url, 'POST', path, { body, token });
const get = (path: string, token: string) => call(server.url, 'GET', path, { token });

function assertRefused(reply: { status: number; body: any }, status: number, message?: string) {
  assert.equal(reply.status, status, JSON.stringify(reply.body));
  if (message) assert.equal(reply.body.error, message);
}

describe('tiers and GET /monitoring/info', () => {
  test('free, standard (a current domain slot), enterprise and elevated limits and usage', async () => {
    const free = await signedIn(server);
    const info = await get('/monitoring/info', free.token);
    assert.equal(info.status, 200);
    assert.deepEqual(info.body, {
      tier: 'free',
      tier_label: 'Free',
      max_notification_channels: 1,
      active_notification_channels: 0,
      max_webhooks: 0,
      active_webhooks: 0,
      max_standard_tasks: 10,
      active_standard_tasks: 0,
      max_domain_tasks: 0,
      active_domain_tasks: 0,
      domain_slots: 0,
      is_enterprise: false,
      elevated: false,
      sms_available: false,
    });

    const standard = await signedIn(server);
    await buyDomainSlots(standard.id, 2);
    const s = (await get('/monitoring/info', standard.token)).body;
    assert.equal(s.tier, 'standard');
    assert.equal(s.max_domain_tasks, 2);
    assert.equal(s.max_webhooks, 1);
    assert.equal(s.max_notification_channels, 2);
    assert.equal(s.sms_available, true);

    // A lapsed domain subscription gives no tier.
    await server.runtime.db.updateTable('subscriptions').set({ period_end: new Date(Date.now() - 1000) }).where('user_id', '=', standard.id).execute();
    assert.equal((await get('/monitoring/info', standard.token)).body.tier, 'free');

    const enterprise = await signedIn(server, { enterprise: true });
    const e = (await get('/monitoring/info', enterprise.token)).body;
    assert.equal(e.tier, 'enterprise');
    assert.equal(e.max_standard_tasks, 500);
    assert.equal(e.max_domain_tasks, 25);
    assert.equal(e.is_enterprise, true);

    const elevated = await signedIn(server, { elevated: true, enterprise: true });
    const v = (await get('/monitoring/info', elevated.token)).body;
    assert.equal(v.tier, 'elevated');
    assert.equal(v.elevated, true);
    assert.equal(v.max_standard_tasks, 10_000);

    assert.equal((await call(server.url, 'GET', '/monitoring/info')).status, 401);
  });
});

describe('tasks', () => {
  test('add, list, update (value, pause, resume) and delete; values normalised for duplicates', async () => {
    const user = await signedIn(server);
    const added = await post('/monitoring/add-task', { key: 'email', value: ' John@Example.com ' }, user.token);
    assert.equal(added.status, 200, JSON.stringify(added.body));
    assert.equal(added.body.success, true);
    const task = added.body.task;
    assert.deepEqual(Object.keys(task).sort(), ['active', 'created', 'id', 'key', 'updated', 'value']);
    assert.equal(task.key, 'email');
    assert.equal(task.value, 'John@Example.com');
    assert.equal(task.active, true);
    assert.equal(typeof task.id, 'string');

    // The same address in another case is the same watched value.
    assertRefused(await post('/monitoring/add-task', { key: 'email', value: 'john@example.COM' }, user.token), 400, DUPLICATE_TASK_MESSAGE);
    // The same text as another kind is not a duplicate.
    assert.equal((await post('/monitoring/add-task', { key: 'username', value: 'john@example.com' }, user.token)).status, 200);
    assertRefused(await post('/monitoring/add-task', { key: 'phone', value: '5551234' }, user.token), 200);
    // Phones compare as digits.
    assertRefused(await post('/monitoring/add-task', { key: 'phone', value: '5551234' }, user.token), 400, DUPLICATE_TASK_MESSAGE);

    const paused = await post('/monitoring/update-task', { id: task.id, key: 'email', value: task.value, active: false }, user.token);
    assert.equal(paused.status, 200);
    assert.equal(paused.body.task.active, false);
    const list = await post('/monitoring/get-tasks', { active_only: false, page: 1 }, user.token);
    assert.equal(list.status, 200);
    assert.equal(list.body.total, 3);
    assert.equal(list.body.page, 1);
    assert.equal(list.body.next_page, null);
    assert.deepEqual(
      list.body.tasks.map((t: any) => t.key),
      ['email', 'username', 'phone'],
    );
    const activeOnly = await post('/monitoring/get-tasks', { active_only: true, page: 1 }, user.token);
    assert.equal(activeOnly.body.total, 2);

    const changed = await post('/monitoring/update-task', { id: task.id, key: 'email', value: 'jane@example.com', active: true }, user.token);
    assert.equal(changed.status, 200);
    assert.equal(changed.body.task.value, 'jane@example.com');
    assert.equal(changed.body.task.active, true);
    // The old value is free again; the new one is taken.
    assert.equal((await post('/monitoring/add-task', { key: 'email', value: 'john@example.com' }, user.token)).status, 200);
    assertRefused(await post('/monitoring/update-task', { id: task.id, key: 'email', value: 'JOHN@example.com' }, user.token), 400, DUPLICATE_TASK_MESSAGE);

    assert.equal((await post('/monitoring/delete-tasks', { ids: [task.id] }, user.token)).status, 200);
    assert.equal((await post('/monitoring/get-tasks', {}, user.token)).body.total, 3);
  });

  test('every task validation answers its message', async () => {
    const user = await signedIn(server, { enterprise: true });
    const cases: [string, string, string][] = [
      ['email', '', MONITORING_MESSAGES.empty],
      ['email', '   ', MONITORING_MESSAGES.empty],
      ['username', 'a'.repeat(257), MONITORING_MESSAGES.tooLong],
      ['email', `${'a'.repeat(251)}@x.com`, MONITORING_MESSAGES.tooLong],
      ['email', 'not-an-email', MONITORING_MESSAGES.email],
      ['email', 'a@b', MONITORING_MESSAGES.email],
      ['phone', '123', MONITORING_MESSAGES.phone],
      ['phone', '1234567890123456', MONITORING_MESSAGES.phone],
      ['phone', '555-1234', MONITORING_MESSAGES.phone],
      ['phone', '+15551234', MONITORING_MESSAGES.phone],
      ['phone', '555 1234', MONITORING_MESSAGES.phone],
      ['domain', 'https://example.com', MONITORING_MESSAGES.domain],
      ['domain', 'localhost', MONITORING_MESSAGES.domain],
      ['domain', 'exa mple.com', MONITORING_MESSAGES.domain],
      ['username', 'abc', MONITORING_MESSAGES.nameLength],
      ['username', 'a'.repeat(65), MONITORING_MESSAGES.nameLength],
      ['name', 'Bob', MONITORING_MESSAGES.nameLength],
      ['name', 'n'.repeat(65), MONITORING_MESSAGES.nameLength],
    ];
    for (const [key, value, message] of cases) {
      assertRefused(await post('/monitoring/add-task', { key, value }, user.token), 400, message);
    }
    // The boundaries pass.
    for (const [key, value] of [
      ['phone', '1234'],
      ['phone', '123456789012345'],
      ['username', 'abcd'],
      ['username', 'u'.repeat(64)],
      ['name', 'Bob Smith'],
      ['domain', 'Example.COM'],
    ]) {
      const reply = await post('/monitoring/add-task', { key, value }, user.token);
      assert.equal(reply.status, 200, `${key} ${value}: ${JSON.stringify(reply.body)}`);
    }
    // A domain is kept in its lower-case form.
    const tasks = (await post('/monitoring/get-tasks', {}, user.token)).body.tasks;
    assert.ok(tasks.some((t: any) => t.key === 'domain' && t.value === 'example.com'));
    assertRefused(await post('/monitoring/add-task', { key: 'password', value: 'whatever' }, user.token), 400);
    // Updates are checked as adds are.
    const id = tasks.find((t: any) => t.key === 'phone').id;
    assertRefused(await post('/monitoring/update-task', { id, key: 'phone', value: '12' }, user.token), 400, MONITORING_MESSAGES.phone);
    assertRefused(await post('/monitoring/update-task', { id, key: 'email', value: 'x' }, user.token), 400, MONITORING_MESSAGES.email);
  });

  test("the tier's maximum: 'Can not add additional tasks (reached maximum)'; domain tasks counted apart", async () => {
    const user = await signedIn(server);
    for (let i = 0; i < 10; i++) {
      const reply = await post('/monitoring/add-task', { key: 'username', value: `watched-${i}` }, user.token);
      assert.equal(reply.status, 200);
    }
    assertRefused(await post('/monitoring/add-task', { key: 'email', value: 'one@more.com' }, user.token), 400, MONITORING_MESSAGES.maxTasks);
    // Free has no domain tasks: the domain message, not the task one.
    assertRefused(await post('/monitoring/add-task', { key: 'domain', value: 'example.com' }, user.token), 400, MONITORING_MESSAGES.maxDomainTasks);
    // A paused task still counts (resuming must not pass the limit).
    const first = (await post('/monitoring/get-tasks', {}, user.token)).body.tasks[0];
    await post('/monitoring/update-task', { id: first.id, active: false }, user.token);
    assertRefused(await post('/monitoring/add-task', { key: 'email', value: 'one@more.com' }, user.token), 400, MONITORING_MESSAGES.maxTasks);
    const info = (await get('/monitoring/info', user.token)).body;
    assert.equal(info.active_standard_tasks, 10);
    // …so resuming it at the maximum is never refused: a paused task holds its place.
    const resumed = await post('/monitoring/update-task', { id: first.id, active: true }, user.token);
    assert.deepEqual([resumed.status, resumed.body.task.active], [200, true]);

    // Ten standard tasks do not use up domain room: a domain slot's task still fits.
    const [slot] = await buyDomainSlots(user.id, 1);
    const set = await post('/monitoring/set-domain', { id: slot, domain: 'example.org' }, user.token);
    assert.equal(set.status, 200, JSON.stringify(set.body));
    const after = (await get('/monitoring/info', user.token)).body;
    assert.equal(after.active_standard_tasks, 10);
    assert.equal(after.active_domain_tasks, 1);
    assertRefused(await post('/monitoring/set-domain', { domain: 'example.net' }, user.token), 400, MONITORING_MESSAGES.maxDomainTasks);
  });

  test('20 concurrent adds against a limit of 10 make exactly 10 tasks', async () => {
    const user = await signedIn(server);
    const replies = await Promise.all(
      Array.from({ length: 20 }, (_, i) => post('/monitoring/add-task', { key: 'email', value: `racer-${i}@example.com` }, user.token)),
    );
    assert.equal(replies.filter((r) => r.status === 200).length, 10);
    for (const r of replies.filter((r) => r.status !== 200)) assertRefused(r, 400, MONITORING_MESSAGES.maxTasks);
    const rows = await server.runtime.db.selectFrom('monitor_tasks').select('id').where('user_id', '=', user.id).execute();
    assert.equal(rows.length, 10);

    // Enterprise domain tasks under the same race: 25 allowed, 40 tried.
    const enterprise = await signedIn(server, { enterprise: true });
    const domainReplies = await Promise.all(
      Array.from({ length: 40 }, (_, i) => post('/monitoring/add-task', { key: 'domain', value: `d${i}.example.com` }, enterprise.token)),
    );
    assert.equal(domainReplies.filter((r) => r.status === 200).length, 25);
    const domains = await server.runtime.db.selectFrom('monitor_tasks').select('id').where('user_id', '=', enterprise.id).where('kind', '=', 'domain').execute();
    assert.equal(domains.length, 25);
  });

  test('unknown body properties are refused (mass assignment)', async () => {
    const user = await signedIn(server);
    assertRefused(await post('/monitoring/add-task', { key: 'email', value: 'a@b.com', user_id: randomUUID() }, user.token), 400);
    assertRefused(await post('/monitoring/add-task', { key: 'email', value: 'a@b.com', elevated: true }, user.token), 400);
    assertRefused(await post('/monitoring/get-tasks', { page: 1, max: 1000 }, user.token), 400);
    const added = await post('/monitoring/add-task', { key: 'email', value: 'a@b.com' }, user.token);
    assertRefused(await post('/monitoring/update-task', { id: added.body.task.id, value: 'c@d.com', match_value: 'x' }, user.token), 400);
    assertRefused(await post('/monitoring/delete-tasks', { ids: [added.body.task.id], all: true }, user.token), 400);
    assertRefused(await post('/monitoring/set-domain', { domain: 'example.com', subscription_domain_id: randomUUID() }, user.token), 400);
    assert.equal((await post('/monitoring/get-tasks', {}, user.token)).body.tasks[0].value, 'a@b.com');
    assert.equal((await get('/monitoring/info', user.token)).body.elevated, false);
  });
});

describe('domain slots: /monitoring/set-domain and /monitoring/clear-domains', () => {
  test('add-task with key domain (the Domain tab) uses a paid slot; past the slots the standard tier is refused', async () => {
    const user = await signedIn(server);
    const [slotA, slotB] = await buyDomainSlots(user.id, 2);
    assert.equal((await post('/monitoring/set-domain', { id: slotA, domain: 'first.example' }, user.token)).status, 200);
    // "Domain tasks: 1 / 2": the second slot is free, and the Domain tab adds into it.
    const added = await post('/monitoring/add-task', { key: 'domain', value: 'Second.Example' }, user.token);
    assert.equal(added.status, 200, JSON.stringify(added.body));
    const domains = (await get('/subscriptions', user.token)).body.domains;
    assert.deepEqual(
      domains.map((d: any) => d.domain),
      ['first.example', 'second.example'],
    );
    const slotTask = await server.runtime.db.selectFrom('monitor_tasks').select('subscription_domain_id').where('user_id', '=', user.id).where('value', '=', 'second.example').executeTakeFirstOrThrow();
    assert.equal(slotTask.subscription_domain_id, slotB, 'the task belongs to the free slot');
    assertRefused(await post('/monitoring/add-task', { key: 'domain', value: 'third.example' }, user.token), 400, MONITORING_MESSAGES.maxDomainTasks);
    assertRefused(await post('/monitoring/add-task', { key: 'domain', value: 'FIRST.example' }, user.token), 400);
  });

  test('set-domain creates and updates the slot task; bad domain, unknown and foreign slots refused', async () => {
    const user = await signedIn(server);
    const [slotA, slotB] = await buyDomainSlots(user.id, 2);
    const set = await post('/monitoring/set-domain', { id: slotA, domain: 'Example.COM' }, user.token);
    assert.equal(set.status, 200, JSON.stringify(set.body));
    assert.deepEqual(set.body, { value: 'example.com' });
    const summary = (await get('/subscriptions', user.token)).body;
    assert.deepEqual(
      summary.domains.map((d: any) => d.domain),
      ['example.com', null],
    );
    let tasks = (await post('/monitoring/get-tasks', {}, user.token)).body.tasks;
    assert.equal(tasks.length, 1);
    assert.equal(tasks[0].key, 'domain');
    assert.equal(tasks[0].value, 'example.com');

    // Updating the slot changes its task (no second task).
    assert.equal((await post('/monitoring/set-domain', { id: slotA, domain: 'example.org' }, user.token)).status, 200);
    tasks = (await post('/monitoring/get-tasks', {}, user.token)).body.tasks;
    assert.deepEqual(
      tasks.map((t: any) => t.value),
      ['example.org'],
    );
    // The same domain on the other slot is a duplicate.
    assertRefused(await post('/monitoring/set-domain', { id: slotB, domain: 'EXAMPLE.org' }, user.token), 400, DUPLICATE_TASK_MESSAGE);

    for (const domain of ['', 'not a domain', 'http://example.com', 'example', '-bad-.com', 'a'.repeat(300) + '.com']) {
      assertRefused(await post('/monitoring/set-domain', { id: slotB, domain }, user.token), 400, MONITORING_MESSAGES.domainValue);
    }
    assertRefused(await post('/monitoring/set-domain', { id: randomUUID(), domain: 'example.net' }, user.token), 404);
    assertRefused(await post('/monitoring/set-domain', { id: 'not-a-uuid', domain: 'example.net' }, user.token), 404);
    const other = await signedIn(server);
    const [foreignSlot] = await buyDomainSlots(other.id, 1);
    assertRefused(await post('/monitoring/set-domain', { id: foreignSlot, domain: 'example.net' }, user.token), 404);
    assert.equal((await server.runtime.db.selectFrom('subscription_domains').select('domain').where('id', '=', foreignSlot!).executeTakeFirstOrThrow()).domain, null);

    // Without an id: the first empty slot; when none is left, the standard tier cannot add one.
    assert.equal((await post('/monitoring/set-domain', { domain: 'example.net' }, user.token)).status, 200);
    assert.equal((await get('/subscriptions', user.token)).body.domains[1].domain, 'example.net');
    assertRefused(await post('/monitoring/set-domain', { domain: 'example.info' }, user.token), 400, MONITORING_MESSAGES.maxDomainTasks);

    // Clearing a slot's task empties the slot; the slot stays and can be set again.
    const domainTask = (await post('/monitoring/get-tasks', {}, user.token)).body.tasks.find((t: any) => t.value === 'example.org');
    assert.equal((await post('/monitoring/clear-domains', { ids: [domainTask.id] }, user.token)).status, 200);
    const domains = (await get('/subscriptions', user.token)).body.domains;
    assert.deepEqual(
      domains.map((d: any) => d.domain),
      [null, 'example.net'],
    );
    assert.equal((await post('/monitoring/set-domain', { id: slotA, domain: 'example.org' }, user.token)).status, 200);

    // clear-domains takes domain tasks only.
    const email = await post('/monitoring/add-task', { key: 'email', value: 'keep@example.com' }, user.token);
    assertRefused(await post('/monitoring/clear-domains', { ids: [email.body.task.id] }, user.token), 404);
  });

  test('enterprise adds domain tasks directly; a lapsed slot cannot be set', async () => {
    const user = await signedIn(server, { enterprise: true });
    assert.equal((await post('/monitoring/set-domain', { domain: 'corp.example.com' }, user.token)).status, 200);
    const added = await post('/monitoring/add-task', { key: 'domain', value: 'other.example.com' }, user.token);
    assert.equal(added.status, 200);
    assert.equal((await get('/monitoring/info', user.token)).body.active_domain_tasks, 2);
    assert.equal((await post('/monitoring/clear-domains', { ids: [added.body.task.id] }, user.token)).status, 200);
    assert.equal((await get('/monitoring/info', user.token)).body.active_domain_tasks, 1);

    const lapsed = await signedIn(server);
    const [slot] = await buyDomainSlots(lapsed.id, 1);
    await server.runtime.db.updateTable('subscriptions').set({ period_end: new Date(Date.now() - 1000) }).where('user_id', '=', lapsed.id).execute();
    assertRefused(await post('/monitoring/set-domain', { id: slot, domain: 'example.com' }, lapsed.token), 404);
  });
});

describe("test 22: another user's tasks and domains are 404", () => {
  test('update, delete and clear by id of another user, or an id that is no task', async () => {
    const a = await signedIn(server, { enterprise: true });
    const b = await signedIn(server, { enterprise: true });
    const bTask = (await post('/monitoring/add-task', { key: 'email', value: 'b-own@example.com' }, b.token)).body.task;
    const bDomain = (await post('/monitoring/add-task', { key: 'domain', value: 'b-own.example.com' }, b.token)).body.task;
    const aTask = (await post('/monitoring/add-task', { key: 'email', value: 'a-own@example.com' }, a.token)).body.task;

    assertRefused(await post('/monitoring/update-task', { id: bTask.id, key: 'email', value: 'stolen@example.com' }, a.token), 404);
    assertRefused(await post('/monitoring/update-task', { id: bTask.id, active: false }, a.token), 404);
    assertRefused(await post('/monitoring/delete-tasks', { ids: [bTask.id] }, a.token), 404);
    // One foreign id among the caller's own: 404 and nothing deleted.
    assertRefused(await post('/monitoring/delete-tasks', { ids: [aTask.id, bTask.id] }, a.token), 404);
    assertRefused(await post('/monitoring/clear-domains', { ids: [bDomain.id] }, a.token), 404);
    for (const id of ['999999999', 'abc', '-1', '1e3', 0]) {
      assertRefused(await post('/monitoring/update-task', { id, active: false }, a.token), 404);
      assertRefused(await post('/monitoring/delete-tasks', { ids: [id] }, a.token), 404);
    }
    // Nothing of B's moved, nothing of A's was deleted, and A's list shows none of B's.
    const bTasks = (await post('/monitoring/get-tasks', {}, b.token)).body.tasks;
    assert.deepEqual(
      bTasks.map((t: any) => [t.value, t.active]),
      [
        ['b-own@example.com', true],
        ['b-own.example.com', true],
      ],
    );
    const aTasks = (await post('/monitoring/get-tasks', {}, a.token)).body.tasks;
    assert.deepEqual(
      aTasks.map((t: any) => t.value),
      ['a-own@example.com'],
    );
  });
});
