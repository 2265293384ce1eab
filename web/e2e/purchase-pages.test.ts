/**
 * Purchase pages, checkout labels, thank-you and event-code form: what the pages
 * do on their own (tiers, clamping, slider steps, where Purchase leads, label states).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import { eventually, logInThroughForm, openPage, textOf, toastAfter } from './support/browser';
import { uniqueEmail, type UserOptions } from './support/server';
import { useServerAndBrowser } from './support/suite';

const suite = useServerAndBrowser();

async function signIn(path: string, options: UserOptions = {}): Promise<Page> {
  const user = await suite.server.createUser({ email: uniqueEmail('buy'), verified: true, ...options });
  const page = await openPage(suite.browser, suite.server.url);
  await page.goto(path);
  await page.waitForURL((url) => url.pathname === '/login');
  await logInThroughForm(page, user.email, user.password);
  await page.waitForURL((url) => url.pathname === new URL(path, 'http://x').pathname);
  return page;
}

const query = (page: Page) => Object.fromEntries(new URL(page.url()).searchParams);
const onPath = (page: Page, pathname: string) => page.waitForURL((url) => url.pathname === pathname);

test('search packages: Popular monthly, quantity digits only, empty or 0 ignored, Purchase and Subscribe lead to checkout', async () => {
  const page = await signIn('/subscriptions/search');
  await page.getByRole('heading', { name: 'Choose your package', level: 1 }).waitFor();
  const enthusiast = page.getByRole('region', { name: 'Enthusiast' });
  const monthly = page.getByRole('region', { name: 'Monthly' });
  const annually = page.getByRole('region', { name: 'Annually' });
  assert.match(await textOf(enthusiast), /7 days[\s\S]*\$5\.49/);
  assert.match(await textOf(monthly), /Popular[\s\S]*30 days[\s\S]*\$15\.49/);
  assert.match(await textOf(annually), /365 days[\s\S]*\$179\.99/);
  assert.equal(await enthusiast.getByText('Popular').count(), 0);

  const quantity = monthly.getByLabel('Months (Monthly)');
  await quantity.fill('');
  await quantity.pressSequentially('3x-');
  assert.equal(await quantity.inputValue(), '3');
  await quantity.fill('');
  await monthly.getByRole('button', { name: 'Purchase Monthly' }).click();
  await monthly.getByRole('button', { name: 'Subscribe & Save 10% (Monthly)' }).click();
  await quantity.fill('0');
  await monthly.getByRole('button', { name: 'Purchase Monthly' }).click();
  await page.waitForTimeout(200);
  assert.equal(new URL(page.url()).pathname, '/subscriptions/search');

  await quantity.fill('3');
  await monthly.getByRole('button', { name: 'Purchase Monthly' }).click();
  await onPath(page, '/checkout');
  assert.deepEqual(query(page), { p: 'search-nonsub-monthly', q: '3' });
  await page.goBack();
  await annually.getByRole('button', { name: 'Subscribe & Save 10% (Annually)' }).click();
  await onPath(page, '/checkout');
  assert.deepEqual(query(page), { p: 'search-sub-yearly', q: '1' });
  await page.context().close();
});

test('search credits: tiers at 5/50/100% (enterprise 10/50/100%), clamped quantity, 5% slider steps, total, Purchase disabled at 0', async () => {
  const page = await signIn('/subscriptions/search-credits');
  await page.getByRole('heading', { name: 'Search Credits', level: 1 }).waitFor();
  assert.match(await textOf(page.getByTestId('search-subscription-note')), /Search subscription is needed to use the API/);
  const tiers = page.getByRole('group', { name: 'Tiers' }).getByRole('button');
  const tierTexts = async () => (await tiers.allTextContents()).map((text) => text.replace(/\$.*/, '').trim());
  assert.deepEqual(await tierTexts(), ['500 CR', '5,000 CR', '10,000 CR']);

  const quantity = page.getByLabel('Quantity', { exact: true });
  const slider = page.getByRole('slider');
  const total = page.getByTestId('credits-total');
  assert.equal(await quantity.inputValue(), '500');
  assert.equal(await textOf(total), '$25.00');
  assert.deepEqual(
    await slider.evaluate((el: HTMLInputElement) => [el.min, el.max, el.step]),
    ['0', '10000', '500'],
  );

  await tiers.nth(1).click();
  assert.equal(await quantity.inputValue(), '5000');
  assert.equal(await tiers.nth(1).getAttribute('aria-pressed'), 'true');
  assert.equal(await textOf(total), '$250.00');

  await quantity.fill('123456');
  assert.equal(await quantity.inputValue(), '10000');
  await quantity.fill('-7');
  assert.equal(await quantity.inputValue(), '7');
  await slider.focus();
  await page.keyboard.press('ArrowRight');
  assert.equal(await quantity.inputValue(), '500');
  await page.keyboard.press('End');
  assert.equal(await quantity.inputValue(), '10000');

  const purchase = page.getByRole('button', { name: 'Purchase', exact: true });
  await quantity.fill('0');
  assert.equal(await purchase.isDisabled(), true);
  assert.equal(await textOf(total), '$0.00');
  await quantity.fill('');
  assert.equal(await purchase.isDisabled(), true);

  await page.getByRole('radio', { name: 'Enterprise' }).click();
  assert.deepEqual(await tierTexts(), ['10,000 CR', '50,000 CR', '100,000 CR']);
  assert.equal(await quantity.inputValue(), '10000');
  assert.deepEqual(
    await slider.evaluate((el: HTMLInputElement) => [el.min, el.max, el.step]),
    ['10000', '100000', '5000'],
  );
  await quantity.fill('999999');
  assert.equal(await quantity.inputValue(), '100000');
  await quantity.fill('5000');
  assert.equal(await purchase.isDisabled(), true, 'enterprise starts at 10,000');
  await tiers.nth(1).click();
  assert.equal(await textOf(total), '$2,500.00');
  await purchase.click();
  await onPath(page, '/checkout');
  assert.deepEqual(query(page), { p: 'search-credits', q: '50000' });
  await page.context().close();
});

