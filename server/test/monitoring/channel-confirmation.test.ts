/**
 * Email alert channels are confirmed by a mailed link before an alert goes there
 * (docs/monitoring.md 'Email channel confirmation'): a channel at
 * another address gets only the confirmation mail, its alerts are skipped (not failures:
 * no notice, the fail streak stays), the link confirms once, then alerts are delivered; a
 * wrong, used, replaced or expired link is refused; the account's own verified address
 * needs no confirmation; Resend is throttled. The /v2 and Monitor API V1 lists show the
 * state. Real PostgreSQL, jobs on PostgreSQL.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { startTestServer, type TestServer } from '../support/harness';
import { call } from '../support/helpers';
import { alertTo, FAST_DELIVERY_ENV, queueClient, settled } from '../support/delivery-fixtures';
import type { QueueSystem } from '../../src/infra/queues';

describe('email channel confirmation', () => {
let server: TestServer;
let queues: QueueSystem;

before(async () => {
  server = await startTestServer({ env: FAST_DELIVERY_ENV });
  queues = queueClient(server);
});
after(async () => {
  await queues.close();
  await server.close();
});

const post = (path: string, body: unknown, token?: string) => call(server.url, 'POST', path, { body, ...(token ? { token } : {}) });

async function mailsTo(address: string) {
  return (await server.outbox()).filter((mail) => mail.to === address);
}

async function form(link: string, method: 'GET' | 'POST') {
  const response = await fetch(link, { method, redirect: 'manual' });
  return { status: response.status, text: await response.text() };
}

test('an email channel at another address gets alerts only after its link is followed', async () => {
  const user = await server.createUser();
  const { token } = await server.login(user.email);
  const address = `elsewhere-${randomBytes(4).toString('hex')}@example.com`;

  const added = await post('/notification-channels/add', { key: 'email', value: address }, token);
  assert.equal(added.status, 200, JSON.stringify(added.body));
  const channel = added.body.channel;
  assert.equal(channel.awaiting_confirmation, true);
  const confirmation = await server.waitForMail(address, /confirm monitoring alerts/);
  const link = confirmation.links.find((l) => l.includes('/monitoring/confirm-channel?t='));
  assert.ok(link, 'the mail carries the confirmation link');
  const stored = await server.runtime.db.selectFrom('notification_channels').selectAll().where('id', '=', channel.id).executeTakeFirstOrThrow();
  assert.ok(stored.confirm_token_hash && !link.includes(stored.confirm_token_hash), 'the token is stored hashed');

  // The state on every surface that lists channels.
  const info = await call(server.url, 'GET', '/notification-channels/info', { token });
  assert.equal(info.body.email.awaiting_confirmation, true);

  // An alert before the confirmation: skipped, not a failure.
  const first = await alertTo(server, queues, user.id, { id: channel.id, kind: 'email', value: address });
  const skipped = await settled(server, first.deliveryId);
  assert.equal(skipped.status, 'dead');
  assert.match(skipped.last_error ?? '', /^skipped: /);
  assert.deepEqual(
    (await mailsTo(address)).map((mail) => mail.subject),
    [confirmation.subject],
    'the outbox holds the confirmation mail only',
  );
  const after1 = await server.runtime.db.selectFrom('notification_channels').select(['fail_streak', 'active']).where('id', '=', channel.id).executeTakeFirstOrThrow();
  assert.deepEqual(after1, { fail_streak: 0, active: true }, 'a skipped alert is no failure');
  const notices = await server.runtime.db.selectFrom('notifications').select('type').where('user_id', '=', user.id).where('type', '=', 'delivery-failed').execute();
  assert.equal(notices.length, 0);
  assert.equal((await mailsTo(user.email)).length, 0, 'the owner is not told of a failure');

  // Resend right away: throttled.
  const early = await post('/notification-channels/resend-confirmation', { id: channel.id }, token);
  assert.equal(early.status, 429);

  // A wrong link is refused; the link shows a page (a scanner's GET confirms nothing), its POST confirms once.
  assert.equal((await form(`${server.url}/monitoring/confirm-channel?t=${'x'.repeat(43)}`, 'GET')).status, 400);
  assert.equal((await form(`${server.url}/monitoring/confirm-channel?t=${'x'.repeat(43)}`, 'POST')).status, 400);
  const page = await form(link, 'GET');
  assert.equal(page.status, 200);
  assert.match(page.text, /<form method="post"/);
  assert.equal((await post('/notification-channels/get', {}, token)).body.notification_channels[0].awaiting_confirmation, true, 'GET alone confirms nothing');
  const confirmed = await form(link, 'POST');
  assert.equal(confirmed.status, 200);
  assert.match(confirmed.text, /Confirmed/);
  assert.equal((await form(link, 'POST')).status, 400, 'a used link is refused');
  assert.equal((await post('/notification-channels/get', {}, token)).body.notification_channels[0].awaiting_confirmation, false);

  // The next alert is delivered.
  const second = await alertTo(server, queues, user.id, { id: channel.id, kind: 'email', value: address });
  assert.equal((await settled(server, second.deliveryId)).status, 'sent');
  await server.waitForMail(address, /new results/);

  // Another address: a new confirmation; an expired link is refused; a resend replaces the link.
  const other = `other-${randomBytes(4).toString('hex')}@example.com`;
  const changed = await post('/notification-channels/update', { id: channel.id, key: 'email', value: other }, token);
  assert.equal(changed.status, 200);
  assert.equal(changed.body.channel.awaiting_confirmation, true);
  const otherLink = (await server.waitForMail(other, /confirm monitoring alerts/)).links.find((l) => l.includes('/monitoring/confirm-channel?t='))!;
  await server.runtime.db.updateTable('notification_channels').set({ confirm_expires_at: sql<Date>`now() - interval '1 minute'` }).where('id', '=', channel.id).execute();
  assert.equal((await form(otherLink, 'GET')).status, 400, 'an expired link is refused');
  assert.equal((await form(otherLink, 'POST')).status, 400);
  await server.runtime.db.updateTable('notification_channels').set({ confirm_sent_at: sql<Date>`now() - interval '2 minutes'` }).where('id', '=', channel.id).execute();
  const resent = await post('/notification-channels/resend-confirmation', { id: channel.id }, token);
  assert.equal(resent.status, 200, JSON.stringify(resent.body));
  const mails = await mailsTo(other);
  assert.equal(mails.length, 2);
  const newLink = mails.at(-1)!.links.find((l) => l.includes('/monitoring/confirm-channel?t='))!;
  assert.notEqual(newLink, otherLink);
  assert.equal((await form(newLink, 'POST')).status, 200);

  // The account's own verified address: confirmed at once, no mail; nothing left to resend.
  const own = await post('/notification-channels/update', { id: channel.id, key: 'email', value: user.email.toUpperCase() }, token);
  assert.equal(own.status, 200);
  assert.equal(own.body.channel.awaiting_confirmation, false);
  assert.equal((await mailsTo(user.email.toUpperCase())).length + (await mailsTo(user.email)).length, 0);
  assert.equal((await post('/notification-channels/resend-confirmation', { id: channel.id }, token)).status, 400);
});

test('the /v2 and Monitor API V1 channel lists show an address awaiting confirmation', async () => {
  const user = await server.createUser({ apiKey: true });
  const { token } = await server.login(user.email);
  const address = `api-${randomBytes(4).toString('hex')}@example.com`;
  assert.equal((await post('/notification-channels/add', { key: 'email', value: address }, token)).status, 200);
  const v2 = await call(server.url, 'GET', '/v2/monitoring/get-channels', { headers: { [server.runtime.config.apiKeyHeader]: user.apiKey! } });
  assert.equal(v2.status, 200, JSON.stringify(v2.body));
  assert.equal(v2.body.channels[0].awaiting_confirmation, true);
  const v1 = await call(server.url, 'POST', '/monitor-api/v1/get-user-info', { body: { type: 'notification_methods' }, headers: { authorization: `Bearer ${user.apiKey!}` } });
  assert.equal(v1.status, 200, JSON.stringify(v1.body));
  assert.equal(v1.body.notification_methods[0].awaiting_confirmation, true);
});
});
