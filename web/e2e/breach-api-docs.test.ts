/**
 * The Breach API v3 and Pwned Passwords page in real Chromium against the real server:
 * reached from the sidebar by keyboard alone; its breadcrumb, base URLs, contents and
 * anchors, every route of both APIs; samples in Python, Node.js and cURL (no other tab)
 * carrying this origin, the service's headers and the user's key once generated; the tabs
 * and code panels reachable and working by keyboard; axe (WCAG 2.1 A/AA) finds nothing in
 * the dark and the light theme at desktop and phone width, where nothing scrolls sideways
 * and the console stays clean.
 */
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import { DESKTOP, eventually, logInThroughForm, MOBILE, openPage, textOf } from './support/browser';
import { signedInPage, THEMES } from './support/screens';
import { uniqueEmail } from './support/server';
import { useServerAndBrowser } from './support/suite';

const suite = useServerAndBrowser();

const PATH = '/documentation/breach-api';
const TITLE = 'Breach API v3 and Pwned Passwords';
const AXE_SOURCE = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];

const ROUTES = [
  'GET/range/{prefix}',
  'GET/range/{prefix}?mode=ntlm',
  'GET/api/v3/breaches',
  'GET/api/v3/breach/{name}',
  'GET/api/v3/latestbreach',
  'GET/api/v3/dataclasses',
  'GET/api/v3/breachedaccount/{account}hibp-api-key',
  'GET/api/v3/breacheddomain/{domain}hibp-api-key',
  'GET/api/v3/subscribeddomains hibp-api-key',
  'GET/api/v3/stealerlogsbyemail/{email}hibp-api-key',
  'GET/api/v3/stealerlogsbywebsitedomain/{domain}hibp-api-key',
  'GET/api/v3/stealerlogsbyemaildomain/{domain}hibp-api-key',
  'GET/api/v3/pasteaccount/{account}hibp-api-key',
  'GET/api/v3/subscription/status hibp-api-key',
].map((route) => route.replace(/\s+/g, ''));

async function signIn(viewport = DESKTOP): Promise<Page> {
  const user = await suite.server.createUser({ email: uniqueEmail('breachdocs'), verified: true, searchDays: 30 });
  const page = await openPage(suite.browser, suite.server.url, viewport);
  await page.goto(PATH);
  await page.waitForURL((url) => url.pathname === '/login');
  await logInThroughForm(page, user.email, user.password);
  await page.waitForURL((url) => url.pathname === PATH);
  await page.getByRole('heading', { level: 1, name: TITLE }).waitFor();
  return page;
}

const sample = (page: Page, name: string, language: string) => textOf(page.getByTestId(`sample-${name}-${language}`));
const focused = (page: Page) => page.evaluate(() => ({ tag: document.activeElement?.tagName, text: (document.activeElement as HTMLElement | null)?.innerText?.trim() }));

/** Presses Tab until `reached` holds; fails after `max` presses. */
async function tabUntil(page: Page, what: string, reached: () => Promise<boolean>, max = 120): Promise<void> {
  for (let i = 0; i < max; i += 1) {
    await page.keyboard.press('Tab');
    if (await reached()) return;
  }
  assert.fail(`${what} not reached with ${max} presses of Tab`);
}

