/**
 * Monitor API V1 under /monitor-api/v1 (docs/monitoring.md): the
 * bearer API key, its own limits (burst, then a block: MONITOR_V1_BLOCK_SECONDS is 2 here),
 * its codes (429 'Too Many Requests.', 401 'Invalid API credentials.', 404 'Method not
 * allowed.' for an unknown method and for an id that is not the caller's, 302 for a missing
 * or invalid field), every call, V1's name rule, and another user's ids answered 404 (test
 * 22). Real PostgreSQL and engine; reports read through the reports service.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { startTestServer, type TestServer } from '../support/harness';
import { call, freshIp, type Reply } from '../support/helpers';
import { grantPurchase } from '../../src/payments/grants-service';
import { MONITORING_MESSAGES } from '../../src/common/monitoring-rules';
import { V1_NAME_MESSAGE } from '../../src/monitoring/monitoring-v1-routes';
import { V1_ERRORS } from '../../../web/src/features/monitoring-docs/lib/v1-calls';

let server: TestServer;

before(async () => {
  server = await startTestServer({
    // 1 request/s (burst 50 as documented) and a 4 s block keep the timing checks clear of a busy machine.
    env: { TRUSTED_PROXIES: '127.0.0.1', MONITOR_V1_RATE_PER_SECOND: '1', MONITOR_V1_BLOCK_SECONDS: '4', WEBHOOK_ALLOW_PRIVATE: 'true' },
  });
});
after(() => server.close());

type User = { id: string; apiKey: string; ip: string };

async function apiUser(grant: Parameters<TestServer['createUser']>[0] = {}): Promise<User> {
  const user = await server.createUser({ ...grant, apiKey: true });
  return { id: user.id, apiKey: user.apiKey!, ip: freshIp() };
}

function v1(user: Pick<User, 'apiKey' | 'ip'> | undefined, method: string, body?: unknown, options: { verb?: string; authorization?: string } = {}): Promise<Reply> {
  const headers: Record<string, string> = {};
  if (options.authorization !== undefined) headers.authorization = options.authorization;
  else if (user) headers.authorization = `Bearer ${user.apiKey}`;
  return call(server.url, options.verb ?? 'POST', `/monitor-api/v1/${method}`, { body, headers, ip: user?.ip ?? freshIp() });
}

function assertStatus(reply: Reply, status: number, message?: string) {
  assert.equal(reply.status, status, JSON.stringify(reply.body));
  if (message !== undefined) assert.equal(reply.body.error, message);
}

async function buyDomainSlots(userId: string, slots: number): Promise<void> {
  await server.runtime.db
    .transaction()
    .execute((trx) => grantPurchase(trx, { userId, sku: 'domain-nonsub-monthly', quantity: slots, source: `payment:${randomUUID()}`, reason: 'purchase' }));
}

describe('guard', () => {
  test("401 'Invalid API credentials.' without a key, with a wrong one or another scheme; the key is read in any case", async () => {
    const user = await apiUser();
    assertStatus(await v1(undefined, 'get-user-info', { type: 'tasks' }), 401, 'Invalid API credentials.');
    assertStatus(await v1({ apiKey: 'f'.repeat(48), ip: freshIp() }, 'get-user-info', { type: 'tasks' }), 401, 'Invalid API credentials.');
    assertStatus(await v1(user, 'get-user-info', { type: 'tasks' }, { authorization: `Basic ${user.apiKey}` }), 401, 'Invalid API credentials.');
    // The /v2 header is not V1's credential.
    const headerOnly = await call(server.url, 'POST', '/monitor-api/v1/get-user-info', {
      body: { type: 'tasks' },
      headers: { [server.runtime.config.apiKeyHeader]: user.apiKey },
      ip: freshIp(),
    });
    assertStatus(headerOnly, 401, 'Invalid API credentials.');
    assertStatus(await v1(user, 'get-user-info', { type: 'tasks' }), 200);
    assertStatus(await v1({ ...user, apiKey: user.apiKey.toUpperCase() }, 'get-user-info', { type: 'tasks' }), 200);
    // Unknown methods: 404, whatever the verb.
    assertStatus(await v1(user, 'get-everything', {}), 404, 'Method not allowed.');
    assertStatus(await v1(user, 'create', undefined, { verb: 'GET' }), 404, 'Method not allowed.');
    assertStatus(await v1(user, 'get-breaches', undefined, { verb: 'PUT' }), 404);
  });

  test("burst, then 429 'Too Many Requests.' and a block that outlasts the bucket", async () => {
    const user = await apiUser();
    const burst = server.runtime.config.MONITOR_V1_BURST;
    // All at once, so the bucket barely drains (1/s here): the burst passes, the rest do not.
    const started = Date.now();
    const replies = await Promise.all(Array.from({ length: burst + 20 }, () => v1(user, 'get-user-info', { type: 'tasks' })));
    const burstEnded = Date.now();
    const passed = replies.filter((r) => r.status === 200).length;
    const drained = Math.ceil((burstEnded - started) / 1000) + 1;
    assert.ok(passed >= burst && passed <= burst + drained, `passed ${passed} in ${burstEnded - started} ms`);
    const refused = replies.filter((r) => r.status === 429);
    assert.ok(refused.length >= 1);
    assert.equal(refused[0]!.body.error, 'Too Many Requests.');
    assert.ok(Number(refused[0]!.headers.get('retry-after')) >= 1);
    // A second and a bit lets the bucket take one more, but the block (4 s from the first
    // refusal, which came after `started`) still holds...
    await new Promise((r) => setTimeout(r, 1100));
    assert.ok(Date.now() - started < 4000, 'checked before the block can have ended');
    assertStatus(await v1(user, 'get-user-info', { type: 'tasks' }), 429, 'Too Many Requests.');
    // ...the same key from another address too.
    assertStatus(await v1({ ...user, ip: freshIp() }, 'get-user-info', { type: 'tasks' }), 429);
    // Another key is not blocked.
    assertStatus(await v1(await apiUser(), 'get-user-info', { type: 'tasks' }), 200);
    // Once the block ends, the key works again.
    await new Promise((r) => setTimeout(r, Math.max(0, burstEnded + 4300 - Date.now())));
    assertStatus(await v1(user, 'get-user-info', { type: 'tasks' }), 200);
  });

  test('an unknown key is limited too (guessing is slow)', async () => {
    const ip = freshIp();
    const replies = await Promise.all(
      Array.from({ length: server.runtime.config.MONITOR_V1_BURST + 20 }, (_, i) => v1({ apiKey: `${i}`.padStart(48, 'a'), ip }, 'get-user-info', { type: 'tasks' })),
    );
    assert.ok(replies.some((r) => r.status === 401));
    assert.ok(replies.filter((r) => r.status === 429).length >= 10);
    // The address is blocked now, even with a good key.
    assertStatus(await v1({ ...(await apiUser()), ip }, 'get-user-info', { type: 'tasks' }), 429, 'Too Many Requests.');
  });
});

describe('tasks, domains and notification methods', () => {
  test('create, list, pause, resume, update and delete tasks', async () => {
    const user = await apiUser();
    const created = await v1(user, 'create', { create_type: 'task', key: 'email', value: 'v1-watch@example.com' });
    assertStatus(created, 200);
    assert.equal(created.body.success, true);
    assert.match(created.body.id, /^\d+$/);
    // `type` is read as create_type.
    assertStatus(await v1(user, 'create', { type: 'task', key: 'username', value: 'v1watcher' }), 200);
    assertStatus(await v1(user, 'create', { create_type: 'task', key: 'name', value: 'Alice Liddell Smith' }), 200);

    let info = await v1(user, 'get-user-info', { type: 'tasks' });
    assertStatus(info, 200);
    assert.equal(info.body.type, 'tasks');
    assert.equal(info.body.total, 3);
    assert.equal(info.body.max, 10);
    assert.deepEqual(Object.keys(info.body.tasks[0]).sort(), ['created', 'id', 'key', 'status', 'updated', 'value']);
    assert.deepEqual(
      info.body.tasks.map((t: any) => [t.key, t.value, t.status]),
      [
        ['email', 'v1-watch@example.com', 'active'],
        ['username', 'v1watcher', 'active'],
        ['name', 'Alice Liddell Smith', 'active'],
      ],
    );

    const id = created.body.id;
    assertStatus(await v1(user, 'update', { id, update_type: 'task', task_status: 'pause' }), 200);
    info = await v1(user, 'get-user-info', { type: 'tasks' });
    assert.equal(info.body.tasks[0].status, 'paused');
    assertStatus(await v1(user, 'update', { id, update_type: 'task', task_status: 'resume', value: 'v1-new@example.com' }), 200);
    info = await v1(user, 'get-user-info', { type: 'tasks' });
    assert.equal(info.body.tasks[0].status, 'active');
    assert.equal(info.body.tasks[0].value, 'v1-new@example.com');
    // A task id is no domain_task.
    assertStatus(await v1(user, 'update', { id, update_type: 'domain_task', task_status: 'pause' }), 404);
    assertStatus(await v1(user, 'update', { id, update_type: 'task', task_status: 'delete' }), 200);
    assertStatus(await v1(user, 'delete', { delete_type: 'task', id: info.body.tasks[1].id }), 200);
    info = await v1(user, 'get-user-info', { type: 'tasks' });
    assert.deepEqual(
      info.body.tasks.map((t: any) => t.key),
      ['name'],
    );
  });

  test('302 for a missing or invalid field, with the rule it broke', async () => {
    const user = await apiUser();
    const cases: [unknown, string | RegExp][] = [
      [{ key: 'email', value: 'x@y.com' }, /create_type/],
      [{ create_type: 'task', value: 'x@y.com' }, /key must be/],
      [{ create_type: 'task', key: 'domain', value: 'example.com' }, /key must be/],
      [{ create_type: 'task', key: 'email', value: 'nope' }, MONITORING_MESSAGES.email],
      [{ create_type: 'task', key: 'email', value: '' }, MONITORING_MESSAGES.empty],
      [{ create_type: 'task', key: 'phone', value: '12' }, MONITORING_MESSAGES.phone],
      [{ create_type: 'task', key: 'username', value: 'abc' }, MONITORING_MESSAGES.nameLength],
      [{ create_type: 'task', key: 'username', value: 'u'.repeat(300) }, MONITORING_MESSAGES.tooLong],
      // V1's name rule: letters and spaces, 10 to 48 characters.
      [{ create_type: 'task', key: 'name', value: 'Bob Smith' }, V1_NAME_MESSAGE],
      [{ create_type: 'task', key: 'name', value: 'Bobby Smith 3rd' }, V1_NAME_MESSAGE],
      [{ create_type: 'task', key: 'name', value: 'N'.repeat(49) }, V1_NAME_MESSAGE],
      [{ create_type: 'notification_method', key: 'webhook', value: 'ftp://example.com' }, MONITORING_MESSAGES.url],
      [{ create_type: 'notification_method', key: 'webhook', value: 'https://93.184.216.34/hook' }, MONITORING_MESSAGES.maxWebhooks],
      [{ create_type: 'notification_method', key: 'email', value: 'bad' }, MONITORING_MESSAGES.email],
      [{ create_type: 'notification_method', value: 'a@b.com' }, /key must be/],
      [{ create_type: 'domain_task', value: 'not a domain' }, MONITORING_MESSAGES.domainValue],
      [{ create_type: 'domain_task', value: 'example.com' }, MONITORING_MESSAGES.maxDomainTasks],
      [{ create_type: 'something', key: 'email', value: 'a@b.com' }, /Invalid or missing field/],
    ];
    // A bad task_status is said in plain words, never the schema validator's.
    const status = await v1(user, 'update', { id: '1', update_type: 'task', task_status: 'stop' });
    assert.equal(status.status, 302);
    assert.match(status.body.error, /task_status must be one of: pause, resume, delete/);
    for (const [body, message] of cases) {
      const reply = await v1(user, 'create', body);
      assert.equal(reply.status, 302, `${JSON.stringify(body)}: ${JSON.stringify(reply.body)}`);
      if (typeof message === 'string') assert.equal(reply.body.error, message, JSON.stringify(body));
      else assert.match(reply.body.error, message, JSON.stringify(body));
      assert.equal(reply.headers.get('location'), null);
    }
    assertStatus(await v1(user, 'update', { id: '1', update_type: 'task' }), 302);
    assertStatus(await v1(user, 'update', { update_type: 'task', task_status: 'pause' }), 302);
    assertStatus(await v1(user, 'update', { id: '1', update_type: 'task', task_status: 'stop' }), 302);
    assertStatus(await v1(user, 'delete', { id: '1' }), 302);
    assertStatus(await v1(user, 'get-user-info', {}), 302);
    assertStatus(await v1(user, 'get-user-info', { type: 'everything' }), 302);
    assertStatus(await v1(user, 'get-breach-entries', { page: 1 }), 302);
    assertStatus(await v1(user, 'get-breaches', { page: 0 }), 302);
    // Not JSON at all.
    const text = await fetch(`${server.url}/monitor-api/v1/create`, {
      method: 'POST',
      headers: { authorization: `Bearer ${user.apiKey}`, 'content-type': 'application/json', 'x-forwarded-for': user.ip },
      body: '{"create_type": ',
    });
    assert.equal(text.status, 302);
    assert.equal(text.headers.get('location'), null);
    // Nothing was created by any of it.
    assert.equal((await v1(user, 'get-user-info', { type: 'tasks' })).body.total, 0);
    // Undeclared properties are dropped, never acted on: a client's extras are served.
    const other = await apiUser();
    assertStatus(await v1(other, 'create', { create_type: 'task', key: 'email', value: 'extra@example.com', user_id: user.id, channels: [1] }), 200);
    assert.deepEqual((await v1(other, 'get-user-info', { type: 'tasks', verbose: true })).body.tasks.map((t: any) => t.value), ['extra@example.com']);
    assert.equal((await v1(user, 'get-user-info', { type: 'tasks' })).body.total, 0, 'user_id did not act');
  });

  test("the tier's limits answer 302 with the 'reached maximum' message", async () => {
    const user = await apiUser();
    for (let i = 0; i < 10; i++) assertStatus(await v1(user, 'create', { create_type: 'task', key: 'username', value: `limited-${i}` }), 200);
    assertStatus(await v1(user, 'create', { create_type: 'task', key: 'username', value: 'limited-10' }), 302, MONITORING_MESSAGES.maxTasks);
    assertStatus(await v1(user, 'create', { create_type: 'notification_method', key: 'email', value: 'first@example.com' }), 200);
    assertStatus(await v1(user, 'create', { create_type: 'notification_method', key: 'email', value: 'second@example.com' }), 302, MONITORING_MESSAGES.maxChannels);
    assertStatus(await v1(user, 'create', { create_type: 'notification_method', key: 'sms', value: '5551234' }), 302, MONITORING_MESSAGES.maxChannels);
  });

  test('notification methods: sms and webhook (secret once), update, disable, delete', async () => {
    const user = await apiUser();
    await buyDomainSlots(user.id, 1);
    const sms = await v1(user, 'create', { create_type: 'notification_method', key: 'sms', value: '5551234' });
    assertStatus(sms, 200);
    const hook = await v1(user, 'create', { create_type: 'notification_method', key: 'webhook', value: 'http://127.0.0.1:9/hook' });
    assertStatus(hook, 200);
    assert.match(hook.body.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    let methods = await v1(user, 'get-user-info', { type: 'notification_methods' });
    assertStatus(methods, 200);
    assert.equal(methods.body.max, 2);
    assert.equal(methods.body.max_webhooks, 1);
    const byKey = Object.fromEntries(methods.body.notification_methods.map((m: any) => [m.key, m]));
    assert.equal(byKey.sms.value, '5551234');
    assert.equal(byKey.webhook.secret_hint, hook.body.secret.slice(-4));
    assert.ok(!JSON.stringify(methods.body).includes(hook.body.secret));

    assertStatus(await v1(user, 'update', { id: sms.body.id, update_type: 'notification_method', value: '5559876' }), 200);
    assertStatus(await v1(user, 'update', { id: hook.body.id, update_type: 'notification_method', value: '' }), 200);
    methods = await v1(user, 'get-user-info', { type: 'notification_methods' });
    const after = Object.fromEntries(methods.body.notification_methods.map((m: any) => [m.key, m]));
    assert.equal(after.sms.value, '5559876');
    assert.equal(after.webhook.active, false);
    assertStatus(await v1(user, 'update', { id: hook.body.id, update_type: 'notification_method', value: 'not a url' }), 302, MONITORING_MESSAGES.url);
    assertStatus(await v1(user, 'delete', { delete_type: 'notification_method', id: hook.body.id }), 200);
    assertStatus(await v1(user, 'update', { id: sms.body.id, update_type: 'notification_method', task_status: 'delete' }), 200);
    assert.equal((await v1(user, 'get-user-info', { type: 'notification_methods' })).body.total, 0);
  });

  test('domain tasks: a slot is set by create, listed, paused, changed and emptied', async () => {
    const user = await apiUser();
    await buyDomainSlots(user.id, 1);
    let domains = await v1(user, 'get-user-info', { type: 'domain_tasks' });
    assertStatus(domains, 200);
    assert.equal(domains.body.max, 1);
    assert.equal(domains.body.domain_tasks.length, 1);
    assert.equal(domains.body.domain_tasks[0].domain, null);
    const created = await v1(user, 'create', { create_type: 'domain_task', key: 'domain', value: 'V1.Example.com' });
    assertStatus(created, 200);
    domains = await v1(user, 'get-user-info', { type: 'domain_tasks' });
    assert.equal(domains.body.domain_tasks[0].domain, 'v1.example.com');
    assert.equal(domains.body.domain_tasks[0].status, 'active');
    assertStatus(await v1(user, 'create', { create_type: 'domain_task', value: 'two.example.com' }), 302, MONITORING_MESSAGES.maxDomainTasks);
    assertStatus(await v1(user, 'update', { id: created.body.id, update_type: 'domain_task', task_status: 'pause' }), 200);
    assertStatus(await v1(user, 'update', { id: created.body.id, update_type: 'domain_task', value: 'v1.example.org' }), 200);
    domains = await v1(user, 'get-user-info', { type: 'domain_tasks' });
    assert.deepEqual([domains.body.domain_tasks[0].domain, domains.body.domain_tasks[0].status], ['v1.example.org', 'paused']);
    assertStatus(await v1(user, 'update', { id: created.body.id, update_type: 'domain_task', value: 'bad domain' }), 302, MONITORING_MESSAGES.domainValue);
    // Deleting by the slot's id (as listed) empties the slot.
    assertStatus(await v1(user, 'delete', { delete_type: 'domain_task', id: domains.body.domain_tasks[0].id }), 200);
    domains = await v1(user, 'get-user-info', { type: 'domain_tasks' });
    assert.equal(domains.body.domain_tasks[0].domain, null);
  });
});

/** A report of `user` on a segment holding `values` (emails), written as the matcher writes one. */
async function writeReport(user: User, well: string, emails: string[]): Promise<string> {
  const segment = await server.ingest(
    well,
    emails.map((email, i) => ({ email, username: `user${i}`, password: `pw-${i}` })),
  );
  const found = await server.runtime.engine.search({ query: `email:"${emails[0]}"`, size: 1000 });
  const db = server.runtime.db;
  const report = await db
    .insertInto('monitor_reports')
    .values({ user_id: user.id, segment_id: segment, well_name: well, results: found.total })
    .returning('id')
    .executeTakeFirstOrThrow();
  await db
    .insertInto('monitor_report_tasks')
    .values({ report_id: report.id, task_id: null, task_kind: 'email', task_value: emails[0]!, results_count: found.total, record_ids: found.entries.map((e) => e.id) })
    .execute();
  return report.id;
}

