/**
 * /monitoring/* and the channel editing of /subscriptions/monitoring against the
 * real server, engine and job runner: the overview per tier, tasks of every kind (the
 * documented messages before sending, the server's on refusal, the 10-task limit of the free
 * tier), channels (add, edit, disable, the webhook secret shown once), a report made by
 * an ingest with its entries as text and its CSV export. Desktop and mobile screenshots.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import { MONITORING_MESSAGES } from '../../server/src/common/monitoring-rules';
import { clearToasts, eventually, MOBILE, textOf, toastAfter } from './support/browser';
import { addTaskByApi, call, screenshot, signInAs, signInTo, waitForReports } from './support/monitoring';
import { useServerAndBrowser } from './support/suite';
import { csvRecords, parseCsv } from './support/csv';

const suite = useServerAndBrowser();
const open = (target: string, options?: Parameters<typeof signInTo>[3], viewport?: typeof MOBILE) =>
  signInTo(suite.server, suite.browser, target, options, viewport);

const values = (page: Page) => page.getByTestId('task-value').allTextContents();
const tab = (page: Page, title: string) => page.getByRole('tab', { name: new RegExp(`^${title}`) });
const dialog = (page: Page) => page.getByRole('dialog');
const problem = (page: Page) => textOf(page.getByTestId('task-problem'));
const block = (page: Page, kind: string) => page.getByTestId(`channel-block-${kind}`);

async function submitTask(page: Page, value: string): Promise<void> {
  await page.locator('input[name="task-value"]').fill(value);
  await dialog(page).getByRole('button', { name: /^(Add|Save)$/ }).click();
}

test('overview: the tier tag, the upgrade link only below enterprise, usage and the way to tasks and channels', async () => {
  const { page } = await open('/monitoring/manage');
  await eventually(() => textOf(page.getByTestId('tier-tag')), 'Free');
  const upgrade = page.getByRole('link', { name: 'Upgrade to Enterprise' });
  assert.equal(await upgrade.getAttribute('href'), '/subscriptions');
  assert.match(await textOf(page.getByTestId('usage-standard')), /Standard tasks\s*0 \/ 10/);
  assert.match(await textOf(page.getByTestId('usage-domain')), /Domain tasks\s*0 \/ 0/);
  assert.match(await textOf(page.getByTestId('usage-webhooks')), /Webhooks\s*0 \/ 0/);
  await eventually(() => textOf(page.getByTestId('channel-summary-email').locator('dd')), 'Not set');
  assert.equal(await textOf(page.getByTestId('channel-summary-webhook').locator('dd')), 'Not in your plan');
  assert.equal(await textOf(page.locator('.breadcrumb')), 'Monitoring');
  assert.equal(await page.getByRole('link', { name: 'View Reports' }).isVisible(), false, 'the reports link is for mobile');
  await screenshot(page, 'monitoring-manage-desktop');

  await page.getByRole('link', { name: 'Manage Tasks' }).click();
  await page.waitForURL((url) => url.pathname === '/monitoring/manage/tasks');
  await page.getByRole('heading', { name: 'Monitor Tasks' }).waitFor();
  await page.goBack();
  await page.getByRole('link', { name: 'Manage Channels' }).click();
  await page.waitForURL((url) => url.pathname === '/monitoring/manage/channels');
  await page.getByRole('heading', { name: 'Notification Channels' }).waitFor();
  await page.context().close();

  for (const [grant, label, tasks] of [
    [{ enterprise: true }, 'Enterprise', '0 / 500'],
    [{ elevated: true }, 'Elevated', '0 / 10,000'],
  ] as const) {
    const { page: other } = await open('/monitoring/manage', { verified: true, ...grant });
    await eventually(() => textOf(other.getByTestId('tier-tag')), label);
    assert.match(await textOf(other.getByTestId('usage-standard')), new RegExp(`Standard tasks\\s*${tasks}`));
    assert.equal(await other.getByRole('link', { name: 'Upgrade to Enterprise' }).count(), 0);
    if (label === 'Enterprise') await screenshot(other, 'monitoring-manage-enterprise');
    await other.context().close();
  }

  const { page: mobile } = await open('/monitoring/manage', undefined, MOBILE);
  await eventually(() => textOf(mobile.getByTestId('tier-tag')), 'Free');
  await screenshot(mobile, 'monitoring-manage-mobile');
  await mobile.getByRole('link', { name: 'View Reports' }).click();
  await mobile.waitForURL((url) => url.pathname === '/monitoring/reports');
  await mobile.context().close();
});

test('tasks: each kind refuses a bad value with the documented message before sending, adds a good one; duplicates get the server message', async () => {
  const { page, token } = await open('/monitoring/manage/tasks');
  const sent: string[] = [];
  page.on('request', (request) => {
    if (new URL(request.url()).pathname === '/monitoring/add-task') sent.push(request.postData() ?? '');
  });
  const cases = [
    ['Username', '', MONITORING_MESSAGES.empty, 'alice_watch'],
    ['Username', 'abc', MONITORING_MESSAGES.nameLength, 'bob_watch'],
    ['Email', 'not-an-email', MONITORING_MESSAGES.email, 'alice.watch@example.com'],
    ['Email', `${'a'.repeat(251)}@x.com`, MONITORING_MESSAGES.tooLong, 'bob.watch@example.com'],
    ['Phone', '555-1234', MONITORING_MESSAGES.phone, '15551234567'],
    ['Name', 'Al', MONITORING_MESSAGES.nameLength, 'Alice Watcher'],
  ] as const;
  for (const [title, bad, message, good] of cases) {
    await tab(page, title).click();
    await page.getByRole('button', { name: 'Add Task' }).click();
    await dialog(page).getByRole('heading', { name: `Add ${title} Task` }).waitFor();
    const before = sent.length;
    await submitTask(page, bad);
    assert.equal(await problem(page), message, `${title} "${bad}"`);
    assert.equal(sent.length, before, 'a bad value is not sent');
    await submitTask(page, good);
    await dialog(page).waitFor({ state: 'detached' });
    await eventually(async () => (await values(page)).includes(good), true);
  }
  await tab(page, 'Phone').click();
  await page.getByRole('button', { name: 'Add Task' }).click();
  assert.match(await textOf(dialog(page).locator('.field-note')), /Min 4 digits, max 15/);
  await screenshot(page, 'monitoring-task-dialog-desktop');
  await dialog(page).getByRole('button', { name: 'Cancel' }).click();

  // The same email in another case: the server refuses it and its words are shown.
  await tab(page, 'Email').click();
  await page.getByRole('button', { name: 'Add Task' }).click();
  await submitTask(page, 'ALICE.Watch@example.com');
  assert.equal(await problem(page), 'You are already monitoring this value');
  await dialog(page).getByRole('button', { name: 'Cancel' }).click();

  // Domain tasks are not in the free tier.
  await tab(page, 'Domain').click();
  await page.getByTestId('domain-note').waitFor();
  assert.equal(await toastAfter(page, () => page.getByRole('button', { name: 'Add Task' }).click()), MONITORING_MESSAGES.maxDomainTasks);
  assert.equal(await dialog(page).count(), 0);

  const { tasks } = await call<{ tasks: { key: string; value: string }[] }>(suite.server, token, '/monitoring/get-tasks', { page: 1 });
  assert.deepEqual(tasks.map((t) => `${t.key}:${t.value}`).sort(), cases.map(([title, , , good]) => `${title.toLowerCase()}:${good}`).sort());
  await tab(page, 'Username').click();
  await screenshot(page, 'monitoring-tasks-desktop');
  await page.context().close();

  // An enterprise user adds domain tasks; the domain rule is checked first.
  const { page: enterprise } = await open('/monitoring/manage/tasks', { verified: true, enterprise: true });
  await tab(enterprise, 'Domain').click();
  await enterprise.getByRole('button', { name: 'Add Task' }).click();
  await submitTask(enterprise, 'http://example.com/x');
  assert.equal(await problem(enterprise), MONITORING_MESSAGES.domain);
  await submitTask(enterprise, 'Watched-Domain.example');
  await eventually(() => values(enterprise), ['watched-domain.example']); // stored in its ASCII lower-case form
  await enterprise.context().close();
});

test('tasks: sorting both ways per column, edit, pause, select all and delete; failures toast', async () => {
  const { page, token } = await open('/monitoring/manage/tasks');
  for (const value of ['charlie_w', 'alpha_w', 'bravo_w']) await addTaskByApi(suite.server, token, 'username', value);
  await page.reload();
  await eventually(() => values(page), ['bravo_w', 'alpha_w', 'charlie_w']); // newest first
  const byValue = page.getByRole('button', { name: 'Sort by Value' });
  await byValue.click();
  await eventually(() => values(page), ['alpha_w', 'bravo_w', 'charlie_w']);
  assert.equal(await byValue.getAttribute('aria-label'), 'Sort by Value, ascending'); // the order is in the name: aria-sort is for table headers
  await byValue.click();
  await eventually(() => values(page), ['charlie_w', 'bravo_w', 'alpha_w']);
  assert.equal(await byValue.getAttribute('aria-label'), 'Sort by Value, descending');
  await page.getByRole('button', { name: 'Sort by Created' }).click();
  await eventually(() => values(page), ['charlie_w', 'alpha_w', 'bravo_w']);

  await page.getByRole('button', { name: 'Edit bravo_w' }).click();
  await submitTask(page, 'no');
  assert.equal(await problem(page), MONITORING_MESSAGES.nameLength);
  await submitTask(page, 'bravo_renamed');
  await dialog(page).waitFor({ state: 'detached' });
  await eventually(() => values(page), ['charlie_w', 'alpha_w', 'bravo_renamed']);

  await page.getByRole('button', { name: 'Pause alpha_w' }).click();
  await page.getByRole('button', { name: 'Resume alpha_w' }).waitFor();
  const { tasks } = await call<{ tasks: { value: string; active: boolean }[] }>(suite.server, token, '/monitoring/get-tasks', { page: 1 });
  assert.equal(tasks.find((t) => t.value === 'alpha_w')?.active, false);
  await page.getByRole('button', { name: 'Sort by Status' }).click();
  await eventually(async () => (await values(page))[0], 'alpha_w');

  // Failures of the server say the documented toasts.
  await page.route('**/monitoring/update-task', (route) => route.fulfill({ status: 500, contentType: 'application/json', body: '{"error":"Internal Server Error"}' }));
  assert.equal(await toastAfter(page, () => page.getByRole('button', { name: 'Resume alpha_w' }).click()), 'could not update task');
  await page.unroute('**/monitoring/update-task');
  await page.route('**/monitoring/add-task', (route) => route.fulfill({ status: 500, contentType: 'application/json', body: '{"error":"Internal Server Error"}' }));
  await page.getByRole('button', { name: 'Add Task' }).click();
  assert.equal(await toastAfter(page, () => submitTask(page, 'delta_w')), 'could not create new task');
  assert.equal(await dialog(page).count(), 1, 'the dialog stays open');
  await dialog(page).getByRole('button', { name: 'Cancel' }).click();
  await page.unroute('**/monitoring/add-task');
  await page.route('**/monitoring/delete-tasks', (route) => route.fulfill({ status: 500, contentType: 'application/json', body: '{"error":"Internal Server Error"}' }));
  await page.getByRole('button', { name: 'Delete charlie_w' }).click();
  assert.equal(await toastAfter(page, () => dialog(page).getByRole('button', { name: 'Delete' }).click()), 'could not remove tasks');
  await dialog(page).getByRole('button', { name: 'Cancel' }).click();
  await page.unroute('**/monitoring/delete-tasks');
  await clearToasts(page);

  // Select all, then delete the selection.
  await page.getByRole('checkbox', { name: 'Select all' }).check();
  await page.getByRole('button', { name: 'Delete Selected (3)' }).click();
  await dialog(page).getByRole('heading', { name: 'Delete Tasks' }).waitFor();
  await dialog(page).getByRole('button', { name: 'Delete' }).click();
  await page.getByTestId('tasks-empty').waitFor();
  assert.equal(await textOf(page.getByTestId('tasks-empty')), 'No username tasks yet.');
  const after = await call<{ total: number }>(suite.server, token, '/monitoring/get-tasks', { page: 1 });
  assert.equal(after.total, 0);
  await page.context().close();
});

