/**
 * WCAG 2.1 A/AA in the browser: axe-core (tags wcag2a, wcag2aa, wcag21a, wcag21aa) runs on
 * every screen, signed out and signed in, in the dark and the light theme, and on the
 * dialogs and states a screen opens (search results, a task dialog, the close-account
 * dialog); any violation fails the test with its rule and elements. Then the keyboard-only
 * flows: sign-in, search, export and a purchase with Tab, arrow keys, Enter, Space and
 * Escape only — never a click.
 *
 * Lean on time: one browser, one signed-in context per theme reused over all screens.
 */
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import { test } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { simulateCryptoPayment } from './support/billing';
import { logInThroughForm } from './support/browser';
import {
  FULL_GRANTS,
  fullUser as fullUserOf,
  h1,
  openScreen,
  SCREEN_QUERY as QUERY,
  seedScreens,
  signedInPage,
  SIGNED_IN,
  SIGNED_OUT,
  themedContext,
  type Screen,
  type Theme,
} from './support/screens';
import { uniqueEmail } from './support/server';
import { useServerAndBrowser } from './support/suite';

const suite = useServerAndBrowser(({ server }) => seedScreens(server));

const AXE_SOURCE = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];

interface AxeNode {
  target: unknown[];
  failureSummary?: string;
}
interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: AxeNode[];
}

/** Every violation of every screen audited in this file, for the summary per rule. */
const found: { screen: string; theme: Theme; violation: AxeViolation }[] = [];

/** Runs axe on the page as it is; returns its violations (also kept for the summary). */
async function audit(page: Page, screen: string, theme: Theme): Promise<AxeViolation[]> {
  // Transitions settled and fonts drawn before colours are measured.
  await page.waitForTimeout(150);
  // Evaluated through the driver, so the page's Content-Security-Policy stays as served.
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(
    async (tags) => {
      const axe = (window as unknown as { axe: { run: (context: unknown, options: unknown) => Promise<{ violations: unknown[] }> } }).axe;
      const result = await axe.run(document, { runOnly: { type: 'tag', values: tags }, resultTypes: ['violations'] });
      return result.violations;
    },
    TAGS,
  );
  for (const violation of violations as AxeViolation[]) found.push({ screen, theme, violation });
  return violations as AxeViolation[];
}

function describe(screen: string, theme: Theme, violations: AxeViolation[]): string[] {
  return violations.map(
    (v) =>
      `${theme} ${screen}: ${v.id} (${v.impact}) ${v.help} — ${v.nodes.length} element(s): ` +
      v.nodes
        .slice(0, 6)
        .map((n) => `${JSON.stringify(n.target)} ${n.failureSummary?.split('\n').slice(1).join(' ').trim() ?? ''}`)
        .join(' | '),
  );
}

// Reduced motion makes transitions instant, so colours are measured in their final state
// (a button fading in from disabled would otherwise be caught half-way).
const newContext = (theme: Theme): Promise<BrowserContext> => themedContext(suite.browser, suite.server, theme);

/** Opens a screen and audits it; returns the lines describing its violations. */
async function visit(page: Page, screen: Screen, theme: Theme): Promise<string[]> {
  await openScreen(page, screen);
  return describe(screen.name, theme, await audit(page, screen.name, theme));
}

/** The states a click opens: dialogs and expanded rows. */
async function visitStates(page: Page, theme: Theme): Promise<string[]> {
  const lines: string[] = [];
  const check = async (name: string) => lines.push(...describe(name, theme, await audit(page, name, theme)));

  await page.goto(`/search?q=${encodeURIComponent(QUERY)}`);
  await page.getByTestId('results-list').locator('li').first().waitFor();
  await page.getByRole('button', { name: /^Export/ }).first().click();
  await page.getByRole('dialog').waitFor();
  await check('search export dialog');
  await page.keyboard.press('Escape');

  await page.goto('/profile');
  await page.getByRole('button', { name: 'Close Account' }).click();
  await page.getByRole('dialog', { name: 'Close Account' }).waitFor();
  await check('close-account dialog');

  await page.goto('/monitoring/manage/tasks');
  await page.getByTestId('task-value').first().waitFor();
  await page.getByRole('button', { name: /^Add/ }).first().click();
  await page.getByRole('dialog').waitFor();
  await check('task dialog');

  await page.goto('/checkout?p=search-credits&q=100');
  await page.getByRole('link', { name: 'Purchase With Crypto' }).click();
  await page.getByTestId('crypto-invoice').waitFor();
  await check('crypto-checkout');
  return lines;
}

/** A fresh account with plans, credits, two monitoring tasks and an API key. */
const fullUser = (label: string) => fullUserOf(suite.server, label);