test('the page: breadcrumb, base URLs, contents and anchors, every route, the key in every sample', async () => {
  const page = await signIn();
  const origin = suite.server.url;
  assert.equal(await textOf(page.getByRole('navigation', { name: 'Breadcrumb' })), `Documentation / ${TITLE}`);
  assert.equal(await page.title(), `${TITLE} · LeakWell`);
  const sidebar = page.getByRole('complementary', { name: 'Main navigation' });
  assert.equal(await sidebar.getByRole('link', { name: TITLE }).getAttribute('aria-current'), 'page');

  const intro = await textOf(page.locator('#introduction'));
  assert.ok(intro.includes(`${origin}/range/`) && intro.includes(`${origin}/api/v3/`), intro);
  const auth = await textOf(page.locator('#authentication'));
  for (const part of ['hibp-api-key: YOUR_API_KEY', 'user-agent', '403', 'search subscription']) assert.ok(auth.includes(part), part);
  assert.match(await textOf(page.locator('#rate-limits')), /429.*retry-after/s);
  const errors = await textOf(page.locator('#errors'));
  for (const status of ['400', '401', '403', '404', '429', '"statusCode"']) assert.ok(errors.includes(status), status);
  const differences = await textOf(page.locator('#differences'));
  for (const part of ['pasteaccount', '404', 'HTML-escaped', 'records in our data']) assert.ok(differences.includes(part), part);
  const model = await textOf(page.locator('#breach-model'));
  for (const field of ['Name', 'PwnCount', 'DataClasses', 'IsSensitive', 'IsStealerLog', 'IsSubscriptionFree']) assert.ok(model.includes(field), field);
  assert.ok((await textOf(page.locator('#clients'))).includes(`baseUrl: "${origin}/api/v3"`));

  // The contents: every entry lands on its section.
  const toc = page.getByRole('navigation', { name: 'Table of contents' });
  const hrefs = await toc.getByRole('link').evaluateAll((links) => links.map((link) => link.getAttribute('href') ?? ''));
  assert.equal(hrefs.length, 10 + ROUTES.length);
  for (const href of [...hrefs].reverse()) {
    assert.equal(await page.locator(`section[id="${href.slice(1)}"]`).count(), 1, href);
    await toc.locator(`a[href="${href}"]`).click();
    await eventually(() => page.evaluate(() => window.location.hash), href);
  }
  const routes = await page.locator('.docs-endpoint').evaluateAll((nodes) => nodes.map((node) => node.textContent?.replace(/\s+/g, '') ?? ''));
  assert.deepEqual(routes, ROUTES);

  // Three languages; the key placeholder until a key is generated, then the key itself.
  const tabs = page.getByTestId('samples-v3-breachedaccount').getByRole('tab');
  assert.deepEqual(await tabs.allTextContents(), ['Python', 'Node.js', 'cURL']);
  assert.match(await sample(page, 'v3-breachedaccount', 'python'), /"hibp-api-key": "YOUR_API_KEY"/);
  const control = page.getByTestId('api-key-control');
  await control.getByRole('button', { name: /^(Generate|Regenerate)$/ }).click();
  await page.getByRole('dialog', { name: 'Are you sure?' }).getByRole('button', { name: /key$/ }).click();
  await eventually(async () => /^[0-9a-f]{48}$/.test(await textOf(control.getByTestId('api-key-value'))), true);
  const key = await textOf(control.getByTestId('api-key-value'));
  suite.server.markSecret(key);
  for (const [label, id, header] of [
    ['Python', 'python', `"hibp-api-key": "${key}"`],
    ['Node.js', 'nodejs', `"hibp-api-key": "${key}"`],
    ['cURL', 'curl', `'hibp-api-key: ${key}'`],
  ] as const) {
    await tabs.getByText(label, { exact: true }).click();
    const code = await sample(page, 'v3-breachedaccount', id);
    assert.ok(code.includes(header), `${label}: ${code}`);
    assert.ok(code.includes(`${origin}/api/v3/breachedaccount/name@example.com?truncateResponse=false`), label);
    assert.ok(code.includes('user-agent'), label);
  }
  // The catalogue's samples send no key; the range samples send only a prefix, with padding.
  assert.ok(!(await sample(page, 'v3-breaches', 'python')).includes('hibp-api-key'));
  await page.getByTestId('samples-range-sha1').getByRole('tab', { name: 'cURL' }).click();
  const range = await sample(page, 'range-sha1', 'curl');
  assert.ok(range.includes(`${origin}/range/21BD1`) && range.includes('Add-Padding: true'), range);
  await page.getByTestId('samples-range-ntlm').getByRole('tab', { name: 'cURL' }).click();
  assert.ok((await sample(page, 'range-ntlm', 'curl')).includes(`${origin}/range/E19CC?mode=ntlm`));
  await page.context().close();
});