test('WHOIS credits: max 50,000, tiers 2,500 / 25,000 / 50,000 at $0.02', async () => {
  const page = await signIn('/subscriptions/whois-credits');
  await page.getByRole('heading', { name: 'WHOIS Credits', level: 1 }).waitFor();
  // The product's name, not its id spelt as words ("Whois-credits").
  assert.equal(await textOf(page.locator('.breadcrumb')), 'Subscriptions / WHOIS Credits');
  assert.equal(await page.getByRole('radio').count(), 0);
  const tiers = page.getByRole('group', { name: 'Tiers' }).getByRole('button');
  assert.deepEqual(
    (await tiers.allTextContents()).map((text) => text.replace(/\s+/g, ' ')),
    ['2,500 CR$50.00', '25,000 CR$500.00', '50,000 CR$1,000.00'],
  );
  const quantity = page.getByLabel('Quantity', { exact: true });
  await quantity.fill('70000');
  assert.equal(await quantity.inputValue(), '50000');
  assert.equal(await page.getByRole('slider').getAttribute('step'), '2500');
  await page.getByRole('button', { name: 'Purchase', exact: true }).click();
  await onPath(page, '/checkout');
  assert.deepEqual(query(page), { p: 'whois-credits', q: '50000' });
  await page.context().close();
});

test('monitoring plans: free start, domain monitoring per domain, enterprise monthly', async () => {
  const page = await signIn('/subscriptions/monitoring');
  const start = page.getByRole('region', { name: 'Start' });
  assert.match(await textOf(start), /Free[\s\S]*10 monitoring tasks[\s\S]*Email notifications[\s\S]*Webhook/);
  const domain = page.getByRole('region', { name: 'Domain Monitoring' });
  assert.match(await textOf(domain), /Popular[\s\S]*\$9\.99/);
  const enterprise = page.getByRole('region', { name: 'Enterprise Level' });
  assert.match(await textOf(enterprise), /\$99\.99[\s\S]*500 monitoring tasks/);
  await domain.getByLabel('Number of domains').fill('4');
  await domain.getByRole('button', { name: 'Subscribe & Save 10% (Domain Monitoring)' }).click();
  await onPath(page, '/checkout');
  assert.deepEqual(query(page), { p: 'domain-sub-monthly', q: '4' });
  // The plan renews every month, for the 4 domains (not "renews every domain").
  assert.equal(await textOf(page.getByTestId('order-quantity')), '4 domains');
  assert.match(await textOf(page.getByTestId('order-total')), /^\$[\d,.]+ renews every month$/);
  await page.goBack();
  await page.getByRole('region', { name: 'Enterprise Level' }).getByRole('button', { name: 'Purchase Enterprise Level' }).click();
  await onPath(page, '/checkout');
  assert.deepEqual(query(page), { p: 'enterprise-nonsub-monthly', q: '1' });
  await page.context().close();
});

