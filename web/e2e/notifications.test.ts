/**
 * /notifications and the navigation dot against the real server: the empty state
 * and its shortcuts, the loading text, unseen notices highlighted once (the server marks a
 * page seen after reading it), 20 or 40 a page, single delete, select all and delete of
 * the selection, the failure toast, hostile text as text, and the dot going out once every
 * notice has been read.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import { eventually, MOBILE, textOf, toastAfter } from './support/browser';
import { addNotice, call, screenshot, signInAs, signInTo } from './support/monitoring';
import { useServerAndBrowser } from './support/suite';

const suite = useServerAndBrowser();

const rows = (page: Page) => page.getByTestId('notification');
const seenFlags = (page: Page) => rows(page).evaluateAll((items) => items.map((item) => item.getAttribute('data-seen')));
const sidebarDot = (page: Page) => page.getByTestId('unread-dot').count();
const bellDot = (page: Page) => page.getByTestId('bell-dot').count();
const HOSTILE = '<img src=x onerror="window.__pwned=1">';

test('empty inbox: the loading text, then the empty state with its shortcuts', async () => {
  const { page, user } = await signInTo(suite.server, suite.browser, '/search');
  await page.route('**/notifications/get', async (route) => {
    await new Promise((resolve) => setTimeout(resolve, 600));
    await route.continue();
  });
  await page.getByRole('complementary', { name: 'Main navigation' }).getByRole('link', { name: 'Notifications' }).click();
  await page.waitForURL((url) => url.pathname === '/notifications');
  assert.equal(await textOf(page.getByText('Loading Notifications...')), 'Loading Notifications...');
  const empty = page.getByTestId('notifications-empty');
  await empty.waitFor();
  assert.equal(await textOf(empty.getByRole('heading')), "You don't have any notifications");
  const links = await empty.getByRole('link').evaluateAll((anchors) => anchors.map((a) => a.getAttribute('href')));
  assert.deepEqual(links, ['/search', '/monitoring/manage', '/documentation/api', '/whois']);
  assert.equal(await textOf(page.locator('.breadcrumb')), 'Notifications');
  assert.equal(await sidebarDot(page), 0);
  await screenshot(page, 'notifications-empty-desktop');
  await page.context().close();

  const mobile = await signInAs(suite.server, suite.browser, user, '/notifications', MOBILE);
  await mobile.getByTestId('notifications-empty').waitFor();
  await screenshot(mobile, 'notifications-empty-mobile');
  await mobile.context().close();
});

test('inbox: the dot, unseen highlighted once, 20 or 40 a page, delete one, selected, all; failures toast', async () => {
  const user = await suite.server.createUser({ verified: true });
  const types = ['report', 'delivery-failed', 'search-expiration', 'low-search-credits', 'global'] as const;
  for (let i = 0; i < 25; i++) {
    const type = types[i % types.length]!;
    await addNotice(suite.server, {
      userId: user.id,
      type,
      data: i === 24 ? HOSTILE : `Notice number ${i}`,
      link: type === 'report' ? `/monitoring/reports/${1000 + i}` : null,
    });
    await new Promise((resolve) => setTimeout(resolve, 2)); // distinct times: newest first is well defined
  }
  const page = await signInAs(suite.server, suite.browser, user, '/search');
  await eventually(() => sidebarDot(page), 1);
  assert.equal(await bellDot(page), 1);

  await page.getByRole('link', { name: 'Notifications', exact: true }).first().click();
  await page.waitForURL((url) => url.pathname === '/notifications');
  await eventually(() => rows(page).count(), 20);
  assert.deepEqual(await seenFlags(page), Array(20).fill('false'), 'a first read shows every notice unseen');
  assert.equal(await page.locator('.inbox-row.unseen').count(), 20);
  // Newest first; hostile text stays text.
  assert.equal(await textOf(rows(page).first().getByTestId('notification-text')), HOSTILE);
  assert.equal(await page.locator('.inbox img').count(), 0);
  assert.equal(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned), undefined);
  assert.equal(await textOf(rows(page).nth(4).locator('.inbox-type')), 'New Report');
  assert.equal(await rows(page).nth(4).getByRole('link', { name: 'View Report' }).getAttribute('href'), '/monitoring/reports/1020');
  await screenshot(page, 'notifications-desktop');
  // Five on page 2 are still unseen: the dot stays.
  assert.equal(await sidebarDot(page), 1);

  await page.getByRole('combobox', { name: 'Per page' }).selectOption('40');
  await eventually(() => rows(page).count(), 25);
  assert.deepEqual(await seenFlags(page), [...Array(20).fill('true'), ...Array(5).fill('false')]);
  assert.equal(await page.getByRole('navigation', { name: 'Pagination' }).count(), 0);
  await eventually(() => sidebarDot(page), 0);
  assert.equal(await bellDot(page), 0);

  // Delete one.
  const first = rows(page).first();
  await first.getByRole('button', { name: /^Delete / }).click();
  await eventually(() => rows(page).count(), 24);
  assert.equal(await page.getByText(HOSTILE).count(), 0);

  // A refused delete says so and the rows come back.
  await page.route('**/notifications/delete', (route) => route.fulfill({ status: 500, contentType: 'application/json', body: '{"error":"Internal Server Error"}' }));
  assert.equal(await toastAfter(page, () => rows(page).first().getByRole('button', { name: /^Delete / }).click()), 'issue removing notifications');
  await eventually(() => rows(page).count(), 24);
  await page.unroute('**/notifications/delete');

  // Delete a selection of two.
  await rows(page).nth(0).getByRole('checkbox').check();
  await rows(page).nth(1).getByRole('checkbox').check();
  await page.getByRole('button', { name: 'Delete Selected (2)' }).click();
  await eventually(() => rows(page).count(), 22);

  // Select all, delete: the empty state.
  await page.getByRole('checkbox', { name: 'Select all' }).check();
  await page.getByRole('button', { name: 'Delete Selected (22)' }).click();
  await page.getByTestId('notifications-empty').waitFor();
  const { token } = await suite.server.login(user.email, user.password);
  const { total } = await call<{ total: number }>(suite.server, token, '/notifications/get', { page: 1, per_page: 20 });
  assert.equal(total, 0);
  await page.context().close();
});

test('mobile inbox and the dot on the bell', async () => {
  const user = await suite.server.createUser({ verified: true });
  for (let i = 0; i < 3; i++) await addNotice(suite.server, { userId: user.id, type: 'global', data: `Maintenance window ${i} tonight, searches may be slower.` });
  const page = await signInAs(suite.server, suite.browser, user, '/search', MOBILE);
  await eventually(() => bellDot(page), 1);
  await page.getByRole('link', { name: 'Notifications' }).first().click();
  await eventually(() => rows(page).count(), 3);
  assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), 'no sideways scrolling');
  await screenshot(page, 'notifications-mobile');
  await eventually(() => bellDot(page), 0);
  await page.context().close();
});
