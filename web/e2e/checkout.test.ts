/**
 * Purchases end to end against the real server and its sandbox providers: the card
 * overlay (Pay / Cancel), the crypto invoice paid by the provider's simulated event, what
 * the subscriptions page shows afterwards, the payment history with its printed invoice,
 * and cancelling the recurring plan.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import { eventually, logInThroughForm, openPage, textOf } from './support/browser';
import { credits, facts, openSubscriptions, simulateCryptoPayment } from './support/billing';
import { uniqueEmail, type UserOptions } from './support/server';
import { useServerAndBrowser } from './support/suite';

const PAID_FOR = { email: 'paid.for@example.com', password: 'Paid-For-Secret-1' };
const suite = useServerAndBrowser(({ server }) => server.ingest('Checkout Well', [PAID_FOR]));

async function signIn(path: string, options: UserOptions = {}): Promise<{ page: Page; email: string }> {
  const user = await suite.server.createUser({ email: uniqueEmail('pay'), verified: true, ...options });
  const page = await openPage(suite.browser, suite.server.url);
  await page.goto(path);
  await page.waitForURL((url) => url.pathname === '/login');
  await logInThroughForm(page, user.email, user.password);
  await page.waitForURL((url) => url.pathname === new URL(path, 'http://x').pathname);
  return { page, email: user.email };
}

/** Runs a search from the search screen and waits for its answer. */
async function searchFor(page: Page, query: string): Promise<void> {
  const input = page.locator('input[name="query"]');
  await input.fill(query);
  const answered = page.waitForResponse((response) => new URL(response.url()).pathname === '/search' && response.request().method() === 'POST');
  await input.press('Enter');
  await answered;
  await page.locator('.results-area[aria-busy="false"]').waitFor();
}

/** Clicks the checkout's card button once it is ready, and pays in the sandbox overlay. */
async function payByCard(page: Page, label: 'Purchase' | 'Purchase with Fiat', sku: string): Promise<void> {
  const button = page.getByTestId('card-purchase');
  await eventually(() => textOf(button), label);
  await button.click();
  const overlay = page.frameLocator('iframe[title="Sandbox checkout"]');
  await overlay.getByRole('button', { name: 'Pay' }).click();
  await page.waitForURL((url) => url.pathname === '/thank-you' && url.searchParams.get('p') === sku, { timeout: 20_000 });
}

test('a monthly search subscription bought through the card overlay: thank-you, then active and recurring; cancelled from /subscriptions', async () => {
  const { page } = await signIn('/search');
  // Before buying: counts only, no values.
  await searchFor(page, PAID_FOR.email);
  await page.getByTestId('subscription-notice').waitFor();
  assert.equal(await page.getByTestId('search-result').count(), 0);
  await page.goto('/subscriptions/search');
  await page.getByRole('region', { name: 'Monthly' }).getByRole('button', { name: 'Subscribe & Save 10% (Monthly)' }).click();
  await page.waitForURL((url) => url.pathname === '/checkout');
  assert.equal(await page.getByRole('link', { name: 'Purchase With Crypto' }).count(), 0);

  // Cancel in the overlay: nothing bought, the page stays.
  const button = page.getByTestId('card-purchase');
  await eventually(() => textOf(button), 'Purchase');
  await button.click();
  await page.frameLocator('iframe[title="Sandbox checkout"]').getByRole('button', { name: 'Cancel' }).click();
  await page.locator('iframe[title="Sandbox checkout"]').waitFor({ state: 'detached' });
  assert.equal(new URL(page.url()).pathname, '/checkout');

  await payByCard(page, 'Purchase', 'search-sub-monthly');
  assert.equal(await textOf(page.getByTestId('thank-you-message')), 'Successfully purchased Monthly Search Subscription (auto-renew)');

  await openSubscriptions(page);
  await eventually(() => facts(page, 'Search'), { Status: 'Active', 'Auto-renew': 'Yes', Expires: 'N/A' }, 20_000);
  const search = page.getByRole('region', { name: 'Search', exact: true });
  assert.equal(await search.getByRole('link', { name: 'Purchase' }).count(), 0);

  // Bought: the same search shows the values.
  await page.goto('/search');
  await searchFor(page, PAID_FOR.email);
  const result = page.getByTestId('results-list').getByTestId('search-result').first();
  await result.waitFor();
  assert.match(await textOf(result), /paid\.for@example\.com/);
  assert.equal(await page.getByTestId('subscription-notice').count(), 0);

  // While recurring, more search time is refused on the checkout.
  await page.goto('/checkout?p=search-nonsub-weekly&q=1');
  await eventually(() => textOf(page.getByTestId('card-purchase')), 'You are already subscribed');
  await page.goto('/profile');
  await openSubscriptions(page);

  await search.getByRole('button', { name: 'Cancel Search' }).click();
  const dialog = page.getByRole('dialog', { name: 'Cancel Search subscription?' });
  const cancelled = page.waitForResponse((response) => response.url().endsWith('/subscriptions/cancel'));
  await dialog.getByRole('button', { name: 'Confirm Cancellation' }).click();
  assert.equal((await cancelled).status(), 200);
  await search.getByText('Submitted Cancellation Request').waitFor();
  assert.equal(await search.getByRole('button', { name: 'Cancel Search' }).isDisabled(), true);
  // The plan stops renewing when the provider confirms, at the end of the period.
  await page.context().close();
});

