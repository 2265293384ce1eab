/** /profile and /close-account against the real server. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import { eventually, logInThroughForm, openPage, textOf, toastAfter } from './support/browser';
import { mailedLink, newUser } from './support/server';
import { useServerAndBrowser } from './support/suite';

const suite = useServerAndBrowser();

async function signIn(email: string, password: string, path = '/profile'): Promise<Page> {
  const page = await openPage(suite.browser, suite.server.url);
  await page.goto(path);
  await page.waitForURL((url) => url.pathname === '/login');
  await logInThroughForm(page, email, password);
  await page.waitForURL((url) => url.pathname === path);
  return page;
}

async function changePassword(page: Page, current: string, next: string): Promise<string> {
  await page.locator('input[name="current-password"]').fill(current);
  await page.locator('input[name="new-password"]').fill(next);
  return toastAfter(page, () => page.getByRole('button', { name: 'Update Password' }).click());
}

test('password change: validation, wrong current password, success', async () => {
  const user = await newUser(suite.server);
  const page = await signIn(user.email, user.password);
  await eventually(() => textOf(page.getByTestId('profile-email')), user.email);

  await page.getByRole('button', { name: 'Change Password' }).click();
  assert.equal(await changePassword(page, user.password, user.password), 'Passwords are the same');
  assert.equal(
    await changePassword(page, user.password, 'weakpass'),
    "New Password doesn't meet requirements (max length 55)",
  );
  assert.equal(
    await changePassword(page, user.password, 'Aa1' + 'x'.repeat(53)),
    "New Password doesn't meet requirements (max length 55)",
  );
  assert.equal(await changePassword(page, 'Not-The-Pass-1', 'Changed-Pass-5'), 'issue updating password');
  assert.equal(await changePassword(page, user.password, 'Changed-Pass-5'), 'Password Updated');
  await page.getByRole('button', { name: 'Change Password' }).waitFor();

  // The session that changed the password stays signed in; the new password works.
  await page.reload();
  await eventually(() => textOf(page.getByTestId('profile-email')), user.email);
  await page.context().close();
  const again = await signIn(user.email, 'Changed-Pass-5');
  await again.context().close();
});

test('notification toggles save and survive a reload', async () => {
  const user = await newUser(suite.server);
  const page = await signIn(user.email, user.password);
  const toggle = page.getByRole('switch', { name: /Low WHOIS credits/ });
  const before = await toggle.isChecked();
  const saved = page.waitForResponse((response) => response.url().endsWith('/user/update-notification-setting'));
  await toggle.click({ force: true });
  assert.equal((await saved).status(), 200);
  assert.equal(await toggle.isChecked(), !before);
  await page.reload();
  await eventually(() => page.getByRole('switch', { name: /Low WHOIS credits/ }).isChecked(), !before);
  await page.context().close();
});

test('Save extra invoice details: the billing details form appears with the setting, saves and survives a reload', async () => {
  const user = await newUser(suite.server);
  const page = await signIn(user.email, user.password);
  assert.equal(await page.getByTestId('invoice-details').count(), 0, 'hidden while the setting is off');
  await page.getByRole('switch', { name: /Save extra invoice details/ }).click({ force: true });
  const form = page.getByRole('form', { name: 'Billing details' });
  await form.getByLabel('Name').fill('Ada Lovelace');
  await form.getByLabel('VAT ID').fill('GB123456789');
  const saved = page.waitForResponse((response) => response.url().endsWith('/user/invoice-details') && response.request().method() === 'POST');
  await form.getByRole('button', { name: 'Save billing details' }).click();
  assert.equal((await saved).status(), 200);
  await page.reload();
  await eventually(() => page.getByRole('form', { name: 'Billing details' }).getByLabel('Name').inputValue(), 'Ada Lovelace');
  assert.equal(await page.getByRole('form', { name: 'Billing details' }).getByLabel('VAT ID').inputValue(), 'GB123456789');
  await page.context().close();
});

test('close account: 3-2-1 countdown, mailed link, processing, then logout', async () => {
  const user = await newUser(suite.server);
  const page = await signIn(user.email, user.password);

  await page.getByRole('button', { name: 'Close Account' }).click();
  const confirm = page.getByTestId('confirm-close-account');
  const labels: string[] = [];
  const started = Date.now();
  while (Date.now() - started < 6_000) {
    // Label and state read in one step: the countdown may tick between two reads.
    const [label, disabled] = await confirm.evaluate((el) => [el.textContent, (el as HTMLButtonElement).disabled] as const);
    if (label && labels.at(-1) !== label) labels.push(label);
    if (label === 'Close Account') break;
    assert.equal(disabled, true, `disabled while "${label}"`);
    await page.waitForTimeout(50);
  }
  assert.deepEqual(labels, ['Wait 3s', 'Wait 2s', 'Wait 1s', 'Close Account']);
  assert.ok(Date.now() - started >= 2_500, 'the countdown takes about 3 seconds');
  await confirm.click();
  await page.getByRole('dialog').waitFor({ state: 'detached' });

  const link = await mailedLink(suite.server, user.email, /confirm account closure/, '/close-account?t=');

  // A wrong token: processed, then back to /search, still signed in.
  await page.goto('/close-account?t=not-a-real-token');
  await page.getByRole('heading', { name: 'Request Processed', exact: true }).waitFor();
  await page.getByText('You will be redirected in 3 seconds.').waitFor();
  await page.waitForURL((url) => url.pathname === '/search', { timeout: 6_000 });

  // No token: straight to /search.
  await page.goto('/close-account');
  await page.waitForURL((url) => url.pathname === '/search');

  await page.goto(link);
  await page.getByRole('heading', { name: 'Processing', exact: true }).or(page.getByRole('heading', { name: 'Request Processed', exact: true })).first().waitFor();
  await page.getByRole('heading', { name: 'Request Processed', exact: true }).waitFor();
  await page.waitForURL((url) => url.pathname === '/login', { timeout: 8_000 });

  // The account is gone.
  assert.equal(
    await toastAfter(page, () => logInThroughForm(page, user.email, user.password)),
    'Login Failed',
  );
  await page.context().close();
});

test('the closing link opened while signed out comes back to /close-account after login', async () => {
  const user = await newUser(suite.server);
  const page = await signIn(user.email, user.password);
  await page.getByRole('button', { name: 'Close Account' }).click();
  await page.getByTestId('confirm-close-account').getByText('Close Account').waitFor({ timeout: 5_000 });
  await page.getByTestId('confirm-close-account').click();
  const link = await mailedLink(suite.server, user.email, /confirm account closure/, '/close-account?t=');
  await page.context().close();

  const fresh = await openPage(suite.browser, suite.server.url);
  await fresh.goto(link);
  const token = new URL(link).searchParams.get('t')!;
  await fresh.waitForURL((url) => url.pathname === '/login' && url.searchParams.get('redirect') === 'close-account');
  assert.equal(new URL(fresh.url()).searchParams.get('t'), token);
  await logInThroughForm(fresh, user.email, user.password);
  // Two steps, so that a failure says which: back on the closing page with its token, then
  // the closure processed. Each gets a long timeout: a loaded CI machine, late in the suite,
  // can be slow at both.
  await fresh.waitForURL((url) => url.pathname === '/close-account' && url.searchParams.get('t') === token, { timeout: 20_000 });
  await fresh.getByRole('heading', { name: 'Request Processed', exact: true }).waitFor({ timeout: 20_000 });
  await fresh.waitForURL((url) => url.pathname === '/login', { timeout: 8_000 });
  await fresh.context().close();
});