describe('breaches', () => {
  test('get-breaches and get-breach-entries page the reports and their entries', async () => {
    const user = await apiUser({ searchDays: 30 });
    const target = `breached-${randomUUID().slice(0, 8)}@example.com`;
    const breachId = await writeReport(user, 'V1 Breach Well', Array.from({ length: 120 }, () => target));

    const breaches = await v1(user, 'get-breaches', { page: 1 });
    assertStatus(breaches, 200);
    assert.equal(breaches.body.next_page, null);
    assert.equal(breaches.body.breaches.length, 1);
    const breach = breaches.body.breaches[0];
    assert.equal(breach.breach_id, breachId);
    assert.equal(breach.database_name, 'V1 Breach Well');
    assert.equal(breach.results, 120);
    assert.deepEqual(breach.tasks, [{ key: 'email', value: target, results_count: 120 }]);
    // No body: page 1.
    assertStatus(await v1(user, 'get-breaches'), 200);

    const first = await v1(user, 'get-breach-entries', { breach_id: breachId, page: 1 });
    assertStatus(first, 200);
    assert.equal(first.body.page, 1);
    assert.equal(first.body.next_page, 2);
    assert.equal(first.body.total, 120);
    assert.equal(first.body.values_hidden, false);
    assert.equal(first.body.entries.length, 100);
    const entry = first.body.entries[0];
    assert.equal(entry.task_type, 'email');
    assert.equal(entry.task_value, target);
    assert.deepEqual(entry.email, [target]);
    assert.equal(entry.database_name, 'V1 Breach Well');
    assert.equal(entry.raw_record, undefined);
    const second = await v1(user, 'get-breach-entries', { breach_id: breachId, page: 2 });
    assert.equal(second.body.entries.length, 20);
    assert.equal(second.body.next_page, null);
    const ids = new Set([...first.body.entries, ...second.body.entries].map((e: any) => e.id));
    assert.equal(ids.size, 120);

    assertStatus(await v1(user, 'get-breach-entries', { breach_id: randomUUID() }), 404);
    assertStatus(await v1(user, 'get-breach-entries', { breach_id: 'not-an-id' }), 404);
  });
});

