/**
 * Every screen of the dashboard for the tests that walk them all (accessibility.test.ts,
 * phone-layout.test.ts): where each is, what shows it is ready, the data that fills it
 * (a data well with search results, an account with plans, credits, an API key and
 * monitoring tasks), and a signed-in page in a chosen theme and viewport.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { DESKTOP, logInThroughForm } from './browser';
import { addTaskByApi } from './monitoring';
import { uniqueEmail, type TestServer, type UserOptions } from './server';

export type Theme = 'dark' | 'light';
export const THEMES: readonly Theme[] = ['dark', 'light'];

export const SCREEN_WELL = 'Accessibility Well';
const RECORDS: object[] = [
  { email: 'ally.one@a11y.example', username: 'ally_one', password: 'ally-shared-pass', name: 'Ally One', hashed_password: '5f4dcc3b5aa765d61d8327deb882cf99:None' },
  { email: 'hidden', username: 'ally_masked', password: 'ally-shared-pass' },
  ...Array.from({ length: 45 }, (_, i) => ({ email: `ally${i}@a11y.example`, password: 'ally-shared-pass', username: `ally_${i}` })),
];
/** A search that finds the well's records. */
export const SCREEN_QUERY = 'password:ally-shared-pass';

/** Publishes the well the search screens show. */
export const seedScreens = (server: TestServer) => server.ingest(SCREEN_WELL, RECORDS);

/** What a full account holds: a search plan, search and WHOIS credits, enterprise. */
export const FULL_GRANTS: UserOptions = { verified: true, searchDays: 30, searchCredits: 100, whoisCredits: 100, enterprise: true };

export const h1 = (page: Page, name: string | RegExp) => page.getByRole('heading', { level: 1, name }).first();
const main = (page: Page) => page.locator('main h1, main h2').first().waitFor();

/** A screen: where to go and what shows it is ready. */
export interface Screen {
  name: string;
  path: string;
  ready: (page: Page) => Promise<unknown>;
  /** Opened from inside the app, without a document load (GET /subscriptions answers the API as well). */
  inApp?: boolean;
}

export const SIGNED_OUT: Screen[] = [
  { name: 'login', path: '/login', ready: (p) => h1(p, 'Welcome back').waitFor() },
  { name: 'register', path: '/register', ready: (p) => h1(p, 'Create your account').waitFor() },
  { name: 'forgot-password', path: '/forgot-password', ready: (p) => p.locator('input[name="email"]').waitFor() },
  { name: 'tos-privacy', path: '/tos-privacy', ready: (p) => h1(p, 'Terms of Service & Privacy Policy').waitFor() },
  { name: 'opt-out', path: '/opt-out', ready: (p) => h1(p, 'Remove your email from search results').waitFor() },
  { name: 'not-found', path: '/nowhere', ready: (p) => h1(p, 'Page not found').waitFor() },
];

export const SIGNED_IN: Screen[] = [
  { name: 'search', path: '/search', ready: (p) => h1(p, 'Search').waitFor() },
  {
    name: 'search results',
    path: `/search?q=${encodeURIComponent(SCREEN_QUERY)}`,
    ready: (p) => p.getByTestId('results-list').locator('li').first().waitFor(),
  },
  { name: 'whois', path: '/whois', ready: main },
  { name: 'entry-removal', path: '/entry-removal', ready: main },
  { name: 'data-wells', path: '/data-wells', ready: (p) => p.getByText(SCREEN_WELL).first().waitFor() },
  { name: 'profile', path: '/profile', ready: (p) => h1(p, 'Profile Settings').waitFor() },
  { name: 'close-account', path: '/close-account', ready: main },
  { name: 'faq', path: '/documentation/faq', ready: main },
  { name: 'search-guide', path: '/documentation/search-guide', ready: main },
  { name: 'quick-start', path: '/documentation/quick-start', ready: main },
  { name: 'api-docs', path: '/documentation/api', ready: main },
  { name: 'breach-api-docs', path: '/documentation/breach-api', ready: main },
  { name: 'monitoring-api', path: '/monitoring/api', ready: main },
  { name: 'monitoring-docs', path: '/monitoring/documentation', ready: main },
  { name: 'monitoring-docs-v2', path: '/monitoring/documentation-v2', ready: main },
  { name: 'monitoring-manage', path: '/monitoring/manage', ready: (p) => p.getByTestId('tier-tag').waitFor() },
  { name: 'monitoring-tasks', path: '/monitoring/manage/tasks', ready: (p) => p.getByTestId('task-value').first().waitFor() },
  { name: 'monitoring-channels', path: '/monitoring/manage/channels', ready: main },
  { name: 'monitoring-reports', path: '/monitoring/reports', ready: main },
  { name: 'notifications', path: '/notifications', ready: main },
  { name: 'subscriptions', path: '/subscriptions', inApp: true, ready: (p) => p.getByRole('region', { name: 'API credits', exact: true }).waitFor() },
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

/** Opens a screen and waits until it is ready. */
export async function openScreen(page: Page, screen: Screen): Promise<void> {
  if (screen.inApp) {
    await page.goto('/profile');
    await h1(page, 'Profile Settings').waitFor();
    await page.evaluate((path) => {
      history.pushState(null, '', path);
      dispatchEvent(new PopStateEvent('popstate'));
    }, screen.path);
  } else {
    await page.goto(screen.path);
  }
  await screen.ready(page);
}

/** A context in `theme` (the cookie is set before the first load), reduced motion so what is measured has settled. */
export async function themedContext(browser: Browser, server: TestServer, theme: Theme, viewport = DESKTOP): Promise<BrowserContext> {
  const context = await browser.newContext({ baseURL: server.url, viewport, deviceScaleFactor: 1, reducedMotion: 'reduce' });
  context.setDefaultTimeout(10_000);
  await context.addCookies([{ name: 'theme', value: theme, url: server.url }]);
  return context;
}

/** A fresh account with plans, credits, two monitoring tasks (values from `label`) and an API key, and its token. */
export async function fullUser(server: TestServer, label: string) {
  const user = await server.createUser({ email: uniqueEmail(`screens-${label}`), apiKey: true, ...FULL_GRANTS });
  const { token } = await server.login(user.email, user.password);
  await addTaskByApi(server, token, 'email', `watch-${label}@a11y.example`);
  await addTaskByApi(server, token, 'username', `watch_${label}`);
  return { ...user, token };
}

/** A page of `user` signed in through the form (in `theme`), on /search. */
export async function signedInPage(browser: Browser, server: TestServer, user: { email: string; password: string }, theme: Theme, viewport = DESKTOP): Promise<Page> {
  const page = await (await themedContext(browser, server, theme, viewport)).newPage();
  await page.goto('/login');
  await logInThroughForm(page, user.email, user.password);
  await page.waitForURL((url) => url.pathname === '/search');
  return page;
}