test('tasks: the free tier stops at 10 with the documented message', async () => {
  const { page, token } = await open('/monitoring/manage/tasks');
  for (let i = 0; i < 9; i++) await addTaskByApi(suite.server, token, 'email', `limit${i}@example.com`);
  await page.reload();
  await tab(page, 'Email').click();
  await eventually(async () => (await values(page)).length, 9);
  await page.getByRole('button', { name: 'Add Task' }).click();
  await submitTask(page, 'limit9@example.com');
  await dialog(page).waitFor({ state: 'detached' });
  await eventually(() => textOf(page.getByTestId('tasks-usage')), 'Standard tasks: 10 / 10');
  assert.equal(await toastAfter(page, () => page.getByRole('button', { name: 'Add Task' }).click()), MONITORING_MESSAGES.maxTasks);
  assert.equal(await dialog(page).count(), 0);
  await tab(page, 'Name').click();
  assert.equal(await toastAfter(page, () => page.getByRole('button', { name: 'Add Task' }).click()), MONITORING_MESSAGES.maxTasks);
  // The server says the same when asked directly.
  await assert.rejects(addTaskByApi(suite.server, token, 'name', 'Over The Limit'), new RegExp(MONITORING_MESSAGES.maxTasks.replace(/[()]/g, '\\$&')));
  await screenshot(page, 'monitoring-tasks-limit');
  // At the maximum a paused task resumes: it holds its place while paused.
  await tab(page, 'Email').click();
  await page.getByRole('button', { name: 'Pause limit0@example.com' }).click();
  await page.getByRole('button', { name: 'Resume limit0@example.com' }).click();
  await page.getByRole('button', { name: 'Pause limit0@example.com' }).waitFor();
  assert.equal(await textOf(page.getByTestId('tasks-usage')), 'Standard tasks: 10 / 10');

  // Mobile: rows as cards, nothing wider than the screen.
  await page.setViewportSize(MOBILE);
  await page.waitForTimeout(300); // the sidebar slides away for the narrow layout
  await tab(page, 'Email').click();
  await eventually(async () => (await values(page)).length, 10);
  assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), 'no sideways scrolling');
  await screenshot(page, 'monitoring-tasks-mobile');
  await page.context().close();
});