describe("test 22: another user's ids are 404 on every V1 path", () => {
  test('tasks, domain tasks, notification methods and breaches of another user', async () => {
    const a = await apiUser({ enterprise: true, searchDays: 30 });
    const b = await apiUser({ enterprise: true, searchDays: 30 });
    const bTask = (await v1(b, 'create', { create_type: 'task', key: 'email', value: 'b-v1@example.com' })).body.id;
    const bDomain = (await v1(b, 'create', { create_type: 'domain_task', value: 'b-v1.example.com' })).body.id;
    const bMethod = (await v1(b, 'create', { create_type: 'notification_method', key: 'email', value: 'b-alerts@example.com' })).body.id;
    assert.ok(bTask && bDomain && bMethod);
    const bBreach = await writeReport(b, 'B Private Well', [`b-private-${randomUUID().slice(0, 8)}@example.com`]);

    for (const [method, body] of [
      ['update', { id: bTask, update_type: 'task', task_status: 'pause' }],
      ['update', { id: bTask, update_type: 'task', value: 'stolen@example.com' }],
      ['update', { id: bTask, update_type: 'task', task_status: 'delete' }],
      ['update', { id: bDomain, update_type: 'domain_task', task_status: 'pause' }],
      ['update', { id: bDomain, update_type: 'domain_task', value: 'stolen.example.com' }],
      ['update', { id: bMethod, update_type: 'notification_method', value: 'stolen@example.com' }],
      ['update', { id: bMethod, update_type: 'notification_method', task_status: 'delete' }],
      ['delete', { delete_type: 'task', id: bTask }],
      ['delete', { delete_type: 'domain_task', id: bDomain }],
      ['delete', { delete_type: 'notification_method', id: bMethod }],
      ['get-breach-entries', { breach_id: bBreach }],
    ] as const) {
      assertStatus(await v1(a, method, body), 404, 'Method not allowed.');
    }
    assert.equal((await v1(a, 'get-breaches', {})).body.breaches.length, 0);
    // B's things are as they were.
    const tasks = (await v1(b, 'get-user-info', { type: 'tasks' })).body.tasks;
    assert.deepEqual(
      tasks.map((t: any) => [t.value, t.status]),
      [['b-v1@example.com', 'active']],
    );
    const domains = (await v1(b, 'get-user-info', { type: 'domain_tasks' })).body.domain_tasks;
    assert.deepEqual(
      domains.map((d: any) => [d.domain, d.status]),
      [['b-v1.example.com', 'active']],
    );
    const methods = (await v1(b, 'get-user-info', { type: 'notification_methods' })).body.notification_methods;
    assert.deepEqual(
      methods.map((m: any) => m.value),
      ['b-alerts@example.com'],
    );
    assert.equal((await v1(b, 'get-breach-entries', { breach_id: bBreach })).status, 200);
  });
});

