/**
 * Webhook alerts through the real `deliver` queue on both job backends, to loopback
 * receivers (WEBHOOK_ALLOW_PRIVATE=true): Standard Webhooks signatures checked by an
 * independent verifier (npm standardwebhooks), the webhook-id constant across retries,
 * and the failure modes of reliability test 28 (slow receiver, endless body, 500s until
 * dead with the inbox notice and the mail, 410 disabling the channel, redirects not
 * followed, Retry-After honoured).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Webhook } from 'standardwebhooks';
import { eventually, startTestServer, type TestServer } from '../support/harness';
import { signWebhook } from '../../src/delivery/signing';
import { scheduledDelay } from '../../src/infra/queues';
import { matchValue } from '../../src/common/monitoring-rules';
import type { QueueSystem } from '../../src/infra/queues';
import {
  BACKENDS,
  FAST_DELIVERY_ENV,
  attemptsOf,
  createAlert,
  newWebhookSecret,
  queueClient,
  settled,
  startReceiver,
  type Receiver,
} from '../support/delivery-fixtures';

const headersOf = (r: { headers: Record<string, unknown> }) => ({
  'webhook-id': String(r.headers['webhook-id']),
  'webhook-timestamp': String(r.headers['webhook-timestamp']),
  'webhook-signature': String(r.headers['webhook-signature']),
});

describe('webhook signing (no server)', () => {
  test('our signature is the one the Standard Webhooks library computes, and only with the right secret', () => {
    const secret = newWebhookSecret();
    const body = '{"id":"r1","breach_id":"r1","type":"report","timestamp":"2026-11-23T10:00:00.000Z"}';
    const now = Math.floor(Date.now() / 1000);
    const ours = signWebhook(secret, 'msg_1', now, body);
    assert.equal(ours, new Webhook(secret).sign('msg_1', new Date(now * 1000), body));
    const headers = { 'webhook-id': 'msg_1', 'webhook-timestamp': String(now), 'webhook-signature': ours };
    assert.deepEqual(new Webhook(secret).verify(body, headers), JSON.parse(body));
    assert.throws(() => new Webhook(newWebhookSecret()).verify(body, headers), /signature/i);
    assert.throws(() => new Webhook(secret).verify(body.replace('r1', 'r2'), headers), /signature/i);
  });

  test('retry waits follow the schedule with at most 10% jitter; a longer Retry-After wins', () => {
    const schedule = { delaysMs: [0, 5000, 300_000] };
    assert.equal(scheduledDelay(schedule, 1, undefined, () => 0), 5000);
    assert.equal(scheduledDelay(schedule, 1, undefined, () => 0.999), 5500);
    assert.equal(scheduledDelay(schedule, 2, undefined, () => 0.5), 315_000);
    const retryAfter = Object.assign(new Error('429'), { retryAfterMs: 60_000 });
    assert.equal(scheduledDelay(schedule, 1, retryAfter, () => 0), 60_000);
    assert.equal(scheduledDelay(schedule, 2, retryAfter, () => 0), 300_000, 'a shorter Retry-After does not shorten the schedule');
  });
});

for (const backend of BACKENDS) {
  describe(`webhook delivery on ${backend}`, () => {
    let server: TestServer;
    let queues: QueueSystem;
    const receivers: Receiver[] = [];
    const receiver = async (...args: Parameters<typeof startReceiver>) => {
      const r = await startReceiver(...args);
      receivers.push(r);
      return r;
    };
    before(async () => {
      server = await startTestServer({ redis: backend === 'redis', env: FAST_DELIVERY_ENV });
      queues = queueClient(server);
    });
    after(async () => {
      await queues.close();
      await server.close();
      for (const r of receivers) await r.close();
    });

    test('end to end: an ingest matching a watched email reaches the webhook, signed, naming the report', { timeout: 60_000 }, async () => {
      const hook = await receiver(() => ({ status: 200 }));
      const secret = newWebhookSecret();
      const user = await server.createUser();
      const db = server.runtime.db;
      const email = `watched-${Date.now()}@example.com`;
      await db.insertInto('monitor_tasks').values({ user_id: user.id, kind: 'email', value: email, match_value: matchValue('email', email) }).execute();
      await db.insertInto('notification_channels').values({ user_id: user.id, kind: 'webhook', value: hook.url, secret }).execute();
      await server.ingest('Delivery E2E Dump', [{ email, password: 'hunter2' }, { email: 'someone-else@example.org' }]);
      const report = await eventually(() => db.selectFrom('monitor_reports').select(['id', 'results']).where('user_id', '=', user.id).executeTakeFirst(), 30_000);
      assert.equal(report.results, 1);
      await eventually(async () => hook.requests.length === 1, 30_000);
      const request = hook.requests[0]!;
      const payload = new Webhook(secret).verify(request.body, headersOf(request)) as { id: string; type: string };
      assert.equal(payload.id, report.id);
      assert.equal(payload.type, 'report');
      const delivery = await db.selectFrom('deliveries').select(['id', 'status']).where('report_id', '=', report.id).executeTakeFirstOrThrow();
      assert.equal(request.headers['webhook-id'], delivery.id);
      assert.equal((await settled(server, delivery.id)).status, 'sent');
    });

    test('signed alert: verified independently, the same webhook-id on every retry, sent on the third attempt', async () => {
      const answers = [500, 503, 204];
      const hook = await receiver((n) => ({ status: answers[n] ?? 204 }));
      const secret = newWebhookSecret();
      server.markSecret(secret);
      const alert = await createAlert(server, queues, { kind: 'webhook', value: hook.url, secret });
      await server.runtime.db.updateTable('notification_channels').set({ fail_streak: 2 }).where('id', '=', alert.channelId).execute();
      const row = await settled(server, alert.deliveryId);
      assert.equal(row.status, 'sent');
      assert.equal(row.attempts, 3);
      assert.ok(row.sent_at);
      assert.equal(hook.requests.length, 3);
      const verifier = new Webhook(secret);
      for (const request of hook.requests) {
        assert.equal(request.headers['webhook-id'], alert.deliveryId, 'webhook-id is the delivery id');
        assert.equal(request.headers['content-type'], 'application/json');
        const payload = verifier.verify(request.body, headersOf(request)) as Record<string, string>;
        assert.equal(payload.id, alert.reportId);
        assert.equal(payload.breach_id, alert.reportId);
        assert.equal(payload.type, 'report');
        assert.ok(!Number.isNaN(Date.parse(String(payload.timestamp))));
      }
      assert.equal(new Set(hook.requests.map((r) => r.headers['webhook-id'])).size, 1);
      assert.throws(() => new Webhook(newWebhookSecret()).verify(hook.requests[0]!.body, headersOf(hook.requests[0]!)));
      const attempts = await attemptsOf(server, alert.deliveryId);
      assert.deepEqual(
        attempts.map((a) => [a.n, a.http_status, a.error]),
        [
          [1, 500, 'HTTP 500'],
          [2, 503, 'HTTP 503'],
          [3, 204, null],
        ],
      );
      assert.ok(attempts.every((a) => typeof a.ms === 'number' && a.ms >= 0));
      const channel = await server.runtime.db.selectFrom('notification_channels').select(['fail_streak', 'active']).where('id', '=', alert.channelId).executeTakeFirstOrThrow();
      assert.equal(channel.fail_streak, 0, 'a success ends the run of failures');
      assert.equal(channel.active, true);
    });

    test('500s until the last attempt: dead, a delivery-failed notice naming the channel, a mail to the account, fail_streak counted', async () => {
      const hook = await receiver(() => ({ status: 500, body: 'boom' }));
      const alert = await createAlert(server, queues, { kind: 'webhook', value: `${hook.url}?token=abc123secret`, secret: newWebhookSecret() });
      const row = await settled(server, alert.deliveryId);
      assert.equal(row.status, 'dead');
      assert.equal(row.attempts, 3);
      assert.equal(row.last_error, 'HTTP 500');
      assert.equal(hook.requests.length, 3, 'WEBHOOK_RETRY_DELAYS_MS has three entries: three attempts');
      const notices = await server.runtime.db.selectFrom('notifications').selectAll().where('user_id', '=', alert.userId).where('type', '=', 'delivery-failed').execute();
      assert.equal(notices.length, 1);
      assert.match(notices[0]!.data, new RegExp(`webhook http://127\\.0\\.0\\.1:${hook.port}`));
      assert.match(notices[0]!.data, /3 attempts/);
      assert.ok(!notices[0]!.data.includes('abc123secret'), 'the URL query (tokens) is not repeated');
      assert.equal(notices[0]!.link, `/monitoring/reports/${alert.reportId}`);
      const mail = await server.waitForMail(alert.userEmail, /could not be delivered/);
      assert.match(mail.text, /webhook http:\/\/127\.0\.0\.1/);
      assert.ok(mail.links.some((l) => l.endsWith(`/monitoring/reports/${alert.reportId}`)));
      const channel = await server.runtime.db.selectFrom('notification_channels').select(['fail_streak', 'active']).where('id', '=', alert.channelId).executeTakeFirstOrThrow();
      assert.equal(channel.fail_streak, 1);
      assert.equal(channel.active, true, 'failures alone do not disable a channel');
    });

    test('410 Gone disables the channel at once: one attempt, no retry', async () => {
      const hook = await receiver(() => ({ status: 410 }));
      const alert = await createAlert(server, queues, { kind: 'webhook', value: hook.url, secret: newWebhookSecret() });
      const row = await settled(server, alert.deliveryId);
      assert.equal(row.status, 'dead');
      assert.equal(row.attempts, 1);
      await new Promise((r) => setTimeout(r, 500));
      assert.equal(hook.requests.length, 1, 'no retry after 410');
      const channel = await server.runtime.db.selectFrom('notification_channels').select(['active', 'disabled_reason']).where('id', '=', alert.channelId).executeTakeFirstOrThrow();
      assert.equal(channel.active, false);
      assert.match(channel.disabled_reason ?? '', /410/);
      const notice = await server.runtime.db.selectFrom('notifications').select('data').where('user_id', '=', alert.userId).where('type', '=', 'delivery-failed').executeTakeFirstOrThrow();
      assert.match(notice.data, /410 Gone: the channel was disabled/);
    });

    test('a slow receiver times out (WEBHOOK_TIMEOUT_MS), every attempt bounded', async () => {
      const hook = await receiver(() => ({ status: 200, delayMs: 4000 }));
      const alert = await createAlert(server, queues, { kind: 'webhook', value: hook.url, secret: newWebhookSecret() });
      const row = await settled(server, alert.deliveryId, 20_000);
      assert.equal(row.status, 'dead');
      const attempts = await attemptsOf(server, alert.deliveryId);
      assert.equal(attempts.length, 3);
      for (const a of attempts) {
        assert.equal(a.http_status, null);
        assert.equal(a.error, 'timeout after 1000 ms');
        assert.ok(a.ms! >= 900 && a.ms! < 2500, `attempt took ${a.ms} ms`);
      }
    });

    test('an endless response body is read only up to its bound: the 200 counts, nothing hangs', async () => {
      const hook = await receiver(() => ({ status: 200, endless: true }));
      const alert = await createAlert(server, queues, { kind: 'webhook', value: hook.url, secret: newWebhookSecret() });
      const row = await settled(server, alert.deliveryId);
      assert.equal(row.status, 'sent');
      assert.equal(row.attempts, 1);
      const [attempt] = await attemptsOf(server, alert.deliveryId);
      assert.equal(attempt!.http_status, 200);
      assert.ok(attempt!.ms! < 1000, `stopped reading at once (${attempt!.ms} ms)`);
    });

    test('redirects are not followed: a 3xx is a failed attempt and the target never sees the alert', async () => {
      const target = await receiver(() => ({ status: 200 }));
      const hook = await receiver(() => ({ status: 307, headers: { location: target.url } }));
      const alert = await createAlert(server, queues, { kind: 'webhook', value: hook.url, secret: newWebhookSecret() });
      const row = await settled(server, alert.deliveryId);
      assert.equal(row.status, 'dead');
      assert.equal(hook.requests.length, 3);
      assert.equal(target.requests.length, 0);
      assert.match(row.last_error ?? '', /HTTP 307 \(redirects are not followed\)/);
    });

    test('429 with Retry-After: the next attempt waits for it (not the 50 ms of the schedule)', async () => {
      const hook = await receiver((n) => (n === 0 ? { status: 429, headers: { 'retry-after': '1' } } : { status: 200 }));
      const alert = await createAlert(server, queues, { kind: 'webhook', value: hook.url, secret: newWebhookSecret() });
      const row = await settled(server, alert.deliveryId);
      assert.equal(row.status, 'sent');
      assert.equal(hook.requests.length, 2);
      const gap = hook.requests[1]!.at - hook.requests[0]!.at;
      assert.ok(gap >= 950, `second attempt after ${gap} ms`);
    });
  });
}