/** A signed-in context (in `theme`) of a fresh full account, on /search. */
async function signedIn(theme: Theme): Promise<Page> {
  return signedInPage(suite.browser, suite.server, await fullUser(theme), theme);
}

for (const theme of ['dark', 'light'] as const) {
  test(`axe (WCAG 2.1 A/AA): no violation on any screen, signed out and signed in, ${theme} theme`, async () => {
    const problems: string[] = [];
    const outPage = await (await newContext(theme)).newPage();
    for (const screen of SIGNED_OUT) problems.push(...(await visit(outPage, screen, theme)));
    await outPage.context().close();

    const page = await signedIn(theme);
    for (const screen of SIGNED_IN) problems.push(...(await visit(page, screen, theme)));
    problems.push(...(await visitStates(page, theme)));
    await page.context().close();
    assert.deepEqual(problems, [], `\n${problems.join('\n')}`);
  });
}

test('axe summary: violating elements per rule over both themes', () => {
  const perRule = new Map<string, { elements: number; views: Set<string> }>();
  for (const { screen, theme, violation } of found) {
    const entry = perRule.get(violation.id) ?? { elements: 0, views: new Set<string>() };
    entry.elements += violation.nodes.length;
    entry.views.add(`${theme} ${screen}`);
    perRule.set(violation.id, entry);
  }
  const lines = [...perRule].map(([rule, { elements, views }]) => `${rule}: ${elements} element(s) in ${views.size} view(s)`);
  console.log(lines.length ? lines.join('\n') : 'axe: no violations');
  assert.deepEqual(lines, []);
});

// ---------- Keyboard only: no click below this line ----------

/** Whether the focused element shows it: an outline or a focus ring (box-shadow). */
async function focusShows(page: Page): Promise<boolean> {
  return page.evaluate(() => {
    const element = document.activeElement;
    if (!element || element === document.body) return false;
    const style = getComputedStyle(element);
    return (style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) > 0) || style.boxShadow !== 'none';
  });
}

/** Presses Tab (or Shift+Tab) until `target` has the focus; fails after `max` presses. */
async function tabTo(page: Page, target: ReturnType<Page['locator']>, what: string, max = 40, key = 'Tab'): Promise<void> {
  await target.waitFor();
  for (let i = 0; i < max; i += 1) {
    await page.keyboard.press(key);
    if (await target.evaluate((element) => element === document.activeElement)) {
      assert.ok(await focusShows(page), `the focus on ${what} is not visible`);
      return;
    }
  }
  assert.fail(`${what} not reached with ${max} presses of ${key}`);
}

const focusedText = (page: Page) => page.evaluate(() => (document.activeElement as HTMLElement | null)?.innerText?.trim() ?? '');

test('keyboard only: skip link, sign-in, search with the tabs, export through a focus-trapped dialog', async () => {
  const user = await suite.server.createUser({ email: uniqueEmail('a11y-keys'), ...FULL_GRANTS });
  const context = await newContext('light');
  const page = await context.newPage();
  await page.goto('/login');
  await h1(page, 'Welcome back').waitFor();

  // The first Tab reaches "Skip to content"; Enter puts the focus in the main content.
  await page.keyboard.press('Tab');
  assert.equal(await focusedText(page), 'Skip to content');
  assert.ok(await focusShows(page), 'the skip link shows when focused');
  await page.keyboard.press('Enter');
  assert.equal(await page.evaluate(() => document.activeElement?.tagName), 'MAIN');

  await tabTo(page, page.locator('input[name="email"]'), 'the email field');
  await page.keyboard.type(user.email);
  await tabTo(page, page.locator('input[name="password"]'), 'the password field');
  await page.keyboard.type(user.password);
  await page.keyboard.press('Enter');
  await page.waitForURL((url) => url.pathname === '/search');

  // Search: the type tabs move with the arrow keys, the query runs on Enter.
  const selectedTab = page.getByRole('tablist', { name: 'Search type' }).locator('[aria-selected="true"]');
  const first = (await selectedTab.textContent())?.trim();
  await tabTo(page, selectedTab, 'the selected search type');
  await page.keyboard.press('ArrowRight');
  assert.notEqual((await selectedTab.textContent())?.trim(), first, 'ArrowRight selects the next type');
  assert.ok(await selectedTab.evaluate((element) => element === document.activeElement), 'the selected tab has the focus');
  await page.keyboard.press('ArrowLeft');
  assert.equal((await selectedTab.textContent())?.trim(), first);
  const query = page.locator('input[name="query"]');
  await tabTo(page, query, 'the query field');
  await page.keyboard.type(QUERY);
  await page.keyboard.press('Enter');
  await page.getByTestId('results-list').locator('li').first().waitFor();

  // Export: the dialog takes the focus, keeps it on Tab and Shift+Tab, closes on Escape
  // and gives the focus back to its button.
  const exportButton = page.getByRole('button', { name: 'Export CSV' }).first();
  await tabTo(page, exportButton, 'Export CSV');
  await page.keyboard.press('Enter');
  const dialog = page.getByRole('dialog', { name: 'Export CSV' });
  await dialog.waitFor();
  const inDialog = () => dialog.evaluate((element) => element.contains(document.activeElement));
  assert.ok(await inDialog(), 'the dialog takes the focus');
  for (const key of ['Tab', 'Tab', 'Tab', 'Tab', 'Tab', 'Shift+Tab', 'Shift+Tab', 'Shift+Tab', 'Shift+Tab', 'Shift+Tab', 'Shift+Tab']) {
    await page.keyboard.press(key);
    assert.ok(await inDialog(), `${key} left the dialog`);
  }
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'detached' });
  assert.ok(await exportButton.evaluate((element) => element === document.activeElement), 'the focus returns to Export CSV');

  await page.keyboard.press('Enter');
  await dialog.waitFor();
  await tabTo(page, dialog.locator('input[name="csv-file-name"]'), 'the file name');
  await page.keyboard.press('ControlOrMeta+a');
  await page.keyboard.type('keyboard.csv');
  const download = page.waitForEvent('download');
  await page.keyboard.press('Enter');
  assert.equal((await download).suggestedFilename(), 'keyboard.csv');
  await context.close();
});

