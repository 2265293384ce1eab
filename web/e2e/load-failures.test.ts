/**
 * A load that fails is shown as a failure, never as empty data: with the one call a page needs
 * cut off at the network (the browser gets no answer at all, as when the connection drops),
 * each page says what it could not load, in an alert, and Try again loads it once the network
 * is back. Against the real server: only the network between the page and it is cut.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import { textOf } from './support/browser';
import { signInTo } from './support/monitoring';
import { useServerAndBrowser } from './support/suite';

const suite = useServerAndBrowser();

/** Cuts the page's own calls to `pathname` (not the navigation to a page of the same path). */
async function cut(page: Page, pathname: string): Promise<() => Promise<void>> {
  const matches = (url: URL) => url.pathname === pathname;
  await page.route(matches, (route) => {
    const type = route.request().resourceType();
    return type === 'fetch' || type === 'xhr' ? route.abort('failed') : route.continue();
  });
  return () => page.unroute(matches);
}

async function failsThenRecovers(target: string, calls: string[], heading: string, recovered: (page: Page) => Promise<unknown>) {
  const { page } = await signInTo(suite.server, suite.browser, '/search');
  const restores = [];
  for (const call of calls) restores.push(await cut(page, call));
  await page.goto(target);
  const alert = page.getByTestId('load-failed');
  await alert.waitFor();
  assert.equal(await alert.getAttribute('role'), 'alert');
  assert.equal(await textOf(alert.getByRole('heading')), heading);
  for (const restore of restores) await restore();
  await alert.getByRole('button', { name: 'Try again' }).click();
  await recovered(page);
  assert.equal(await page.getByTestId('load-failed').count(), 0);
  await page.context().close();
}

test('monitoring overview: no "0 / 0" when the plan could not be read', async () => {
  await failsThenRecovers('/monitoring/manage', ['/monitoring/info'], 'Could not load your monitoring', (page) =>
    page.getByTestId('usage-standard').waitFor(),
  );
});

test('monitor tasks: no empty list and no zero counts when the tasks could not be read', async () => {
  await failsThenRecovers('/monitoring/manage/tasks', ['/monitoring/get-tasks'], 'Could not load your tasks', async (page) => {
    await page.getByRole('checkbox', { name: 'Select all' }).waitFor();
    assert.equal(await page.locator('.task-tab-count').count() > 0, true);
  });
});

test('channels: no "Not set" when the channels could not be read', async () => {
  await failsThenRecovers('/monitoring/manage/channels', ['/notification-channels/get'], 'Could not load your channels', (page) =>
    page.getByTestId('channel-block-email').waitFor(),
  );
});

test('notifications, subscriptions and payment history say the load failed', async () => {
  await failsThenRecovers('/notifications', ['/notifications/get'], 'Could not load your notifications', (page) =>
    page.getByTestId('notifications-empty').waitFor(),
  );
  await failsThenRecovers('/subscriptions', ['/subscriptions'], 'Could not load your subscriptions', (page) =>
    page.locator('.subs-grid').waitFor(),
  );
  await failsThenRecovers('/subscriptions/payment-history', ['/user/payment-history'], 'Could not load your payment history', (page) =>
    page.getByTestId('history-empty').waitFor(),
  );
});

test('profile: the settings cards say they could not be loaded, where they were', async () => {
  await failsThenRecovers('/profile', ['/user/profile'], 'Could not load your settings', (page) =>
    page.getByRole('heading', { name: 'Notifications', exact: true }).waitFor(),
  );
});