test('channels: email add, edit (Confirm stays on refusal), disable; SMS beyond the free plan goes to the purchase page', async () => {
  const { page, token } = await open('/monitoring/manage/channels');
  await page.getByText('Manage the way you get notified.').waitFor();
  assert.deepEqual(await page.locator('.channel-block h2').allTextContents(), ['SMS', 'Email', 'Webhook']);
  const email = block(page, 'email');
  await email.getByRole('button', { name: 'Add Email' }).click();
  await email.getByRole('button', { name: 'Confirm' }).click();
  assert.equal(await textOf(email.getByTestId('channel-problem')), MONITORING_MESSAGES.empty);
  await email.locator('input[name="channel-email"]').fill('not an email');
  await email.getByRole('button', { name: 'Confirm' }).click();
  assert.equal(await textOf(email.getByTestId('channel-problem')), MONITORING_MESSAGES.email);
  await email.locator('input[name="channel-email"]').fill('alerts@example.com');
  await email.getByRole('button', { name: 'Confirm' }).click();
  await eventually(() => textOf(email.getByTestId('channel-value')), 'alerts@example.com');
  assert.equal(await textOf(email.getByTestId('channel-updated')), 'Just Now');

  await email.getByRole('button', { name: 'Edit Email' }).click();
  await email.locator('input[name="channel-email"]').fill('still wrong');
  await email.getByRole('button', { name: 'Confirm' }).click();
  assert.equal(await textOf(email.getByTestId('channel-problem')), MONITORING_MESSAGES.email);
  assert.equal(await email.locator('input[name="channel-email"]').isVisible(), true, 'Confirm leaves edit mode only on success');
  // A cleared field is 'invalid input', not a silent disable (Disable is its own button).
  await email.locator('input[name="channel-email"]').fill('');
  await email.getByRole('button', { name: 'Confirm' }).click();
  assert.equal(await textOf(email.getByTestId('channel-problem')), MONITORING_MESSAGES.empty);
  await email.locator('input[name="channel-email"]').fill('changed@example.com');
  await email.getByRole('button', { name: 'Confirm' }).click();
  await eventually(() => textOf(email.getByTestId('channel-value')), 'changed@example.com');
  assert.equal(await email.locator('input[name="channel-email"]').count(), 0);
  await screenshot(page, 'monitoring-channels-desktop');

  // A second email channel passes the free tier's one channel: the documented message.
  assert.equal(await toastAfter(page, () => email.getByRole('button', { name: 'Add Email' }).click()), MONITORING_MESSAGES.maxChannels);

  await page.route('**/notification-channels/update', (route) => route.fulfill({ status: 500, contentType: 'application/json', body: '{"error":"Internal Server Error"}' }));
  assert.equal(await toastAfter(page, () => email.getByRole('button', { name: 'Disable Email' }).click()), 'could not update channel');
  await page.unroute('**/notification-channels/update');
  await email.getByRole('button', { name: 'Disable Email' }).click();
  await eventually(() => textOf(email.getByTestId('channel-value')), 'Disabled');
  const { notification_channels: channels } = await call<{ notification_channels: { key: string; value: string }[] }>(
    suite.server,
    token,
    '/notification-channels/get',
    {},
  );
  assert.deepEqual(channels.map((c) => [c.key, c.value]), [['email', '']]);

  await block(page, 'phone').getByRole('button', { name: 'Add SMS' }).click();
  await page.waitForURL((url) => url.pathname === '/subscriptions/monitoring');
  await page.context().close();
});

