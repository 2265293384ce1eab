/**
 * Debian's Chromium driven by playwright-core (browsers cannot be downloaded here).
 * Each launch gets a fresh temporary profile from Playwright; each page its own context.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
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

/** How long a browser may take to close before its processes are killed. */
const CLOSE_TIMEOUT_MS = 15_000;

/** The Chromium processes this process started (Playwright's launch makes them its children). */
function chromiumChildren(): number[] {
  const pids: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      // Fields after the parenthesised name: state, then the parent's pid.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === process.pid && stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')).startsWith('chromium')) pids.push(Number(entry));
    } catch {
      // The process ended meanwhile.
    }
  }
  return pids;
}

/**
 * Closes the browser; one that has not closed within CLOSE_TIMEOUT_MS is killed. Chromium
 * sometimes hangs in its shutdown (seen in CI after every test of a file had passed, with an
 * on-device model service started late): without this the test file, and the whole run,
 * would wait forever.
 */
export async function closeBrowser(browser: Browser | undefined): Promise<void> {
  if (!browser) return;
  const closed = browser.close().then(
    () => true,
    () => true,
  );
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), CLOSE_TIMEOUT_MS)));
  const inTime = await Promise.race([closed, late]);
  clearTimeout(timer);
  if (inTime) return;
  const pids = chromiumChildren();
  process.stderr.write(`# the browser did not close in ${CLOSE_TIMEOUT_MS / 1000} s: killing its processes ${pids.join(', ')}\n`);
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
  await closed;
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
