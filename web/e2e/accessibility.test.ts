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
import { DESKTOP, logInThroughForm } from './support/browser';
import { addTaskByApi } from './support/monitoring';
import { uniqueEmail, type UserOptions } from './support/server';
import { useServerAndBrowser } from './support/suite';

const WELL = 'Accessibility Well';
const RECORDS: object[] = [
  { email: 'ally.one@a11y.example', username: 'ally_one', password: 'ally-shared-pass', name: 'Ally One', hashed_password: '5f4dcc3b5aa765d61d8327deb882cf99:None' },
  { email: 'hidden', username: 'ally_masked', password: 'ally-shared-pass' },
  ...Array.from({ length: 45 }, (_, i) => ({ email: `ally${i}@a11y.example`, password: 'ally-shared-pass', username: `ally_${i}` })),
];
const QUERY = 'password:ally-shared-pass';

const suite = useServerAndBrowser(({ server }) => server.ingest(WELL, RECORDS));
const GRANTS: UserOptions = { verified: true, searchDays: 30, searchCredits: 100, whoisCredits: 10, enterprise: true };

const AXE_SOURCE = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];
type Theme = 'dark' | 'light';

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

async function newContext(theme: Theme): Promise<BrowserContext> {
  // Reduced motion makes transitions instant, so colours are measured in their final state
  // (a button fading in from disabled would otherwise be caught half-way).
  const context = await suite.browser.newContext({ baseURL: suite.server.url, viewport: DESKTOP, deviceScaleFactor: 1, reducedMotion: 'reduce' });
  context.setDefaultTimeout(10_000);
  await context.addCookies([{ name: 'theme', value: theme, url: suite.server.url }]);
  return context;
}

const h1 = (page: Page, name: string | RegExp) => page.getByRole('heading', { level: 1, name }).first();

/** A screen: where to go, what shows it is ready, and optional steps to a state on it. */
interface Screen {
  name: string;
  path: string;
  ready: (page: Page) => Promise<unknown>;
  /** Navigates without a document load (GET /subscriptions answers the API as well). */
  viaNav?: string;
}

const SIGNED_OUT: Screen[] = [
  { name: 'login', path: '/login', ready: (p) => h1(p, 'Welcome back').waitFor() },
  { name: 'register', path: '/register', ready: (p) => h1(p, 'Create your account').waitFor() },
  { name: 'forgot-password', path: '/forgot-password', ready: (p) => p.locator('input[name="email"]').waitFor() },
  { name: 'tos-privacy', path: '/tos-privacy', ready: (p) => h1(p, 'Terms of Service & Privacy Policy').waitFor() },
  { name: 'opt-out', path: '/opt-out', ready: (p) => h1(p, 'Remove your email from search results').waitFor() },
  { name: 'not-found', path: '/nowhere', ready: (p) => h1(p, 'Page not found').waitFor() },
];

const main = (page: Page) => page.locator('main h1, main h2').first().waitFor();

const SIGNED_IN: Screen[] = [
  { name: 'search', path: '/search', ready: (p) => h1(p, 'Search').waitFor() },
  {
    name: 'search results',
    path: `/search?q=${encodeURIComponent(QUERY)}`,
    ready: (p) => p.getByTestId('results-list').locator('li').first().waitFor(),
  },
  { name: 'whois', path: '/whois', ready: main },
  { name: 'entry-removal', path: '/entry-removal', ready: main },
  { name: 'data-wells', path: '/data-wells', ready: (p) => p.getByText(WELL).first().waitFor() },
  { name: 'profile', path: '/profile', ready: (p) => h1(p, 'Profile Settings').waitFor() },
  { name: 'close-account', path: '/close-account', ready: main },
  { name: 'faq', path: '/documentation/faq', ready: main },
  { name: 'search-guide', path: '/documentation/search-guide', ready: main },
  { name: 'quick-start', path: '/documentation/quick-start', ready: main },
  { name: 'api-docs', path: '/documentation/api', ready: main },
  { name: 'monitoring-api', path: '/monitoring/api', ready: main },
  { name: 'monitoring-docs', path: '/monitoring/documentation', ready: main },
  { name: 'monitoring-docs-v2', path: '/monitoring/documentation-v2', ready: main },
  { name: 'monitoring-manage', path: '/monitoring/manage', ready: (p) => p.getByTestId('tier-tag').waitFor() },
  { name: 'monitoring-tasks', path: '/monitoring/manage/tasks', ready: (p) => p.getByTestId('task-value').first().waitFor() },
  { name: 'monitoring-channels', path: '/monitoring/manage/channels', ready: main },
  { name: 'monitoring-reports', path: '/monitoring/reports', ready: main },
  { name: 'notifications', path: '/notifications', ready: main },
  { name: 'subscriptions', path: '/profile', viaNav: 'Subscriptions', ready: (p) => p.getByRole('region', { name: 'API credits', exact: true }).waitFor() },
  { name: 'payment-history', path: '/subscriptions/payment-history', ready: main },
  { name: 'plans-search', path: '/subscriptions/search', ready: main },
  { name: 'credits-search', path: '/subscriptions/search-credits', ready: main },
  { name: 'credits-whois', path: '/subscriptions/whois-credits', ready: main },
  { name: 'plans-monitoring', path: '/subscriptions/monitoring', ready: main },
  {
    name: 'checkout',
    path: '/checkout?p=search-credits&q=100',
    // The card button is enabled once the provider's script has loaded (400 ms after the page).
    ready: (p) => p.locator('[data-testid="card-purchase"]:not([disabled])').waitFor(),
  },
  { name: 'thank-you', path: '/thank-you?p=search-credits', ready: main },
  { name: 'event-codes', path: '/event-codes', ready: main },
  { name: 'not-found (framed)', path: '/monitoring/nowhere', ready: main },
];

/** Opens a screen and audits it; returns the lines describing its violations. */
async function visit(page: Page, screen: Screen, theme: Theme): Promise<string[]> {
  await page.goto(screen.path);
  if (screen.viaNav) {
    await page.getByRole('complementary', { name: 'Main navigation' }).getByRole('link', { name: screen.viaNav }).click();
  }
  await screen.ready(page);
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
async function fullUser(label: string) {
  const user = await suite.server.createUser({ email: uniqueEmail(`a11y-${label}`), apiKey: true, ...GRANTS });
  const { token } = await suite.server.login(user.email, user.password);
  await addTaskByApi(suite.server, token, 'email', `watch-${label}@a11y.example`);
  await addTaskByApi(suite.server, token, 'username', `watch_${label}`);
  return user;
}

/** A signed-in context (in `theme`) of a fresh full account, on /search. */
async function signedIn(theme: Theme): Promise<Page> {
  const user = await fullUser(theme);
  const page = await (await newContext(theme)).newPage();
  await page.goto('/login');
  await logInThroughForm(page, user.email, user.password);
  await page.waitForURL((url) => url.pathname === '/search');
  return page;
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
  const user = await suite.server.createUser({ email: uniqueEmail('a11y-keys'), ...GRANTS });
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
  for (const screen of SIGNED_IN.filter(({ viaNav }) => !viaNav)) {
    await page.goto(screen.path);
    await screen.ready(page);
    await check(screen.name);
  }
  // prefers-reduced-motion: the toast's entrance and the buttons' transitions are instant.
  const duration = await page.locator('.button').first().evaluate((element) => getComputedStyle(element).transitionDuration);
  assert.ok(duration.split(',').every((part) => parseFloat(part) <= 0.0001), `transitions under reduced motion: ${duration}`);
  await context.close();
  assert.deepEqual(problems, []);
});