test('channels: a webhook on enterprise (refused targets, the secret shown once), SMS', async () => {
  const { page, token } = await open('/monitoring/manage/channels', { verified: true, enterprise: true });
  const webhook = block(page, 'webhook');
  const input = webhook.locator('input[name="channel-webhook"]');
  await webhook.getByRole('button', { name: 'Add Webhook' }).click();
  assert.equal(await textOf(webhook.locator('.field-note')), MONITORING_MESSAGES.webhookHint);
  await input.fill('ftp://hooks.example.com/x');
  await webhook.getByRole('button', { name: 'Confirm' }).click();
  assert.equal(await textOf(webhook.getByTestId('channel-problem')), MONITORING_MESSAGES.url);
  await input.fill('http://127.0.0.1:9/hook');
  await webhook.getByRole('button', { name: 'Confirm' }).click();
  assert.equal(await textOf(webhook.getByTestId('channel-problem')), 'Webhook URL points to a private, loopback or reserved address');
  await input.fill('https://93.184.216.34/monitoring-hook');
  await webhook.getByRole('button', { name: 'Confirm' }).click();

  const modal = page.getByRole('dialog', { name: 'Webhook Signing Secret' });
  const secret = await textOf(modal.getByTestId('webhook-secret'));
  assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
  assert.match(await textOf(modal.getByRole('note')), /it will not be shown again/);
  await screenshot(page, 'monitoring-webhook-secret');
  await modal.getByRole('button', { name: 'Done' }).click();
  await modal.waitFor({ state: 'detached' });
  await eventually(() => textOf(webhook.getByTestId('channel-value')), 'https://93.184.216.34/monitoring-hook');
  assert.equal(await page.getByText(secret).count(), 0, 'the secret is not shown again');
  assert.match(await textOf(webhook.locator('.channel-facts')), new RegExp(`…${secret.slice(-4).replace(/[+/=]/g, '\\$&')}`));
  await page.reload();
  await eventually(() => textOf(block(page, 'webhook').getByTestId('channel-value')), 'https://93.184.216.34/monitoring-hook');
  assert.equal(await page.getByText(secret).count(), 0);

  const sms = block(page, 'phone');
  await sms.getByRole('button', { name: 'Add SMS' }).click();
  await sms.locator('input[name="channel-phone"]').fill('+1 555 123');
  await sms.getByRole('button', { name: 'Confirm' }).click();
  assert.equal(await textOf(sms.getByTestId('channel-problem')), MONITORING_MESSAGES.phone);
  await sms.locator('input[name="channel-phone"]').fill('15551234567');
  await sms.getByRole('button', { name: 'Confirm' }).click();
  await eventually(() => textOf(sms.getByTestId('channel-value')), '15551234567');
  const { notification_channels: channels } = await call<{ notification_channels: { key: string; value: string }[] }>(
    suite.server,
    token,
    '/notification-channels/get',
    {},
  );
  assert.deepEqual(channels.map((c) => c.key).sort(), ['phone', 'webhook']);
  await screenshot(page, 'monitoring-channels-enterprise');
  await page.setViewportSize(MOBILE);
  await page.waitForTimeout(300); // the sidebar slides away for the narrow layout
  assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), 'no sideways scrolling');
  await screenshot(page, 'monitoring-channels-mobile');
  await page.context().close();
});