test('API and WHOIS credits by card show on /subscriptions; the payment history lists, prints and clears the invoices', async () => {
  const { page, email } = await signIn('/subscriptions/search-credits');
  await page.getByRole('group', { name: 'Tiers' }).getByRole('button', { name: /^5,000 CR/ }).click();
  await page.getByRole('button', { name: 'Purchase', exact: true }).click();
  await page.waitForURL((url) => url.pathname === '/checkout' && url.searchParams.get('q') === '5000');
  assert.equal(await textOf(page.getByTestId('order-total')), '$250.00');
  await payByCard(page, 'Purchase with Fiat', 'search-credits');
  assert.equal(await textOf(page.getByTestId('thank-you-message')), 'Successfully purchased Search Credits');
  // A made-up product in the address bar is not echoed: a link could put any words on the page.
  await page.goto('/thank-you?p=bogus');
  assert.equal(await textOf(page.getByTestId('thank-you-message')), 'Successfully purchased your order');

  await page.goto('/checkout?p=whois-credits&q=2500');
  await payByCard(page, 'Purchase with Fiat', 'whois-credits');

  await page.goto('/profile');
  await openSubscriptions(page);
  await eventually(() => credits(page, 'API credits'), '5,000 CR', 20_000);
  await eventually(() => credits(page, 'WHOIS credits'), '2,500 CR', 20_000);

  await page.getByRole('link', { name: 'Payment History' }).click();
  const rows = page.getByTestId('invoice-row');
  await eventually(() => rows.count(), 2, 20_000);
  const items = await page.locator('.history-item-name').allTextContents();
  assert.deepEqual(items.sort(), ['Search Credits', 'WHOIS Credits']);
  const first = rows.filter({ hasText: 'WHOIS Credits' });
  assert.match(await first.locator('.history-id').innerText(), /^\S{4}…\S{4}$/);
  await first.getByRole('button').first().click();
  const view = first.getByTestId('invoice-view');
  const shown = await textOf(view);
  assert.match(shown, /From: LeakWell \(\.com\/\.net\/\.org\)/);
  assert.ok(shown.includes(`To: ${email}`));
  assert.match(shown, /Amount paid\$50\.00/);
  assert.match(shown, /Balance Due: \$0/);

  await view.getByRole('button', { name: 'Print' }).click();
  const printed = page.frameLocator('#invoice-print-frame');
  await eventually(async () => ((await printed.locator('body').textContent()) ?? '').includes('Balance Due: $0'), true);
  const printedText = (await printed.locator('body').textContent()) ?? '';
  assert.ok(printedText.includes('WHOIS Credits'));
  assert.ok(printedText.includes(email));
  assert.ok(!printedText.includes('Search Credits'), 'only the chosen invoice is printed');

  await page.getByRole('button', { name: 'Clear Payment History' }).click();
  const dialog = page.getByRole('dialog', { name: 'Clear Payment History' });
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  assert.equal(await rows.count(), 2);
  await page.getByRole('button', { name: 'Clear Payment History' }).click();
  await dialog.getByRole('button', { name: 'Confirm' }).click();
  await page.getByRole('heading', { name: 'Payments History is Clear' }).waitFor();
  await page.reload();
  await page.getByRole('heading', { name: 'Payments History is Clear' }).waitFor();
  await page.context().close();
});

