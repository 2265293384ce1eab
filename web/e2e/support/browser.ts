/**
 * Debian's Chromium driven by playwright-core (browsers cannot be downloaded here).
 * Each launch gets a fresh temporary profile from Playwright; each page its own context.
 */
import assert from 'node:assert/strict';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: CHROMIUM_ARGS,
  });
}

export const DESKTOP = { width: 1280, height: 800 };
export const MOBILE = { width: 390, height: 844 };

/** A page in a fresh context (own cookies) whose relative URLs resolve on `baseURL`. */
export async function openPage(browser: Browser, baseURL: string, viewport = DESKTOP): Promise<Page> {
  const context = await browser.newContext({ baseURL, viewport, deviceScaleFactor: 1 });
  context.setDefaultTimeout(10_000);
  return context.newPage();
}

/** Polls until `read` returns `expected` (deep-equal), failing with the last value. */
export async function eventually<T>(read: () => Promise<T>, expected: T, timeoutMs = 8_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last: T = await read();
  while (!isDeepEqual(last, expected)) {
    if (Date.now() > deadline) assert.deepEqual(last, expected);
    await new Promise((resolve) => setTimeout(resolve, 50));
    last = await read();
  }
}

function isDeepEqual(a: unknown, b: unknown): boolean {
  try {
    assert.deepEqual(a, b);
    return true;
  } catch {
    return false;
  }
}

export async function textOf(locator: Locator): Promise<string> {
  await locator.waitFor();
  return ((await locator.textContent()) ?? '').trim();
}

/** Dismisses every toast on screen, so the next one read is fresh. */
export async function clearToasts(page: Page): Promise<void> {
  for (const close of await page.locator('.toast-close').all()) await close.click().catch(() => undefined);
  await page.locator('.toast').first().waitFor({ state: 'detached' });
}

/** Runs `action` and returns the text of the toast it raises (lines joined by "\n"). */
export async function toastAfter(page: Page, action: () => Promise<unknown>): Promise<string> {
  await clearToasts(page);
  await action();
  return textOf(page.locator('.toast .toast-body').first());
}

/** Fills the sign-in form fields that are present. */
export async function fillCredentials(page: Page, email: string, password: string): Promise<void> {
  await page.locator('input[name="email"]').fill(email);
  await page.locator('input[name="password"]').fill(password);
}

export async function logInThroughForm(page: Page, email: string, password: string): Promise<void> {
  await fillCredentials(page, email, password);
  await page.getByRole('button', { name: 'Log In' }).click();
}
