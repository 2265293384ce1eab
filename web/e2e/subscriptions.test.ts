/**
 * /subscriptions, /subscriptions/payment-history and /event-codes against the real
 * server: plan blocks per user state, event-code redemption, the empty payment history.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import { eventually, logInThroughForm, openPage, textOf, toastAfter } from './support/browser';
import { createEventCode, credits, facts, openSubscriptions } from './support/billing';
import { uniqueEmail, type UserOptions } from './support/server';
import { useServerAndBrowser } from './support/suite';
import { payWithSandbox } from '../../server/test/support/harness';

const suite = useServerAndBrowser();

async function signIn(path: string, options: UserOptions = {}): Promise<{ page: Page; email: string }> {
  const user = await suite.server.createUser({ email: uniqueEmail('subs'), verified: true, ...options });
  const page = await openPage(suite.browser, suite.server.url);
  // GET /subscriptions is also the API's summary (docs/payments.md), so the page
  // is reached the way the sidebar reaches it: from another page, without a document load.
  const direct = path !== '/subscriptions';
  await page.goto(direct ? path : '/profile');
  await page.waitForURL((url) => url.pathname === '/login');
  await logInThroughForm(page, user.email, user.password);
  await page.waitForURL((url) => url.pathname === new URL(direct ? path : '/profile', 'http://x').pathname);
  if (!direct) await openSubscriptions(page);
  return { page, email: user.email };
}

test('a new user: nothing active, Cancel disabled, Purchase links, 0 CR, no domains', async () => {
  const { page } = await signIn('/subscriptions');
  await page.getByRole('heading', { name: 'Subscriptions', level: 1 }).waitFor();
  assert.deepEqual(await facts(page, 'Search'), { Status: 'Not active', 'Auto-renew': 'No', Expires: 'N/A' });
  const search = page.getByRole('region', { name: 'Search', exact: true });
  assert.equal(await search.getByRole('button', { name: 'Cancel Search' }).isDisabled(), true);
  assert.equal(await search.getByRole('link', { name: 'Purchase' }).getAttribute('href'), '/subscriptions/search');
  assert.equal(await credits(page, 'API credits'), '0 CR');
  assert.equal(await credits(page, 'WHOIS credits'), '0 CR');
  assert.deepEqual(await facts(page, 'Monitoring'), { Plan: 'Start (free)', 'Auto-renew': 'No', Expires: 'N/A' });
  const domains = page.getByRole('region', { name: 'Domains' });
  assert.match(await textOf(domains), /No monitored domains yet/);
  assert.equal(await domains.getByRole('link', { name: 'Add Domain' }).getAttribute('href'), '/subscriptions/monitoring');
  assert.equal(await page.getByRole('link', { name: 'Payment History' }).getAttribute('href'), '/subscriptions/payment-history');
  await page.getByTestId('api-key-control').waitFor();
  await page.context().close();
});

test('granted time and credits show; an elevated user is Elevated, never expires, infinite API credits', async () => {
  const { page } = await signIn('/subscriptions', { searchDays: 30, searchCredits: 1234, whoisCredits: 55 });
  await eventually(async () => (await facts(page, 'Search')).Status, 'Active');
  assert.match((await facts(page, 'Search')).Expires!, /^[A-Z][a-z]{2} \d{1,2}, \d{4}$/);
  assert.equal(await credits(page, 'API credits'), '1,234 CR');
  assert.equal(await credits(page, 'WHOIS credits'), '55 CR');
  await page.context().close();

  const elevated = (await signIn('/subscriptions', { elevated: true, whoisCredits: 3 })).page;
  assert.deepEqual(await facts(elevated, 'Search'), { Status: 'Elevated (always active)', 'Auto-renew': 'No', Expires: 'Never' });
  assert.equal(await credits(elevated, 'API credits'), '∞');
  assert.equal(await credits(elevated, 'WHOIS credits'), '3 CR');
  await elevated.context().close();
});

test('event code from ?code= applies by itself and lists the grants; reusing it is invalid', async () => {
  const code = `E2E-${Date.now().toString(36).toUpperCase()}`;
  await createEventCode(suite.server, code, [
    { sku: 'search-credits', quantity: 250 },
    { sku: 'search-nonsub-weekly', quantity: 1 },
  ]);
  const { page } = await signIn(`/event-codes?code=${code.toLowerCase()}`);
  await page.getByRole('heading', { name: 'Event code applied successfully' }).waitFor();
  const grants = await page.getByTestId('event-code-grants').locator('li').allTextContents();
  assert.deepEqual(grants, ['Search Creditssearch-credits× 250', 'Weekly Search Subscriptionsearch-nonsub-weekly× 1']);

  await page.getByRole('link', { name: 'View Subscriptions' }).click();
  await page.waitForURL((url) => url.pathname === '/subscriptions');
  assert.equal((await facts(page, 'Search')).Status, 'Active');
  assert.equal(await credits(page, 'API credits'), '250 CR');

  await page.goto('/event-codes');
  await page.getByLabel('Event code').fill(code);
  assert.equal(await toastAfter(page, () => page.getByRole('button', { name: 'Submit' }).click()), 'Invalid event code');
  assert.equal(await page.getByRole('heading', { name: 'Event Codes', level: 1 }).count(), 1);
  await page.context().close();
});

test('an empty payment history: Payments History is Clear, hint and links', async () => {
  const { page } = await signIn('/subscriptions/payment-history');
  const empty = page.getByTestId('history-empty');
  await empty.getByRole('heading', { name: 'Payments History is Clear' }).waitFor();
  assert.match(await textOf(empty), /saving invoices may be disabled/);
  assert.equal(await empty.getByRole('link', { name: 'Payment History Settings' }).getAttribute('href'), '/profile');
  assert.equal(await empty.getByRole('link', { name: 'Back to Subscriptions' }).getAttribute('href'), '/subscriptions');
  assert.equal(await textOf(page.locator('.breadcrumb')), 'Subscriptions / Payment History');
  assert.equal(await page.getByRole('button', { name: 'Clear Payment History' }).count(), 0);
  await page.context().close();
});

test('a recurring Domain Monitoring plan: Monitoring is active, the Domains block shows its renewal and cancels it', async () => {
  const user = await suite.server.createUser({ email: uniqueEmail('subs-domain'), verified: true });
  const { token } = await suite.server.login(user.email, user.password);
  await payWithSandbox(suite.server, token, 'domain-sub-monthly', 2);
  const page = await openPage(suite.browser, suite.server.url);
  await page.goto('/profile');
  await page.waitForURL((url) => url.pathname === '/login');
  await logInThroughForm(page, user.email, user.password);
  await page.waitForURL((url) => url.pathname === '/profile');
  await openSubscriptions(page);

  assert.equal((await facts(page, 'Monitoring')).Plan, 'Domain Monitoring (1 plan, see Domains)');
  assert.equal(await textOf(page.getByRole('region', { name: 'Monitoring', exact: true }).locator('.subs-tag')), 'Active');
  const plan = page.getByTestId('domain-plan');
  assert.match(await textOf(plan), /Domain Monitoring \(2 domains\) · Renews [A-Z][a-z]{2} \d{1,2}, \d{4}/);
  await plan.getByRole('button', { name: 'Cancel Domain Monitoring (2 domains)' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Confirm Cancellation' }).click();
  // The provider's event stops the renewal: the plan then shows when it ends, and Cancel stays off.
  await eventually(async () => /Expires [A-Z][a-z]{2} \d{1,2}, \d{4}/.test(await textOf(plan)), true);
  await page.reload();
  await eventually(async () => /Expires/.test(await textOf(page.getByTestId('domain-plan'))), true);
  assert.equal(await page.getByTestId('domain-plan').getByRole('button', { name: /^Cancel/ }).isDisabled(), true);
  await page.context().close();
});