test('a crypto invoice: tabs without eth, QR code at level H, countdown; paid by the provider, the open page moves to /thank-you by itself', async () => {
  const { page } = await signIn('/checkout?p=search-credits&q=100');
  await page.getByRole('link', { name: 'Purchase With Crypto' }).click();
  await page.waitForURL((url) => url.pathname === '/crypto-checkout');
  const invoice = page.getByTestId('crypto-invoice');
  await invoice.waitFor();
  const tabs = await invoice.getByRole('tab').allTextContents();
  assert.deepEqual(tabs, ['BTC', 'LTC', 'XMR', 'BCH']);

  const qr = invoice.getByTestId('qr-code');
  assert.equal(await qr.getAttribute('data-qr-level'), 'H');
  assert.match((await qr.getAttribute('data-qr-text')) ?? '', /^bitcoin:bc1q[a-z0-9]+\?amount=\d+\.\d+$/);
  assert.ok(((await qr.getAttribute('data-qr-text')) ?? '').includes(await textOf(invoice.getByTestId('crypto-address'))));
  assert.match(await textOf(invoice.getByTestId('crypto-countdown')), /^[1-9]\d*:[0-5]\d$/);
  await invoice.getByRole('tab', { name: 'XMR' }).click();
  assert.match((await qr.getAttribute('data-qr-text')) ?? '', /^monero:4/);
  assert.match(await textOf(invoice.getByTestId('crypto-amount')), /XMR$/);

  const id = (await invoice.getAttribute('data-invoice-id'))!;
  // The page has joined crypto-payment-{id} once the websocket confirmed the session.
  await page.waitForTimeout(500);
  await simulateCryptoPayment(suite.server, id);
  await page.waitForURL((url) => url.pathname === '/thank-you' && url.searchParams.get('p') === 'search-credits', { timeout: 20_000 });
  await page.goto('/profile');
  await openSubscriptions(page);
  await eventually(() => credits(page, 'API credits'), '100 CR', 20_000);
  await page.context().close();
});

test('a quantity past the product maximum is refused on the page, as the server would', async () => {
  const { page } = await signIn('/checkout?p=search-credits&q=100001');
  await page.getByTestId('checkout-quantity-problem').waitFor();
  assert.equal(await textOf(page.getByTestId('checkout-quantity-problem')), 'Quantity must be at most 100,000; contact support for more.');
  await page.waitForTimeout(1_500); // past the processor's load delay: the button stays off
  assert.equal(await page.getByTestId('card-purchase').isDisabled(), true);
  assert.equal(await page.getByRole('link', { name: 'Purchase With Crypto' }).count(), 0);
  await page.context().close();
});

test('an expired crypto invoice shows no address or QR code and offers a new invoice', async () => {
  const { page } = await signIn('/checkout?p=search-credits&q=100');
  await page.clock.install();
  await page.getByRole('link', { name: 'Purchase With Crypto' }).click();
  const invoice = page.getByTestId('crypto-invoice');
  await invoice.waitFor();
  const first = await invoice.getAttribute('data-invoice-id');
  await page.clock.fastForward('24:00:00');
  const expired = page.getByTestId('crypto-expired');
  await expired.waitFor();
  assert.match(await textOf(expired), /This invoice expired.*Do not send a payment/s);
  assert.equal(await page.getByTestId('qr-code').count(), 0);
  assert.equal(await page.getByTestId('crypto-address').count(), 0);
  await page.clock.setSystemTime(new Date()); // back to the server's time for the new invoice
  await expired.getByRole('button', { name: 'New invoice' }).click();
  await invoice.waitFor();
  assert.notEqual(await invoice.getAttribute('data-invoice-id'), first);
  await page.context().close();
});
