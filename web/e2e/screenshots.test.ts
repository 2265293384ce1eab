/**
 * The main screens at desktop and mobile width: each shows its main heading, nothing is
 * logged as a console error or thrown uncaught, and a screenshot of it is written.
 * The screenshots are kept for a visual check in E2E_SCREENSHOT_DIR when it is set
 * (e.g. E2E_SCREENSHOT_DIR=/tmp/shots npm run test:e2e), else written to a temporary
 * directory and removed.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import { DESKTOP, fillCredentials, logInThroughForm, MOBILE, openPage } from './support/browser';
import { newUser } from './support/server';
import { useServerAndBrowser } from './support/suite';

const suite = useServerAndBrowser();

const keptDir = process.env.E2E_SCREENSHOT_DIR;
const dir = keptDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'lw-screenshots-'));
fs.mkdirSync(dir, { recursive: true });
after(() => {
  if (!keptDir) fs.rmSync(dir, { recursive: true, force: true });
});

/** The one error a visit may log: the start-up refresh of a visitor without a session. */
const SIGNED_OUT_REFRESH = /^Failed to load resource: the server responded with a status of 401\b/;

/** Console errors and uncaught exceptions of the page, as they happen. */
function collectProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`uncaught: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() !== 'error') return;
    const expected = SIGNED_OUT_REFRESH.test(message.text()) && message.location().url.endsWith('/authentication/refresh');
    if (!expected) problems.push(`console: ${message.text()} (${message.location().url})`);
  });
  return problems;
}

/** Waits for the screen's main element, then writes `<name>.png` and checks it is not empty. */
async function shot(page: Page, name: string, shown: Locator): Promise<void> {
  await shown.waitFor();
  await page.waitForTimeout(300); // let transitions settle
  const file = path.join(dir, `${name}.png`);
  await page.screenshot({ path: file });
  assert.ok(fs.statSync(file).size > 0, `${name}.png is empty`);
}

const heading = (page: Page, name: string) => page.getByRole('heading', { name, exact: true, level: 1 });

for (const [label, viewport] of [
  ['desktop', DESKTOP],
  ['mobile', MOBILE],
] as const) {
  test(`main screens (${label}): heading shown, no console error, screenshot written`, async () => {
    const user = await newUser(suite.server);
    const page = await openPage(suite.browser, suite.server.url, viewport);
    const problems = collectProblems(page);

    await page.goto('/login');
    await shot(page, `${label}-login`, heading(page, 'Welcome back'));
    await page.goto('/register');
    await fillCredentials(page, 'new.user@example.com', 'Abcdefg1');
    await shot(page, `${label}-register`, heading(page, 'Create your account'));

    await page.goto('/profile');
    await page.waitForURL((url) => url.pathname === '/login');
    await logInThroughForm(page, user.email, user.password);
    await page.waitForURL((url) => url.pathname === '/profile');
    await page.getByTestId('profile-email').getByText(user.email).waitFor();
    await page.getByRole('button', { name: 'Change Password' }).click();
    await page.locator('input[name="new-password"]').fill('Better-Pass-9');
    await shot(page, `${label}-profile`, heading(page, 'Profile Settings'));
    if (label === 'mobile') {
      await page.getByRole('button', { name: 'Open menu' }).click();
      await shot(page, `${label}-menu`, page.getByRole('button', { name: 'Close menu' }));
      await page.getByRole('button', { name: 'Close menu' }).click();
    }
    await page.goto('/search');
    await shot(page, `${label}-search-placeholder`, heading(page, 'Search'));
    await page.goto('/profile');
    await page.getByRole('button', { name: 'Close Account' }).click();
    await shot(page, `${label}-close-modal`, page.getByRole('dialog', { name: 'Close Account' }));
    await page.goto('/nowhere');
    await shot(page, `${label}-not-found`, heading(page, 'Page not found'));
    await page.goto('/tos-privacy');
    await shot(page, `${label}-legal`, heading(page, 'Terms of Service & Privacy Policy'));

    assert.deepEqual(problems, []);
    await page.context().close();
  });
}