test('purchase page: channel editing (Issue validating, empty removes)', async () => {
  const { page, token } = await open('/monitoring/manage/channels');
  await block(page, 'phone').getByRole('button', { name: 'Add SMS' }).click();
  await page.waitForURL((url) => url.pathname === '/subscriptions/monitoring');
  const email = page.getByTestId('plan-channel-email');
  await eventually(() => textOf(email.getByTestId('plan-channel-value')), 'Not set');
  assert.equal(await textOf(page.getByTestId('plan-channel-phone').getByTestId('plan-channel-value')), 'Not in your plan');

  await email.getByRole('button', { name: 'Edit Email channel' }).click();
  await email.getByRole('textbox', { name: 'Email channel' }).fill('nope');
  assert.equal(await toastAfter(page, () => email.getByRole('button', { name: 'Save' }).click()), 'Issue validating email');
  await email.getByRole('textbox', { name: 'Email channel' }).fill('plan@example.com');
  await page.route('**/notification-channels/add', (route) => route.fulfill({ status: 500, contentType: 'application/json', body: '{"error":"Internal Server Error"}' }));
  assert.equal(await toastAfter(page, () => email.getByRole('button', { name: 'Save' }).click()), 'Issue updating email');
  await page.unroute('**/notification-channels/add');
  await email.getByRole('button', { name: 'Save' }).click();
  await eventually(() => textOf(email.getByTestId('plan-channel-value')), 'plan@example.com');
  await screenshot(page, 'subscriptions-monitoring-channels');

  await email.getByRole('button', { name: 'Edit Email channel' }).click();
  await email.getByRole('textbox', { name: 'Email channel' }).fill('');
  await email.getByRole('button', { name: 'Save' }).click();
  await eventually(() => textOf(email.getByTestId('plan-channel-value')), 'Not set');
  const { notification_channels: channels } = await call<{ notification_channels: unknown[] }>(suite.server, token, '/notification-channels/get', {});
  assert.deepEqual(channels, [], 'an empty value removes the channel');
  await page.context().close();
});

