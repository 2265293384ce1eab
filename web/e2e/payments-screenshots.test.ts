/**
 * The subscription and purchase screens at desktop and mobile width, as screenshots.test.ts
 * does for the main screens: each shows its heading, nothing is logged as a console error,
 * and a screenshot is written (kept in E2E_SCREENSHOT_DIR when set).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import { DESKTOP, logInThroughForm, MOBILE, openPage } from './support/browser';
import { uniqueEmail } from './support/server';
import { useServerAndBrowser } from './support/suite';

const suite = useServerAndBrowser();

const keptDir = process.env.E2E_SCREENSHOT_DIR;
const dir = keptDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'lw-screenshots-'));
fs.mkdirSync(dir, { recursive: true });
after(() => {
  if (!keptDir) fs.rmSync(dir, { recursive: true, force: true });
});

function collectProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`uncaught: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()} (${message.location().url})`);
  });
  return problems;
}

async function shot(page: Page, name: string, shown: Locator): Promise<void> {
  await shown.waitFor();
  await page.waitForTimeout(300);
  const file = path.join(dir, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  assert.ok(fs.statSync(file).size > 0, `${name}.png is empty`);
}

const heading = (page: Page, name: string) => page.getByRole('heading', { name, exact: true, level: 1 });

for (const [label, viewport] of [
  ['desktop', DESKTOP],
  ['mobile', MOBILE],
] as const) {
  test(`subscription and purchase screens (${label}): heading shown, no console error, screenshot written`, async () => {
    const user = await suite.server.createUser({ email: uniqueEmail('shots'), verified: true, searchDays: 30, searchCredits: 1500, whoisCredits: 200 });
    const page = await openPage(suite.browser, suite.server.url, viewport);
    await page.goto('/profile');
    await page.waitForURL((url) => url.pathname === '/login');
    await logInThroughForm(page, user.email, user.password);
    await page.waitForURL((url) => url.pathname === '/profile');
    // From here on (the signed-out start-up refresh before it answers 401, as expected).
    const problems = collectProblems(page);

    // GET /subscriptions is the API too: the page is opened from within the dashboard.
    await page.evaluate(() => {
      history.pushState(null, '', '/subscriptions');
      dispatchEvent(new PopStateEvent('popstate'));
    });
    await shot(page, `${label}-subscriptions`, page.getByRole('region', { name: 'Search', exact: true }));
    await page.goto('/subscriptions/search');
    await shot(page, `${label}-plans-search`, heading(page, 'Choose your package'));
    await page.goto('/subscriptions/search-credits');
    await shot(page, `${label}-plans-search-credits`, heading(page, 'Search Credits'));
    await page.goto('/subscriptions/whois-credits');
    await shot(page, `${label}-plans-whois-credits`, heading(page, 'WHOIS Credits'));
    await page.goto('/subscriptions/monitoring');
    await shot(page, `${label}-plans-monitoring`, heading(page, 'Monitoring Plans'));
    await page.goto('/subscriptions/payment-history');
    await shot(page, `${label}-payment-history-empty`, page.getByRole('heading', { name: 'Payments History is Clear' }));
    await page.goto('/event-codes');
    await shot(page, `${label}-event-codes`, heading(page, 'Event Codes'));
    await page.goto('/thank-you?p=search-credits');
    await shot(page, `${label}-thank-you`, heading(page, 'Thank you.'));
    await page.goto('/checkout?p=search-credits&q=5000');
    await page.getByTestId('card-purchase').getByText('Purchase with Fiat').waitFor();
    await shot(page, `${label}-checkout`, heading(page, 'Checkout'));
    await page.getByTestId('card-purchase').click();
    await shot(page, `${label}-checkout-overlay`, page.frameLocator('iframe[title="Sandbox checkout"]').getByRole('button', { name: 'Pay' }));
    await page.frameLocator('iframe[title="Sandbox checkout"]').getByRole('button', { name: 'Pay' }).click();
    await page.waitForURL((url) => url.pathname === '/thank-you', { timeout: 20_000 });
    await page.goto('/crypto-checkout?p=whois-credits&q=2500');
    await shot(page, `${label}-crypto-checkout`, page.getByTestId('qr-code'));
    await page.goto('/subscriptions/payment-history');
    await page.getByTestId('invoice-row').first().getByRole('button').first().click();
    await shot(page, `${label}-payment-history`, page.getByTestId('invoice-view'));

    assert.deepEqual(problems, []);
    await page.context().close();
  });
}
