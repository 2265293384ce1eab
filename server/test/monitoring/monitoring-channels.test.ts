/**
 * Notification channels through the dashboard calls
 * (docs/monitoring.md "Calls"): the refusal messages, channels and webhooks counted apart, disabled
 * channels not counted, `sms` read as `phone`, the webhook secret shown once, the SSRF
 * check on save (WEBHOOK_ALLOW_PRIVATE off here), the info call per tier, concurrent adds,
 * and another user's channel answered 404 (test 22). Real PostgreSQL.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { startTestServer, type TestServer, signedIn } from '../support/harness';
import { call, type Reply } from '../support/helpers';
import { grantPurchase } from '../../src/payments/grants-service';
import { MONITORING_MESSAGES } from '../../src/common/monitoring-rules';
import { PRIVATE_TARGET_MESSAGE } from '../../src/infra/ssrf';
import { CHANNEL_KIND_FIXED_MESSAGE, DUPLICATE_CHANNEL_MESSAGE } from '../../src/monitoring/channels-service';

let server: TestServer;

before(async () => {
  server = await startTestServer({ env: { WEBHOOK_ALLOW_PRIVATE: 'false' } });
});
after(() => server.close());

async function buyDomainSlots(userId: string, slots: number): Promise<void> {
  await server.runtime.db
    .transaction()
    .execute((trx) => grantPurchase(trx, { userId, sku: 'domain-nonsub-monthly', quantity: slots, source: `payment:${randomUUID()}`, reason: 'purchase' }));
}

const post = (path: string, body: unknown, token: string) => call(server.url, 'POST', path, { body, token });
const get = (path: string, token: string) => call(server.url, 'GET', path, { token });
const PUBLIC_HOOK = 'https://93.184.216.34/hook';

function assertRefused(reply: Reply, status: number, message?: string) {
  assert.equal(reply.status, status, JSON.stringify(reply.body));
  if (message) assert.equal(reply.body.error, message);
}

describe('free tier', () => {
  test('one email channel; SMS and webhooks are not in the tier; a disabled channel does not count', async () => {
    const user = await signedIn(server);
    let info = await get('/notification-channels/info', user.token);
    assert.equal(info.status, 200);
    assert.deepEqual(info.body, { email: { available: true, value: '', id: null, updated: null, active: false, awaiting_confirmation: false }, phone: null, webhook: null });

    const added = await post('/notification-channels/add', { key: 'email', value: 'alerts@example.com' }, user.token);
    assert.equal(added.status, 200, JSON.stringify(added.body));
    assert.equal(added.body.success, true);
    assert.equal(added.body.secret, undefined);
    const channel = added.body.channel;
    assert.deepEqual(Object.keys(channel).sort(), ['active', 'awaiting_confirmation', 'created', 'id', 'key', 'updated', 'value']);
    assert.equal(channel.key, 'email');
    assert.equal(channel.active, true);

    assertRefused(await post('/notification-channels/add', { key: 'email', value: 'second@example.com' }, user.token), 400, MONITORING_MESSAGES.maxChannels);
    assertRefused(await post('/notification-channels/add', { key: 'sms', value: '5551234' }, user.token), 400, MONITORING_MESSAGES.maxChannels);
    assertRefused(await post('/notification-channels/add', { key: 'phone', value: '5551234' }, user.token), 400, MONITORING_MESSAGES.maxChannels);
    assertRefused(await post('/notification-channels/add', { key: 'webhook', value: PUBLIC_HOOK }, user.token), 400, MONITORING_MESSAGES.maxWebhooks);
    info = await get('/notification-channels/info', user.token);
    assert.deepEqual(info.body.email, { available: false, value: 'alerts@example.com', id: channel.id, updated: info.body.email.updated, active: true, awaiting_confirmation: true });
    assert.equal((await get('/monitoring/info', user.token)).body.active_notification_channels, 1);

    // Disable saves an empty value: the channel stays, inactive, and no longer counts.
    const disabled = await post('/notification-channels/update', { id: channel.id, key: 'email', value: '' }, user.token);
    assert.equal(disabled.status, 200);
    assert.equal(disabled.body.channel.value, '');
    assert.equal(disabled.body.channel.active, false);
    assert.equal((await get('/monitoring/info', user.token)).body.active_notification_channels, 0);
    const second = await post('/notification-channels/add', { key: 'email', value: 'second@example.com' }, user.token);
    assert.equal(second.status, 200);
    // Turning the first back on must fit again: it does not.
    assertRefused(await post('/notification-channels/update', { id: channel.id, key: 'email', value: 'alerts@example.com' }, user.token), 400, MONITORING_MESSAGES.maxChannels);
    // Changing the enabled one's value is no new channel.
    assert.equal((await post('/notification-channels/update', { id: second.body.channel.id, key: 'email', value: 'third@example.com' }, user.token)).status, 200);

    const list = await post('/notification-channels/get', {}, user.token);
    assert.equal(list.status, 200);
    assert.deepEqual(
      list.body.notification_channels.map((c: any) => [c.value, c.active]),
      [
        ['third@example.com', true],
        ['', false],
      ],
    );
  });
});

describe('standard tier (a domain slot)', () => {
  test('sms is stored as phone; the webhook secret is answered once; limits per class', async () => {
    const user = await signedIn(server);
    await buyDomainSlots(user.id, 1);
    const info = (await get('/notification-channels/info', user.token)).body;
    assert.equal(info.phone.available, true);
    assert.equal(info.webhook.available, true);

    const sms = await post('/notification-channels/add', { key: 'sms', value: '5551234' }, user.token);
    assert.equal(sms.status, 200, JSON.stringify(sms.body));
    assert.equal(sms.body.channel.key, 'phone');
    assert.equal((await post('/notification-channels/add', { key: 'email', value: 'me@example.com' }, user.token)).status, 200);
    assertRefused(await post('/notification-channels/add', { key: 'email', value: 'other@example.com' }, user.token), 400, MONITORING_MESSAGES.maxChannels);

    // Channels and webhooks are counted apart: two channels still leave room for a webhook.
    const hook = await post('/notification-channels/add', { key: 'webhook', value: PUBLIC_HOOK }, user.token);
    assert.equal(hook.status, 200, JSON.stringify(hook.body));
    const secret: string = hook.body.secret;
    assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.equal(Buffer.from(secret.slice(6), 'base64').length, 32);
    assert.equal(hook.body.channel.secret_hint, secret.slice(-4));
    assertRefused(await post('/notification-channels/add', { key: 'webhook', value: 'https://93.184.216.35/other' }, user.token), 400, MONITORING_MESSAGES.maxWebhooks);

    // Later reads show the hint only.
    const list = await post('/notification-channels/get', {}, user.token);
    assert.ok(!JSON.stringify(list.body).includes(secret));
    const listed = list.body.notification_channels.find((c: any) => c.key === 'webhook');
    assert.equal(listed.secret_hint, secret.slice(-4));
    const updated = await post('/notification-channels/update', { id: listed.id, key: 'webhook', value: 'https://93.184.216.34/new' }, user.token);
    assert.equal(updated.status, 200);
    assert.equal(updated.body.secret, undefined);
    assert.equal(updated.body.channel.secret_hint, secret.slice(-4));
    // The kind of a channel stays what it is.
    assertRefused(await post('/notification-channels/update', { id: listed.id, key: 'email', value: 'x@example.com' }, user.token), 400, CHANNEL_KIND_FIXED_MESSAGE);

    const monitoring = (await get('/monitoring/info', user.token)).body;
    assert.equal(monitoring.active_notification_channels, 2);
    assert.equal(monitoring.active_webhooks, 1);
  });

  test('concurrent adds cannot pass a limit', async () => {
    const user = await signedIn(server, { enterprise: true });
    const replies = await Promise.all(
      Array.from({ length: 12 }, (_, i) => post('/notification-channels/add', { key: 'email', value: `race-${i}@example.com` }, user.token)),
    );
    assert.equal(replies.filter((r) => r.status === 200).length, 4);
    const hooks = await Promise.all(
      Array.from({ length: 8 }, (_, i) => post('/notification-channels/add', { key: 'webhook', value: `https://93.184.216.34/race-${i}` }, user.token)),
    );
    assert.equal(hooks.filter((r) => r.status === 200).length, 3);
    const rows = await server.runtime.db.selectFrom('notification_channels').select('kind').where('user_id', '=', user.id).execute();
    assert.equal(rows.filter((r) => r.kind === 'email').length, 4);
    assert.equal(rows.filter((r) => r.kind === 'webhook').length, 3);
  });
});

describe('values', () => {
  test('refusal messages, duplicates, and unknown kinds or properties', async () => {
    const user = await signedIn(server, { enterprise: true });
    const cases: [string, string, string][] = [
      ['email', '', MONITORING_MESSAGES.empty],
      ['webhook', '  ', MONITORING_MESSAGES.empty],
      ['email', 'nope', MONITORING_MESSAGES.email],
      ['email', `${'a'.repeat(251)}@x.com`, MONITORING_MESSAGES.tooLong],
      ['sms', '123', MONITORING_MESSAGES.phone],
      ['phone', '+15551234', MONITORING_MESSAGES.phone],
      ['sms', '555-1234', MONITORING_MESSAGES.phone],
      ['sms', '1234567890123456', MONITORING_MESSAGES.phone],
      ['webhook', 'ftp://example.com/hook', MONITORING_MESSAGES.url],
      ['webhook', 'example.com/hook', MONITORING_MESSAGES.url],
      ['webhook', 'javascript:alert(1)', MONITORING_MESSAGES.url],
      ['webhook', 'https://user:pass@example.com/', MONITORING_MESSAGES.url],
      ['webhook', `https://example.com/${'p'.repeat(260)}`, MONITORING_MESSAGES.tooLong],
    ];
    for (const [key, value, message] of cases) {
      assertRefused(await post('/notification-channels/add', { key, value }, user.token), 400, message);
    }
    assertRefused(await post('/notification-channels/add', { key: 'pigeon', value: 'coo' }, user.token), 400);
    assertRefused(await post('/notification-channels/add', { key: 'email', value: 'a@b.com', secret: 'whsec_mine' }, user.token), 400);
    assertRefused(await post('/notification-channels/add', { key: 'email', value: 'a@b.com', user_id: randomUUID() }, user.token), 400);

    assert.equal((await post('/notification-channels/add', { key: 'email', value: 'Dup@Example.com' }, user.token)).status, 200);
    assertRefused(await post('/notification-channels/add', { key: 'email', value: 'dup@example.com' }, user.token), 400, DUPLICATE_CHANNEL_MESSAGE);
    assert.equal((await post('/notification-channels/add', { key: 'webhook', value: PUBLIC_HOOK }, user.token)).status, 200);
    assertRefused(await post('/notification-channels/add', { key: 'webhook', value: PUBLIC_HOOK }, user.token), 400, DUPLICATE_CHANNEL_MESSAGE);
    // Nothing of the refused ones was stored.
    assert.equal((await post('/notification-channels/get', {}, user.token)).body.notification_channels.length, 2);
  });

  test('webhook URLs to private, loopback and reserved addresses are refused on save', async () => {
    const user = await signedIn(server, { enterprise: true });
    for (const url of [
      'http://127.0.0.1/hook',
      'http://localhost:8080/hook',
      'http://169.254.169.254/latest/meta-data',
      'http://10.0.0.1/',
      'http://192.168.1.1/',
      'http://172.16.0.1/',
      'http://100.64.0.1/',
      'http://0.0.0.0/',
      'http://2130706433/',
      'http://0177.0.0.1/',
      'http://[::1]/',
      'http://[::ffff:127.0.0.1]/',
      'http://[fd00::1]/',
    ]) {
      assertRefused(await post('/notification-channels/add', { key: 'webhook', value: url }, user.token), 400, PRIVATE_TARGET_MESSAGE);
    }
    const ok = await post('/notification-channels/add', { key: 'webhook', value: PUBLIC_HOOK }, user.token);
    assert.equal(ok.status, 200);
    // An update is checked as an add is.
    assertRefused(await post('/notification-channels/update', { id: ok.body.channel.id, value: 'http://127.0.0.1:9/' }, user.token), 400, PRIVATE_TARGET_MESSAGE);
  });
});

describe("test 22: another user's channels are 404", () => {
  test('update and delete by id of another user, or an id that is no channel', async () => {
    const a = await signedIn(server, { enterprise: true });
    const b = await signedIn(server, { enterprise: true });
    const bChannel = (await post('/notification-channels/add', { key: 'email', value: 'b-alerts@example.com' }, b.token)).body.channel;
    const aChannel = (await post('/notification-channels/add', { key: 'email', value: 'a-alerts@example.com' }, a.token)).body.channel;
    assertRefused(await post('/notification-channels/update', { id: bChannel.id, key: 'email', value: 'stolen@example.com' }, a.token), 404);
    assertRefused(await post('/notification-channels/update', { id: bChannel.id, value: '' }, a.token), 404);
    assertRefused(await post('/notification-channels/delete', { ids: [bChannel.id] }, a.token), 404);
    assertRefused(await post('/notification-channels/delete', { ids: [aChannel.id, bChannel.id] }, a.token), 404);
    for (const id of ['999999999', 'x', '', 0]) {
      assertRefused(await post('/notification-channels/update', { id, value: '' }, a.token), 404);
      assertRefused(await post('/notification-channels/delete', { ids: [id] }, a.token), 404);
    }
    assert.deepEqual(
      (await post('/notification-channels/get', {}, b.token)).body.notification_channels.map((c: any) => [c.value, c.active]),
      [['b-alerts@example.com', true]],
    );
    assert.deepEqual(
      (await post('/notification-channels/get', {}, a.token)).body.notification_channels.map((c: any) => c.value),
      ['a-alerts@example.com'],
    );
    assert.equal((await post('/notification-channels/delete', { ids: [aChannel.id] }, a.token)).status, 200);
  });
});