const WELL = 'Monitor Test Well';
const TARGET = 'report.target@example.com';
const HOSTILE = '<img src=x onerror=alert(1)>';
const FORMULA = '\n=HYPERLINK("http://evil.example/x","click")';

test('reports: an ingest makes a report; list, overview with entries as text, CSV export, mobile drawer; the notice links to it', async () => {
  const { page, token, user } = await open('/monitoring/reports', { verified: true, searchDays: 30 });
  await page.getByTestId('reports-empty').waitFor();
  assert.equal(await textOf(page.getByTestId('reports-empty')), 'No reports to show.');
  assert.equal(await textOf(page.getByTestId('report-none')), 'No report selected.Manage your monitoring');
  await screenshot(page, 'monitoring-reports-empty');

  await addTaskByApi(suite.server, token, 'email', TARGET);
  await addTaskByApi(suite.server, token, 'username', 'report_target');
  await suite.server.ingest(WELL, [
    { email: [TARGET, 'second.address@example.com'], password: FORMULA, name: HOSTILE },
    { username: 'report_target', email: 'someone.else@example.com' },
    { email: 'unrelated@example.com', username: 'nobody_here' },
  ]);
  const [summary] = await waitForReports(suite.server, token);
  assert.equal(summary!.results, 2);

  await page.reload();
  await eventually(() => page.getByTestId('report-item').count(), 1);
  assert.match(await textOf(page.getByTestId('report-item')), new RegExp(WELL));
  await page.getByTestId('report-item').click();
  await page.waitForURL((url) => url.pathname === `/monitoring/reports/${summary!.id}`);
  const view = page.getByTestId('report-view');
  await view.waitFor();
  assert.equal(await textOf(view.getByTestId('report-database')), WELL);
  assert.equal(await page.getByTestId('report-task').count(), 2);
  assert.equal(await page.getByTestId('report-entry').count(), 2);
  // Hostile values are text.
  await page.getByText(HOSTILE, { exact: true }).waitFor();
  assert.equal(await page.locator('.report-view img').count(), 0);
  await screenshot(page, 'monitoring-report-desktop');

  const [download] = await Promise.all([page.waitForEvent('download'), view.getByRole('button', { name: 'Export CSV' }).click()]);
  assert.match(download.suggestedFilename(), new RegExp(`^breach-${summary!.id}-\\d{4}-\\d{2}-\\d{2}T\\d{2}-\\d{2}-\\d{2}\\.csv$`));
  const csv = fs.readFileSync((await download.path())!, 'utf8');
  const [columns] = parseCsv(csv);
  assert.deepEqual(columns!.slice(0, 2), ['task_type', 'task_value']);
  assert.ok(columns!.includes('email_0') && columns!.includes('email_1'), columns!.join());
  assert.ok(!columns!.includes('email_2'));
  const records = csvRecords(csv);
  assert.equal(records.length, 2);
  const emailRow = records.find((r) => r.task_type === 'email')!;
  assert.equal(emailRow.task_value, TARGET);
  assert.deepEqual([emailRow.email_0, emailRow.email_1].sort(), [TARGET, 'second.address@example.com'].sort());
  assert.equal(emailRow.password_0, `'\n=HYPERLINK("http://evil.example/x","click")`, 'the formula behind a newline is neutralised, every character kept');
  assert.equal(records.find((r) => r.task_type === 'username')!.username_0, 'report_target');

  // The report's notice: the dot, and a link to the report.
  await eventually(() => page.getByTestId('bell-dot').count(), 1, 35_000);
  await page.getByRole('link', { name: 'Notifications' }).first().click();
  const notice = page.getByTestId('notification').first();
  await notice.getByRole('link', { name: 'View Report' }).click();
  await page.waitForURL((url) => url.pathname === `/monitoring/reports/${summary!.id}`);
  await page.getByTestId('report-view').waitFor();
  await page.context().close();

  // Mobile: the list is a drawer beside the overview.
  const phone = await signInAs(suite.server, suite.browser, user, `/monitoring/reports/${summary!.id}`, MOBILE);
  await phone.getByTestId('report-view').waitFor();
  assert.equal(await phone.locator('.reports-list').isVisible(), false);
  await screenshot(phone, 'monitoring-report-mobile');
  await phone.getByRole('button', { name: 'Reports' }).click();
  await phone.locator('.reports-list').waitFor({ state: 'visible' });
  await phone.waitForTimeout(300); // the drawer slides in for 0.2 s
  await screenshot(phone, 'monitoring-reports-drawer-mobile');
  await phone.getByTestId('report-item').click();
  await eventually(() => phone.locator('.reports-list').isVisible(), false);
  await phone.context().close();
});