test('keyboard only: the sidebar link opens the page; a sample\'s tabs and code are reachable and switch with the arrow keys', async () => {
  const user = await suite.server.createUser({ email: uniqueEmail('breachdocs-keys'), verified: true });
  const page = await openPage(suite.browser, suite.server.url);
  await page.goto('/login');
  await logInThroughForm(page, user.email, user.password);
  await page.waitForURL((url) => url.pathname === '/search');
  await page.goto('/documentation/api');
  await page.getByRole('heading', { level: 1, name: 'API Documentation' }).waitFor();
  await tabUntil(page, 'the sidebar link', async () => {
    const focus = await focused(page);
    return focus.tag === 'A' && focus.text === TITLE;
  });
  await page.keyboard.press('Enter');
  await page.waitForURL((url) => url.pathname === PATH);
  await page.getByRole('heading', { level: 1, name: TITLE }).waitFor();

  const samples = page.getByTestId('samples-range-sha1');
  const selected = samples.getByRole('tab', { selected: true });
  await tabUntil(page, 'the first sample\'s selected tab', () => selected.evaluate((element) => element === document.activeElement));
  assert.equal(await textOf(selected), 'Python');
  await page.keyboard.press('ArrowRight');
  assert.equal(await textOf(selected), 'Node.js');
  assert.ok(await selected.evaluate((element) => element === document.activeElement), 'the focus follows the selection');
  assert.match(await sample(page, 'range-sha1', 'nodejs'), /createHash\('sha1'\)/);
  await page.keyboard.press('End');
  assert.equal(await textOf(selected), 'cURL');
  // Past the tabs: the copy button, then the code itself (a scrollable panel).
  await page.keyboard.press('Tab');
  assert.equal((await focused(page)).text, 'Copy');
  await page.keyboard.press('Tab');
  assert.ok(await samples.getByRole('tabpanel').evaluate((element) => element === document.activeElement), 'the code panel takes the focus');
  await page.context().close();
});

interface AxeViolation {
  id: string;
  help: string;
  nodes: { target: unknown[] }[];
}

async function axeViolations(page: Page): Promise<string[]> {
  await page.waitForTimeout(150);
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE_SOURCE);
  const violations = (await page.evaluate(async (tags) => {
    const axe = (window as unknown as { axe: { run: (context: unknown, options: unknown) => Promise<{ violations: unknown[] }> } }).axe;
    return (await axe.run(document, { runOnly: { type: 'tag', values: tags }, resultTypes: ['violations'] })).violations;
  }, TAGS)) as AxeViolation[];
  return violations.map((v) => `${v.id} ${v.help}: ${v.nodes.slice(0, 6).map((n) => JSON.stringify(n.target)).join(' | ')}`);
}

for (const theme of THEMES) {
  test(`${theme} theme, desktop and phone widths: no axe violation, nothing wider than the screen, no console error`, async () => {
    const user = await suite.server.createUser({ email: uniqueEmail(`breachdocs-${theme}`), verified: true });
    const page = await signedInPage(suite.browser, suite.server, user, theme);
    const errors: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    await page.goto(PATH);
    await page.getByRole('heading', { level: 1, name: TITLE }).waitFor();
    assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), theme);
    for (const [name, viewport] of [['desktop', DESKTOP], ['phone', MOBILE], ['narrow phone', { width: 320, height: 740 }]] as const) {
      await page.setViewportSize(viewport);
      assert.deepEqual(await axeViolations(page), [], `${theme} ${name}`);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(overflow <= 0, `${theme} ${name}: ${overflow}px wider than the window`);
    }
    assert.deepEqual(errors, []);
    await page.context().close();
  });
}
