/**
 * The inbox (docs/monitoring.md "Notification"): paging newest first, unseen
 * marked seen after it is read, delete of one's own only, the navigation dot; the daily
 * notices once per user, kind and day and only where the user's setting allows; and the
 * operator's `notify:global` (the real admin CLI).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { startTestServer, type TestServer, signedIn } from '../support/harness';
import { call } from '../support/helpers';
import { insertNotification } from '../../src/monitoring/notifications-repository';
import { dayKey, writeDailyNotices } from '../../src/monitoring/daily-notices';
import { cliArgs } from '../../../scripts/lib/cli-command';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const run = promisify(execFile);

let server: TestServer;
before(async () => {
  server = await startTestServer();
});
after(() => server?.close());

const inbox = (token: string, page: number, per_page: number) => call(server.url, 'POST', '/notifications/get', { token, body: { page, per_page } });
const dot = async (token: string) => (await call(server.url, 'GET', '/user/info', { token })).body.has_notifications as boolean;

describe('inbox', () => {
  test('pages newest first (20 or 40), marks the read page seen after answering, lights the dot while any is unseen', async () => {
    const user = await signedIn(server);
    const other = await signedIn(server);
    assert.equal(await dot(user.token), false);
    const db = server.runtime.db;
    for (let i = 0; i < 45; i++) {
      const id = await insertNotification(db, { userId: user.id, type: 'report', data: `Notice ${i}`, link: `/monitoring/reports/r${i}` });
      await db.updateTable('notifications').set({ created: new Date(Date.now() - (45 - i) * 1000) }).where('id', '=', id!).execute();
    }
    await insertNotification(db, { userId: other.id, type: 'report', data: 'Not yours' });
    assert.equal(await dot(user.token), true);

    const first = await inbox(user.token, 1, 20);
    assert.equal(first.status, 200);
    assert.equal(first.body.total, 45);
    assert.equal(first.body.notifications.length, 20);
    assert.equal(first.body.notifications[0].data, 'Notice 44');
    assert.equal(first.body.notifications[19].data, 'Notice 25');
    const n = first.body.notifications[0];
    assert.deepEqual(Object.keys(n).sort(), ['created', 'data', 'global', 'id', 'link', 'seen', 'type']);
    assert.equal(n.seen, false);
    assert.equal(n.global, false);
    assert.equal(n.link, '/monitoring/reports/r44');
    // Read once: the same page now shows seen; the next page was not read yet.
    const again = await inbox(user.token, 1, 20);
    assert.ok(again.body.notifications.every((x: { seen: boolean }) => x.seen));
    const forty = await inbox(user.token, 1, 40);
    assert.deepEqual(
      forty.body.notifications.map((x: { seen: boolean }) => x.seen),
      [...Array(20).fill(true), ...Array(20).fill(false)],
    );
    assert.equal(await dot(user.token), true, 'five never read');
    const last = await inbox(user.token, 2, 40);
    assert.equal(last.body.notifications.length, 5);
    assert.equal(await dot(user.token), false);
    assert.equal(await dot(other.token), true, "another user's inbox is its own");

    for (const bad of [{ page: 1, per_page: 30 }, { page: 0, per_page: 20 }, { page: 1, per_page: 20, user_id: other.id }]) {
      assert.equal((await call(server.url, 'POST', '/notifications/get', { token: user.token, body: bad })).status, 400, JSON.stringify(bad));
    }
    assert.equal((await call(server.url, 'POST', '/notifications/get', { body: { page: 1, per_page: 20 } })).status, 401);
  });

  test("delete removes the caller's own notices only", async () => {
    const user = await signedIn(server);
    const other = await signedIn(server);
    const db = server.runtime.db;
    const mine = [];
    for (let i = 0; i < 3; i++) mine.push((await insertNotification(db, { userId: user.id, type: 'report', data: `Mine ${i}` }))!);
    const theirs = (await insertNotification(db, { userId: other.id, type: 'report', data: 'Theirs' }))!;
    const reply = await call(server.url, 'POST', '/notifications/delete', { token: user.token, body: { ids: [mine[0], mine[2], theirs] } });
    assert.deepEqual([reply.status, reply.body], [200, { success: true }]);
    assert.deepEqual(
      (await inbox(user.token, 1, 20)).body.notifications.map((x: { data: string }) => x.data),
      ['Mine 1'],
    );
    assert.equal((await inbox(other.token, 1, 20)).body.total, 1);
    assert.equal((await call(server.url, 'POST', '/notifications/delete', { token: user.token, body: { ids: ['x'] } })).status, 400);
    assert.equal((await call(server.url, 'POST', '/notifications/delete', { token: user.token, body: { ids: [] } })).status, 400);
  });
});

describe('daily notices', () => {
  const settings = { expiryDays: 3, lowCredits: 10 };
  const day = (offsetDays: number) => dayKey(new Date(Date.now() + offsetDays * 86_400_000));
  const noticesOf = async (userId: string) =>
    (await server.runtime.db.selectFrom('notifications').select(['type', 'data', 'link']).where('user_id', '=', userId).orderBy('type').execute()).map((n) => `${n.type}: ${n.data}`);

  test('each kind once per user and day, only when its setting allows and the plan does not renew', async () => {
    const db = server.runtime.db;
    const soon = new Date(Date.now() + 2 * 86_400_000);
    const soonDay = soon.toISOString().slice(0, 10);
    // Everything about to end, low on both credits.
    const all = await signedIn(server, { searchDays: 2, searchCredits: 4 });
    await db.updateTable('users').set({ enterprise_until: soon, whois_credits: 3 }).where('id', '=', all.id).execute();
    for (const kind of ['search', 'whois'] as const) await db.insertInto('credit_ledger').values({ user_id: all.id, kind, delta: 5, balance_after: 5, reason: 'purchase' }).execute();
    await db.insertInto('subscriptions').values({ user_id: all.id, plan: 'domain', billing_interval: 'monthly', recurring: false, period_end: soon }).execute();
    // The same, with every setting off.
    const quiet = await signedIn(server, { searchDays: 2, searchCredits: 4 });
    await db
      .updateTable('users')
      .set({
        enterprise_until: soon,
        whois_credits: 3,
        notify_search_expiration: false,
        notify_monitoring_expiration: false,
        notify_enterprise_expiration: false,
        notify_low_search_credits: false,
        notify_low_whois_credits: false,
      })
      .where('id', '=', quiet.id)
      .execute();
    for (const kind of ['search', 'whois'] as const) await db.insertInto('credit_ledger').values({ user_id: quiet.id, kind, delta: 5, balance_after: 5, reason: 'purchase' }).execute();
    await db.insertInto('subscriptions').values({ user_id: quiet.id, plan: 'domain', billing_interval: 'monthly', recurring: false, period_end: soon }).execute();
    // Plans that renew, end later, or credits that are plenty (or never used): nothing.
    const calm = await signedIn(server, { searchDays: 30, searchCredits: 500 });
    await db.insertInto('credit_ledger').values({ user_id: calm.id, kind: 'search', delta: 500, balance_after: 500, reason: 'purchase' }).execute();
    await db.updateTable('users').set({ search_is_recurring: true, search_subscribed_until: soon }).where('id', '=', calm.id).execute();
    await db.insertInto('subscriptions').values({ user_id: calm.id, plan: 'search', billing_interval: 'monthly', recurring: true, period_end: soon }).execute();
    await db.insertInto('subscriptions').values({ user_id: calm.id, plan: 'domain', billing_interval: 'monthly', recurring: false, period_end: new Date(Date.now() + 20 * 86_400_000) }).execute();
    const never = await signedIn(server, { searchDays: 30 }); // a subscriber who never bought credits: at zero, no notice

    const today = day(0);
    await writeDailyNotices(db, today, settings);
    assert.deepEqual(await noticesOf(all.id), [
      `enterprise-expiration: Your enterprise plan expires on ${soonDay}.`,
      'low-search-credits: Your search credits are low: 4 left.',
      'low-whois-credits: Your WHOIS credits are low: 3 left.',
      `monitoring-expiration: Your domain monitoring subscription expires on ${soonDay}.`,
      `search-expiration: Your search subscription expires on ${soonDay}.`,
    ]);
    assert.deepEqual(await noticesOf(quiet.id), []);
    assert.deepEqual(await noticesOf(calm.id), []);
    assert.deepEqual(await noticesOf(never.id), []);

    // The job again the same day (another server, a retry): nothing new.
    await server.runtime.app.jobProcessors['monitor-daily']!({ day: today }, 1);
    assert.equal((await noticesOf(all.id)).length, 5);
    // Cancelling a renewal makes the plan end: its notice comes.
    await db.updateTable('subscriptions').set({ cancel_requested_at: new Date() }).where('user_id', '=', calm.id).where('plan', '=', 'search').execute();
    await writeDailyNotices(db, today, settings);
    assert.deepEqual(await noticesOf(calm.id), [`search-expiration: Your search subscription expires on ${soonDay}.`]);
    // The next day, once more each.
    await writeDailyNotices(db, day(1), settings);
    assert.equal((await noticesOf(all.id)).length, 10);
    assert.deepEqual(await noticesOf(quiet.id), []);
    const links = await db.selectFrom('notifications').select(['type', 'link']).where('user_id', '=', all.id).execute();
    assert.ok(links.every((n) => n.link?.startsWith('/subscriptions')));
  });
});

describe('notify:global', () => {
  test('one row per open account, seen and deleted per user; accounts opened later do not get it', { timeout: 60_000 }, async () => {
    const a = await signedIn(server);
    const b = await signedIn(server);
    const closed = await signedIn(server);
    await server.runtime.db.updateTable('users').set({ closed_at: new Date() }).where('id', '=', closed.id).execute();
    const env = { ...process.env, DATABASE_URL: server.runtime.config.DATABASE_URL, DATA_DIR: server.runtime.config.dataDir };
    const message = 'Scheduled maintenance <b>tonight</b> & tomorrow';
    const { stdout } = await run(process.execPath, [...cliArgs('admin'), 'notify:global', '--message', message], { cwd: ROOT, env });
    assert.match(stdout, /^Posted to \d+ accounts?\.\n$/);
    const rows = await server.runtime.db.selectFrom('notifications').select(['user_id', 'global', 'type', 'data']).where('type', '=', 'global').execute();
    const open = await server.runtime.db.selectFrom('users').select('id').where('closed_at', 'is', null).execute();
    assert.equal(rows.length, open.length);
    assert.equal(Number(/Posted to (\d+)/.exec(stdout)![1]), open.length);
    assert.ok(!rows.some((r) => r.user_id === closed.id));
    assert.ok(rows.every((r) => r.global && r.data === message));

    const later = await signedIn(server);
    assert.equal((await inbox(later.token, 1, 20)).body.total, 0);
    // A reads it: A's dot goes out, B's stays.
    const seenByA = await inbox(a.token, 1, 20);
    const notice = seenByA.body.notifications.find((n: { type: string }) => n.type === 'global');
    assert.deepEqual([notice.global, notice.data, notice.seen], [true, message, false]);
    assert.equal(await dot(a.token), false);
    assert.equal(await dot(b.token), true);
    // A deletes it: B still has it.
    await call(server.url, 'POST', '/notifications/delete', { token: a.token, body: { ids: [notice.id] } });
    assert.equal((await inbox(b.token, 1, 20)).body.notifications.filter((n: { type: string }) => n.type === 'global').length, 1);

    const refused = await run(process.execPath, [...cliArgs('admin'), 'notify:global'], { cwd: ROOT, env }).catch((e: { code: number; stderr: string }) => e);
    assert.equal((refused as { code: number }).code, 2);
    assert.match((refused as { stderr: string }).stderr, /--message/);
  });
});