test('keyboard only: a purchase, from the credits page through checkout and a crypto invoice to thank-you', async () => {
  const page = await signedIn('dark');
  await page.goto('/checkout?p=search-credits&q=100');
  const crypto = page.getByRole('link', { name: 'Purchase With Crypto' });
  await tabTo(page, crypto, 'Purchase With Crypto');
  await page.keyboard.press('Enter');
  await page.waitForURL((url) => url.pathname === '/crypto-checkout');
  const invoice = page.getByTestId('crypto-invoice');
  const selected = invoice.getByRole('tab', { selected: true });
  await tabTo(page, selected, 'the selected currency');
  assert.equal((await selected.textContent())?.trim(), 'BTC');
  await page.keyboard.press('End');
  assert.equal((await selected.textContent())?.trim(), 'BCH');
  await page.keyboard.press('Home');
  await page.keyboard.press('ArrowRight');
  assert.equal((await selected.textContent())?.trim(), 'LTC');
  assert.match((await invoice.getByTestId('qr-code').getAttribute('data-qr-text')) ?? '', /^litecoin:/);

  const id = (await invoice.getAttribute('data-invoice-id'))!;
  await page.waitForTimeout(500); // the page has joined the invoice's channel
  await simulateCryptoPayment(suite.server, id);
  await page.waitForURL((url) => url.pathname === '/thank-you', { timeout: 20_000 });
  await page.context().close();
});

/** 1280×800 at 200% zoom lays out as 640×400 CSS pixels. */
const ZOOMED = { width: 640, height: 400 };

test('zoom to 200%: no screen scrolls sideways or hides its heading; reduced motion stops the transitions', async () => {
  const user = await fullUser('zoom');
  const context = await suite.browser.newContext({ baseURL: suite.server.url, viewport: ZOOMED, deviceScaleFactor: 1, reducedMotion: 'reduce' });
  context.setDefaultTimeout(10_000);
  const page = await context.newPage();
  const overflow = () => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  const problems: string[] = [];
  const check = async (name: string) => {
    await page.waitForTimeout(100);
    const extra = await overflow();
    if (extra > 0) problems.push(`${name}: ${extra}px wider than the window`);
    if (!(await page.locator('h1').first().isVisible())) problems.push(`${name}: its heading is hidden`);
  };

  await page.goto('/login');
  await h1(page, 'Welcome back').waitFor();
  await check('login');
  await logInThroughForm(page, user.email, user.password);
  await page.waitForURL((url) => url.pathname === '/search');
  for (const screen of SIGNED_IN) {
    await openScreen(page, screen);
    await check(screen.name);
  }
  // prefers-reduced-motion: the toast's entrance and the buttons' transitions are instant.
  const duration = await page.locator('.button').first().evaluate((element) => getComputedStyle(element).transitionDuration);
  assert.ok(duration.split(',').every((part) => parseFloat(part) <= 0.0001), `transitions under reduced motion: ${duration}`);
  await context.close();
  assert.deepEqual(problems, []);
});