test('checkout: product, quantity and total; crypto link only for credits and nonsub; already subscribed; bad SKU goes to /search', async () => {
  const page = await signIn('/checkout?p=search-nonsub-monthly&q=3');
  assert.equal(await textOf(page.getByTestId('order-product')), 'Monthly Search Subscription');
  assert.equal(await textOf(page.getByTestId('order-quantity')), '3 months');
  assert.equal(await textOf(page.getByTestId('order-total')), '$46.47');
  const crypto = page.getByRole('link', { name: 'Purchase With Crypto' });
  assert.equal(await crypto.getAttribute('href'), '/crypto-checkout?p=search-nonsub-monthly&q=3');

  await page.goto('/checkout?p=search-sub-monthly&q=1');
  await page.getByTestId('order-product').getByText('Monthly Search Subscription (auto-renew)').waitFor();
  assert.equal(await crypto.count(), 0);

  await page.goto('/checkout?p=nonsense&q=2');
  await onPath(page, '/search');
  await page.context().close();

  const enterprise = await signIn('/checkout?p=enterprise-sub-monthly&q=1', { enterprise: true });
  const button = enterprise.getByTestId('card-purchase');
  await eventually(() => textOf(button), 'You are already subscribed');
  assert.equal(await button.isDisabled(), true);
  await enterprise.goto('/checkout?p=whois-credits&q=100');
  assert.match(await textOf(enterprise.getByTestId('card-purchase')), /^(Loading\.\.\.|Purchase with Fiat)$/);
  await enterprise.context().close();
});

test('thank-you names the product and links back to /subscriptions', async () => {
  const page = await signIn('/thank-you?p=search-sub-monthly');
  assert.equal(await textOf(page.getByTestId('thank-you-message')), 'Successfully purchased Monthly Search Subscription (auto-renew)');
  await page.getByRole('heading', { name: 'Thank you.' }).waitFor();
  await page.getByRole('link', { name: 'Back to Subscriptions' }).click();
  await onPath(page, '/subscriptions');
  await page.context().close();
});

test('event codes: Submit needs 4 characters; an unknown code toasts and stays on the form', async () => {
  const page = await signIn('/event-codes');
  const input = page.getByLabel('Event code');
  const submit = page.getByRole('button', { name: 'Submit' });
  await input.fill('abc');
  assert.equal(await submit.isDisabled(), true);
  let calls = 0;
  page.on('request', (request) => {
    if (request.url().endsWith('/user/event-code')) calls += 1;
  });
  await input.press('Enter');
  await page.waitForTimeout(200);
  assert.equal(calls, 0);
  await input.fill('NOPE-1234');
  assert.equal(await toastAfter(page, () => submit.click()), 'Invalid event code');
  assert.equal(calls, 1);
  await input.waitFor();
  await page.context().close();
});

test("the API docs checklist's fixes open the working purchase pages", async () => {
  const page = await signIn('/documentation/api');
  const checklist = page.getByTestId('api-checklist');
  await checklist.getByRole('link', { name: 'Get a search subscription' }).click();
  await page.getByRole('heading', { name: 'Choose your package', level: 1 }).waitFor();
  await page.goBack();
  await checklist.getByRole('link', { name: 'Buy search credits' }).click();
  await page.getByRole('heading', { name: 'Search Credits', level: 1 }).waitFor();
  // The breadcrumb names the product, as the heading does, not its id ("Search-credits").
  assert.equal(await textOf(page.locator('.breadcrumb')), 'Subscriptions / Search Credits');
  await page.context().close();
});
