/** The Profile's "Sessions" card in real Chromium: one session signed out from its row, "Sign out everywhere", the sign-in history. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import { DESKTOP, eventually, logInThroughForm, textOf, toastAfter } from './support/browser';
import { newUser } from './support/server';
import { useServerAndBrowser } from './support/suite';

const suite = useServerAndBrowser();

const FIREFOX_WINDOWS = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0';
const SAFARI_MAC = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15';

/** A browser of its own (cookies, user agent) signed in on /profile. */
async function signedIn(email: string, password: string, userAgent?: string): Promise<Page> {
  const context = await suite.browser.newContext({ baseURL: suite.server.url, viewport: DESKTOP, deviceScaleFactor: 1, ...(userAgent ? { userAgent } : {}) });
  context.setDefaultTimeout(10_000);
  const page = await context.newPage();
  await page.goto('/profile');
  await page.waitForURL((url) => url.pathname === '/login');
  await logInThroughForm(page, email, password);
  await page.waitForURL((url) => url.pathname === '/profile');
  return page;
}

/** The page's next load lands on the sign-in screen. */
async function assertSignedOut(page: Page, what: string) {
  await page.reload();
  await page.waitForURL((url) => url.pathname === '/login', { timeout: 10_000 }).catch(() => assert.fail(`${what}: still on ${page.url()}`));
}

test('sessions card: sign one session out from its row, then "Sign out everywhere" ends another browser\'s session', async () => {
  const user = await newUser(suite.server);
  const firefox = await signedIn(user.email, user.password, FIREFOX_WINDOWS);
  const safari = await signedIn(user.email, user.password, SAFARI_MAC);
  const main = await signedIn(user.email, user.password);

  const rows = main.getByTestId('session-row');
  await eventually(() => rows.count(), 3);
  const current = main.locator('[data-testid="session-row"][data-current]');
  assert.match(await textOf(current), /^Chrome on Linux \(this session\)127\.0\.0\.1 · Started .+ · Last used Just Now$/);
  assert.equal(await current.getByRole('button').count(), 0, 'the current session has no sign-out button (Log Out is that)');
  assert.match(await textOf(rows.filter({ hasText: 'Firefox on Windows' })), /Firefox on Windows127\.0\.0\.1/);

  // One session, from its row (by keyboard).
  const safariButton = main.getByRole('button', { name: 'Sign out Safari on macOS at 127.0.0.1' });
  await safariButton.focus();
  assert.equal(await toastAfter(main, () => main.keyboard.press('Enter')), 'Session signed out');
  await eventually(() => rows.count(), 2);
  await assertSignedOut(safari, 'the session signed out from its row');

  // Every other one: the Firefox browser, left open on its page, shows the sign-in screen by
  // itself (its websocket closes with 4401), and its next page load lands there too.
  assert.equal(await toastAfter(main, () => main.getByRole('button', { name: 'Sign out everywhere' }).click()), 'Signed out 1 other session');
  await eventually(() => rows.count(), 1);
  await firefox.waitForURL((url) => url.pathname === '/login', { timeout: 10_000 });
  await assertSignedOut(firefox, 'the other browser after "Sign out everywhere"');

  // The browser that did it stays signed in; its history shows the three sign-ins.
  await main.reload();
  await main.waitForURL((url) => url.pathname === '/profile');
  await eventually(() => rows.count(), 1);
  const history = main.getByTestId('sign-in-history');
  await eventually(() => history.locator('tbody tr').count(), 3);
  assert.match(await textOf(history.locator('tbody tr').first()), /127\.0\.0\.1Chrome on LinuxPasswordSigned in$/);
  assert.match(await textOf(history.locator('tbody tr').last()), /Firefox on WindowsPasswordSigned in$/);
  for (const page of [firefox, safari, main]) await page.context().close();
});

test('a failed sign-in shows in the history as Failed', async () => {
  const user = await newUser(suite.server);
  const context = await suite.browser.newContext({ baseURL: suite.server.url, viewport: DESKTOP });
  const page = await context.newPage();
  await page.goto('/login');
  await logInThroughForm(page, user.email, 'Wrong-Password-1');
  await page.locator('.toast').first().waitFor();
  await context.close();
  const main = await signedIn(user.email, user.password);
  const rows = main.getByTestId('sign-in-history').locator('tbody tr');
  await eventually(() => rows.count(), 2);
  assert.match(await textOf(rows.last()), /Chrome on LinuxPasswordFailed$/);
  await main.context().close();
});
