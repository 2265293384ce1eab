/**
 * Screenshots of the main screens for a visual check, written only when
 * E2E_SCREENSHOT_DIR is set (e.g. E2E_SCREENSHOT_DIR=/tmp/shots npm run test:e2e).
 */
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { DESKTOP, fillCredentials, launchBrowser, logInThroughForm, MOBILE, openPage } from './support/browser';
import { newUser, startServer, stopServer, type TestServer } from './support/server';

const dir = process.env.E2E_SCREENSHOT_DIR;
let server: TestServer;
let browser: Browser;

before(async () => {
  if (!dir) return;
  fs.mkdirSync(dir, { recursive: true });
  server = await startServer();
  browser = await launchBrowser();
});

after(async () => {
  if (!dir) return;
  await browser?.close();
  await stopServer(server);
});

async function shot(page: Page, name: string): Promise<void> {
  await page.waitForTimeout(300); // let transitions settle
  await page.screenshot({ path: path.join(dir!, `${name}.png`) });
}

for (const [label, viewport] of [
  ['desktop', DESKTOP],
  ['mobile', MOBILE],
] as const) {
  test(`screenshots (${label})`, { skip: !dir && 'E2E_SCREENSHOT_DIR is not set' }, async () => {
    const user = await newUser(server);
    const page = await openPage(browser, server.url, viewport);
    await page.goto('/login');
    await shot(page, `${label}-login`);
    await page.goto('/register');
    await fillCredentials(page, 'new.user@example.com', 'Abcdefg1');
    await shot(page, `${label}-register`);

    await page.goto('/profile');
    await page.waitForURL((url) => url.pathname === '/login');
    await logInThroughForm(page, user.email, user.password);
    await page.waitForURL((url) => url.pathname === '/profile');
    await page.getByTestId('profile-email').getByText(user.email).waitFor();
    await page.getByRole('button', { name: 'Change Password' }).click();
    await page.locator('input[name="new-password"]').fill('Better-Pass-9');
    await shot(page, `${label}-profile`);
    if (label === 'mobile') {
      await page.getByRole('button', { name: 'Open menu' }).click();
      await shot(page, `${label}-menu`);
      await page.getByRole('button', { name: 'Close menu' }).click();
    }
    await page.goto('/search');
    await shot(page, `${label}-search-placeholder`);
    await page.goto('/profile');
    await page.getByRole('button', { name: 'Close Account' }).click();
    await shot(page, `${label}-close-modal`);
    await page.goto('/nowhere');
    await shot(page, `${label}-not-found`);
    await page.goto('/tos-privacy');
    await shot(page, `${label}-legal`);
    await page.context().close();
  });
}
