/** Route table, frame, theme and not-found screen. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import { DESKTOP, eventually, logInThroughForm, MOBILE, openPage, textOf } from './support/browser';
import { newUser } from './support/server';
import { useServerAndBrowser } from './support/suite';

const suite = useServerAndBrowser();

async function signedInPage(viewport = DESKTOP): Promise<Page> {
  const user = await newUser(suite.server);
  const page = await openPage(suite.browser, suite.server.url, viewport);
  await page.goto('/login');
  await logInThroughForm(page, user.email, user.password);
  await page.waitForURL((url) => url.pathname === '/search');
  return page;
}

const theme = (page: Page) => page.evaluate(() => document.documentElement.dataset.theme);

test('the not-found screen offers quick navigation, services and help', async () => {
  const page = await openPage(suite.browser, suite.server.url);
  await page.goto('/no/such/page');
  await page.getByRole('heading', { name: 'Page not found', exact: true }).waitFor();
  const quick = page.getByRole('navigation', { name: 'Quick navigation' });
  for (const [name, href] of [
    ['Home', '/'],
    ['About', '/tos-privacy'],
    ['Data wells', '/data-wells'],
    ['FAQ', '/documentation/faq'],
  ]) {
    assert.equal(await quick.getByRole('link', { name }).getAttribute('href'), href);
  }
  for (const href of ['/search', '/monitoring/manage', '/documentation/api-v1', '/whois']) {
    assert.equal(await page.locator(`.tile[href="${href}"]`).count(), 1, href);
  }
  for (const name of ['FAQ', 'Customer service', 'Knowledge base']) {
    await page.locator('.tile-title', { hasText: name }).first().waitFor();
  }
  assert.equal(await page.title(), 'Page not found · LeakWell');
  await page.context().close();
});

test('opt-out is one click from every screen anyone can open: sign-in, registration, terms and privacy, not found', async () => {
  const page = await openPage(suite.browser, suite.server.url);
  const reachesOptOut = async (link: Locator) => {
    assert.equal(await link.getAttribute('href'), '/opt-out');
    await link.click();
    // The page itself, signed out: no detour through the sign-in.
    await page.waitForURL((url) => url.pathname === '/opt-out');
    await eventually(() => page.title(), 'Opt-out · LeakWell');
  };
  for (const path of ['/login', '/register']) {
    await page.goto(path);
    assert.match(await textOf(page.getByTestId('auth-opt-out')), /Want your email address out of our search results\? Opt out, no account needed\./);
    await reachesOptOut(page.getByTestId('auth-opt-out').getByRole('link', { name: 'Opt out' }));
    await page.goto(path);
    await reachesOptOut(page.getByRole('contentinfo').getByRole('link', { name: 'Opt-out' }));
  }
  // The terms and privacy page: at its top, and in the privacy part's Your Rights (kept).
  await page.goto('/tos-privacy');
  const rightsHref = await page.getByTestId('legal-opt-out').getByRole('link', { name: 'Your Rights' }).getAttribute('href');
  assert.match(await textOf(page.locator(`${rightsHref} h3`)), /Your Rights$/);
  await reachesOptOut(page.getByTestId('legal-opt-out').getByRole('link', { name: 'opt-out page' }));
  await page.goto('/tos-privacy');
  const rights = page.locator('.legal-section', { has: page.getByRole('heading', { name: /Your Rights$/ }) });
  await reachesOptOut(rights.getByRole('link', { name: 'opt-out page' }));
  // The not-found screen's help, the help anyone can open (the FAQ and guides need an account).
  await page.goto('/no/such/page');
  const help = page.getByRole('navigation', { name: 'Need help?' });
  await reachesOptOut(help.getByRole('link', { name: /Opt out/ }));
  await page.context().close();
});

test('the brand comes from the server and names the product', async () => {
  const page = await openPage(suite.browser, suite.server.url);
  await page.goto('/login');
  const brand = await page.locator('meta[name="app-brand"]').getAttribute('content');
  assert.ok(brand && !brand.includes('%'), 'the server filled the placeholder');
  assert.equal(await textOf(page.locator('.logo-text')), brand);
  const support = await page.locator('meta[name="app-support-url"]').getAttribute('content');
  assert.equal(await page.getByRole('link', { name: 'Get Help' }).getAttribute('href'), support);
  await page.context().close();
});

test('the frame highlights the section and sub-item; placeholders stand in for later pages', async () => {
  const page = await signedInPage();
  await page.goto('/monitoring/reports/12');
  await page.getByRole('heading', { name: 'Monitoring Reports', exact: true }).waitFor();
  const sidebar = page.getByRole('complementary', { name: 'Main navigation' });
  assert.deepEqual(await sidebar.locator('.nav-link.active').allTextContents(), ['Monitoring']);
  assert.deepEqual(await sidebar.locator('.nav-sublink.active').allTextContents(), ['Reports']);

  // Unknown paths under /monitoring keep the frame around the not-found content.
  await page.goto('/monitoring/unknown');
  await page.getByRole('heading', { name: 'Page not found', exact: true }).waitFor();
  await sidebar.waitFor();
  await page.context().close();
});

test('dark by default; the theme survives a reload; the sign-in screen forces light', async () => {
  const page = await signedInPage();
  assert.equal(await theme(page), 'dark');
  await page.locator('.topbar').getByTestId('theme-switch').click();
  assert.equal(await theme(page), 'light');
  const cookie = (await page.context().cookies()).find((c) => c.name === 'theme');
  assert.equal(cookie?.value, 'light');
  // We ask for 72,000,000,000 ms (about 2.3 years); Chromium caps cookie lifetimes at 400 days.
  assert.ok(cookie && cookie.expires * 1000 > Date.now() + 399 * 86_400_000, 'a long-lived cookie');
  await page.reload();
  await page.getByRole('heading', { name: 'Search', exact: true }).waitFor();
  assert.equal(await theme(page), 'light');

  await page.locator('.topbar').getByTestId('theme-switch').click();
  assert.equal(await theme(page), 'dark');
  // /logout typed into the address bar goes to the login screen and nowhere else, not even
  // for a moment while the page load's refresh is still answering.
  const visited: string[] = [];
  page.on('framenavigated', (frame) => {
    if (frame === page.mainFrame()) visited.push(new URL(frame.url()).pathname);
  });
  await page.goto('/logout');
  await page.waitForURL((url) => url.pathname === '/login');
  await page.waitForTimeout(500);
  assert.deepEqual(visited.filter((path) => path !== '/logout' && path !== '/login'), [], `visited ${visited.join(' → ')}`);
  await eventually(() => theme(page), 'light'); // the sign-in screen is light while mounted
  await page.getByRole('link', { name: 'Terms & Privacy' }).click();
  await page.getByRole('heading', { name: 'Terms of Service & Privacy Policy', exact: true }).waitFor();
  await eventually(() => theme(page), 'dark'); // leaving it restores the user's theme
  await page.context().close();
});

test('mobile: the menu opens under 800 px and carries the theme switcher', async () => {
  const page = await signedInPage(MOBILE);
  const sidebar = page.getByRole('complementary', { name: 'Main navigation' });
  assert.equal(await sidebar.getByRole('link', { name: 'Profile' }).isVisible(), false);
  await page.getByRole('button', { name: 'Open menu' }).click();
  await sidebar.getByRole('link', { name: 'Profile' }).waitFor({ state: 'visible' });
  await sidebar.getByTestId('theme-switch').click();
  assert.equal(await theme(page), 'light');
  await sidebar.getByRole('link', { name: 'Profile' }).click();
  await page.waitForURL((url) => url.pathname === '/profile');
  await page.getByRole('heading', { name: 'Profile Settings', exact: true }).waitFor();
  await page.context().close();
});

test('the legal page: sections, 13 numbered privacy sections, active section follows the scroll', async () => {
  const page = await openPage(suite.browser, suite.server.url);
  await page.goto('/tos-privacy');
  await page.getByText('Updated Nov 13, 2020').waitFor();
  const nav = page.getByRole('navigation', { name: 'Sections' });
  assert.equal(await nav.locator('a[href^="#privacy-"]').count(), 13);
  assert.equal(await textOf(nav.locator('a.active')), 'Preamble');
  await page.evaluate(() => document.getElementById('privacy-7')!.scrollIntoView());
  await page.waitForFunction(() => document.querySelector('.legal-nav a.active')?.textContent === '7. Data Retention');
  assert.equal(await page.getByRole('link', { name: 'Subscribe' }).getAttribute('href'), '/subscriptions/search');
  // The header: Home, Login for an anonymous visitor only, Help (/help, which goes on to the support site).
  const header = page.getByRole('navigation', { name: 'Site' });
  assert.deepEqual(await header.getByRole('link').allInnerTexts(), ['Home', 'Login', 'Help', 'Subscribe']);
  assert.equal(await header.getByRole('link', { name: 'Help' }).getAttribute('href'), '/help');
  await page.context().close();

  const signedIn = await signedInPage();
  await signedIn.goto('/tos-privacy');
  await signedIn.getByText('Updated Nov 13, 2020').waitFor();
  assert.deepEqual(await signedIn.getByRole('navigation', { name: 'Site' }).getByRole('link').allInnerTexts(), ['Home', 'Help', 'Subscribe']);
  await signedIn.context().close();
});