describe('the answers are the documented ones, as the spec lists them', () => {
  test("every 404 is 'Method not allowed.' (an unknown path or an id that is not the caller's), as the docs' table says", async () => {
    const user = await apiUser({ enterprise: true });
    const documented = new Map(V1_ERRORS.map(([status, message]) => [Number(status), message]));
    assert.equal(documented.get(404), 'Method not allowed.');
    assert.equal(documented.get(401), 'Invalid API credentials.');
    const unknownTask = '999999999';
    for (const [method, body] of [
      ['no-such-call', {}],
      ['update', { id: unknownTask, update_type: 'task', task_status: 'pause' }],
      ['update', { id: unknownTask, update_type: 'domain_task', value: 'unknown.example.com' }],
      ['update', { id: unknownTask, update_type: 'notification_method', value: 'x@example.com' }],
      ['delete', { delete_type: 'task', id: unknownTask }],
      ['delete', { delete_type: 'notification_method', id: unknownTask }],
      ['get-breach-entries', { breach_id: randomUUID() }],
    ] as const) {
      const reply = await v1(user, method, body);
      assert.deepEqual([reply.status, reply.body], [404, { error: documented.get(404) }], `${method} ${JSON.stringify(body)}`);
    }
    // A task id sent as a domain_task is no domain task of the caller's either.
    const task = (await v1(user, 'create', { create_type: 'task', key: 'email', value: 'v1-known@example.com' })).body.id;
    assertStatus(await v1(user, 'update', { id: task, update_type: 'domain_task', task_status: 'pause' }), 404, documented.get(404));
    assertStatus(await v1(undefined, 'get-user-info', { type: 'tasks' }), 401, documented.get(401));
  });
});
