/**
 * Toasts: one dismisses itself 3300 ms after it appears, and the
 * countdown pauses while the pointer is over it, resuming with the time that was left.
 * Times are taken in the page (a MutationObserver stamps each toast's arrival and removal),
 * so the test's own latency does not blur them.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import { openPage } from './support/browser';
import { useServerAndBrowser } from './support/suite';

const suite = useServerAndBrowser();

const DEFAULT_MS = 3300;

/** The sign-in screen, with every toast's arrival and removal stamped in the page. */
async function signInScreen(): Promise<Page> {
  const page = await openPage(suite.browser, suite.server.url);
  await page.goto('/login');
  await page.locator('input[name="email"]').waitFor();
  await page.evaluate(() => {
    const stamps: { added: number[]; removed: number[] } = { added: [], removed: [] };
    (window as unknown as { __toastStamps: typeof stamps }).__toastStamps = stamps;
    new MutationObserver((records) => {
      for (const record of records) {
        for (const node of record.addedNodes) if (node instanceof Element && node.classList.contains('toast')) stamps.added.push(performance.now());
        for (const node of record.removedNodes) if (node instanceof Element && node.classList.contains('toast')) stamps.removed.push(performance.now());
      }
    }).observe(document.body, { childList: true, subtree: true });
  });
  return page;
}

const stamps = (page: Page) => page.evaluate(() => (window as unknown as { __toastStamps: { added: number[]; removed: number[] } }).__toastStamps);
const toasts = (page: Page) => page.locator('.toast').count();

/** Submitting the empty form raises one error toast, no server involved. */
async function raiseToast(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Log In' }).click();
  await page.locator('.toast').waitFor();
}

test('a toast dismisses itself 3300 ms after it appears', async () => {
  const page = await signInScreen();
  await page.mouse.move(5, 700); // well away from the toaster (top right)
  await raiseToast(page);
  const { added } = await stamps(page);
  assert.equal(added.length, 1);
  const age = async () => (await page.evaluate(() => performance.now())) - added[0]!;

  await page.waitForTimeout(Math.max(0, 3000 - (await age())));
  assert.equal(await toasts(page), 1, `still shown at ${Math.round(await age())} ms`);
  await page.locator('.toast').waitFor({ state: 'detached', timeout: 2_000 });
  const { removed } = await stamps(page);
  const lifetime = removed[0]! - added[0]!;
  assert.ok(lifetime >= DEFAULT_MS - 50 && lifetime <= DEFAULT_MS + 500, `shown for ${Math.round(lifetime)} ms`);
  await page.context().close();
});

test('hovering pauses the countdown; leaving resumes it with the time that was left', async () => {
  const page = await signInScreen();
  await page.mouse.move(5, 700);
  await raiseToast(page);
  const { added } = await stamps(page);

  // Over the toast after about a second, for 5 s: well past its 3.3 s.
  await page.waitForTimeout(1000);
  await page.locator('.toast').hover();
  const hoveredAt = await page.evaluate(() => performance.now());
  await page.waitForTimeout(5000);
  assert.equal(await toasts(page), 1, 'still shown after 5 s under the pointer');

  // Away: about 2.3 s (3.3 s less the second before the hover) and it is gone.
  await page.mouse.move(5, 700);
  const leftAt = await page.evaluate(() => performance.now());
  const remaining = DEFAULT_MS - (hoveredAt - added[0]!);
  await page.waitForTimeout(Math.max(0, remaining - 400));
  assert.equal(await toasts(page), 1, 'not gone before its remaining time');
  await page.locator('.toast').waitFor({ state: 'detached', timeout: 2_000 });
  const { removed } = await stamps(page);
  const afterLeaving = removed[0]! - leftAt;
  assert.ok(afterLeaving >= remaining - 300 && afterLeaving <= remaining + 600, `gone ${Math.round(afterLeaving)} ms after leaving (remaining ≈ ${Math.round(remaining)} ms)`);
  await page.context().close();
});

test('closing a toast by hand removes it at once', async () => {
  const page = await signInScreen();
  await raiseToast(page);
  await page.locator('.toast-close').click();
  await page.locator('.toast').waitFor({ state: 'detached', timeout: 500 });
  await page.context().close();
});
