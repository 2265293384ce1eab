/**
 * The help pages against the real server: FAQ anchors, the Search Guide's
 * hashing helper (right digests, nothing sent) and Live Examples (each opens /search and
 * the search runs and finds the seeded records), Quick Start's checklist and samples with
 * the user's key. Screenshots at desktop and mobile width go to E2E_SCREENSHOT_DIR when it
 * is set, else to a temporary directory.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import type { Page, Request } from 'playwright-core';
import { GUIDE_EXAMPLE_RECORDS, GUIDE_EXAMPLE_WELL } from '../src/features/docs/lib/search-examples.fixture';
import { SEARCH_EXAMPLES } from '../src/features/docs/lib/search-examples';
import { DESKTOP, eventually, logInThroughForm, MOBILE, openPage, textOf } from './support/browser';
import { uniqueEmail, type UserOptions } from './support/server';
import { useServerAndBrowser } from './support/suite';

const suite = useServerAndBrowser(({ server }) => server.ingest(GUIDE_EXAMPLE_WELL, GUIDE_EXAMPLE_RECORDS));
const SUBSCRIBED: UserOptions = { verified: true, searchDays: 30, searchCredits: 10 };

const FAQ_ANCHORS = [
  'twoFactor',
  'preventAbuse',
  'weWorkWith',
  'dataNotShown',
  'leStatus',
  'howDifferent',
  'tooManyResults',
  'logsAndPrivacy',
  'siteSecurity',
  'accessAndPurchase',
  'credits',
  'favourites',
  'readingCharts',
  'deleteData',
  'closeAccount',
];

const shotDir = process.env.E2E_SCREENSHOT_DIR ?? fs.mkdtempSync(path.join(os.tmpdir(), 'lw-help-shots-'));
fs.mkdirSync(shotDir, { recursive: true });
after(() => {
  if (!process.env.E2E_SCREENSHOT_DIR) fs.rmSync(shotDir, { recursive: true, force: true });
});

async function signIn(target: string, options: UserOptions = SUBSCRIBED, viewport = DESKTOP): Promise<Page> {
  const user = await suite.server.createUser({ email: uniqueEmail('help'), ...options });
  const page = await openPage(suite.browser, suite.server.url, viewport);
  await page.goto(target);
  await page.waitForURL((url) => url.pathname === '/login');
  await logInThroughForm(page, user.email, user.password);
  await page.waitForURL((url) => url.pathname === target);
  return page;
}

const isSearchCall = (request: Request) => request.method() === 'POST' && new URL(request.url()).pathname === '/search';

test('FAQ: the fifteen anchors in the contents (two-factor sign-in first), each jumping to its answer; updated April 2025', async () => {
  const page = await signIn('/documentation/faq');
  await page.getByRole('heading', { level: 1, name: 'Frequently Asked Questions' }).waitFor();
  await page.getByText('Updated April 2025').waitFor();
  const toc = page.getByRole('navigation', { name: 'Table of contents' });
  const hrefs = await toc.getByRole('link').evaluateAll((links) => links.map((link) => link.getAttribute('href')));
  assert.deepEqual(hrefs, FAQ_ANCHORS.map((id) => `#${id}`));
  // The support link is the frame's, from the operator's settings.
  const support = await page.locator('#leStatus a').first().getAttribute('href');
  assert.ok(support && /^https?:\/\//.test(support), String(support));

  for (const id of [...FAQ_ANCHORS].reverse()) {
    await toc.locator(`a[href="#${id}"]`).click();
    await eventually(() => page.evaluate(() => window.location.hash), `#${id}`);
    await eventually(
      () => page.evaluate((anchor) => {
        const top = document.getElementById(anchor)?.getBoundingClientRect().top ?? -1;
        return top >= 0 && top < window.innerHeight - 100;
      }, id),
      true,
    );
    assert.equal(await page.locator(`#${id} h2`).count(), 1);
  }
  // A link straight to an anchor lands on it too.
  await page.goto('/documentation/faq#closeAccount');
  await page.getByRole('heading', { level: 1, name: 'Frequently Asked Questions' }).waitFor();
  await eventually(() => page.evaluate(() => window.scrollY > 0 && (document.getElementById('closeAccount')?.getBoundingClientRect().top ?? -1) >= 0), true);
});

test('Search Guide: the hashing helper shows every digest and sends nothing', async () => {
  const page = await signIn('/documentation/search-guide');
  await page.getByRole('heading', { level: 1, name: 'Search Guide' }).waitFor();
  for (const heading of ['Searchable Fields', 'Password Hashing', 'IP Address', 'Domain', 'Wildcard', 'Regex', 'Origin Matching', 'Field Matching', 'Mixing Operators']) {
    await page.getByRole('heading', { level: 2, name: heading }).waitFor();
  }
  assert.equal(await page.locator('.help-fields tbody tr').count(), 16);

  const sent: string[] = [];
  page.on('request', (request) => sent.push([request.url(), request.postData() ?? '', JSON.stringify(request.headers())].join('\n')));

  const helper = page.getByTestId('hashing-helper');
  const digest = (name: string) => textOf(helper.getByTestId(`hash-${name}`));
  await helper.getByLabel('Password').fill('password');
  await eventually(() => digest('md5'), '5f4dcc3b5aa765d61d8327deb882cf99');
  assert.equal(await digest('sha1'), '5baa61e4c9b93f3f0682250b6cf8331b7ee68fd8');
  assert.equal(await digest('sha256'), '5e884898da28047151d0e56f8dc6292773603d0d6aabbdd62a11ef721d1542d8');
  assert.equal(
    await digest('sha512'),
    'b109f3bbbc244eb82441917ed06d618b9008dd09b3befd1b5e07394c706a8bb980b1d7785e5976ec049b46df5f1326af5a2ea6d103fd07c95385ffab0cacbc86',
  );
  assert.equal(await digest('base64'), 'cGFzc3dvcmQ=');
  const known = await Promise.all(['md5', 'sha1', 'sha256', 'sha512', 'base64'].map(digest));

  // A distinctive password, typed key by key as a user would.
  const secret = 'Quokka-Türkis-4711';
  await helper.getByLabel('Password').fill('');
  await helper.getByLabel('Password').pressSequentially(secret);
  await eventually(async () => (await digest('md5')) !== known[0] && (await digest('md5')).length === 32, true);
  const digests = await Promise.all(['md5', 'sha1', 'sha256', 'sha512', 'base64'].map(digest));
  // Let anything the page might send go out before looking.
  await page.waitForTimeout(500);
  for (const value of [secret, encodeURIComponent(secret), ...digests, ...known]) {
    for (const request of sent) assert.ok(!request.includes(value), `a request carried "${value}": ${request.slice(0, 200)}`);
  }
});

test('Search Guide: every Live Example opens /search and its search runs and finds records', async () => {
  const page = await signIn('/documentation/search-guide');
  const links = page.getByTestId('live-example');
  assert.equal(await links.count(), SEARCH_EXAMPLES.length);
  for (let i = 0; i < SEARCH_EXAMPLES.length; i++) {
    const example = SEARCH_EXAMPLES[i]!;
    if (i > 0) await page.goto('/documentation/search-guide');
    const sent = page.waitForRequest(isSearchCall);
    const answered = page.waitForResponse((response) => isSearchCall(response.request()));
    await links.nth(i).click();
    await sent;
    const response = await answered;
    assert.equal(response.status(), 200, example.query);
    const body = (await response.json()) as { total_results: number };
    assert.ok(body.total_results > 0, `${example.query} finds the seeded records`);
    const url = new URL(page.url());
    assert.equal(url.pathname, '/search');
    assert.equal(url.searchParams.get('q'), example.query);
    // The box shows the query as typed in the guide (with its mode suffix removed).
    assert.ok(example.query.startsWith(await page.locator('input[name="query"]').inputValue()), example.query);
  }
});

test('Quick Start: breadcrumb, checklist with its fixes, samples carrying the user\'s key', async () => {
  const fresh = await signIn('/documentation/quick-start', { verified: true });
  await fresh.getByText('API / Quick Start').first().waitFor();
  await fresh.getByRole('heading', { level: 1, name: 'Quick Start' }).waitFor();
  await eventually(() => textOf(fresh.getByTestId('checklist-score')), '0/3');
  assert.equal(await fresh.getByRole('link', { name: 'Get a search subscription' }).getAttribute('href'), '/subscriptions/search');
  assert.equal(await fresh.getByRole('link', { name: 'Buy search credits' }).getAttribute('href'), '/subscriptions/search-credits');
  await fresh.context().close();

  const page = await signIn('/documentation/quick-start');
  const samples = page.getByTestId('samples-quick-start');
  for (const label of ['Python', 'Go', 'Node.js']) {
    await samples.getByRole('tab', { name: label }).click();
    assert.match(await textOf(samples.locator('code')), /YOUR_API_KEY/);
  }
  const control = page.getByTestId('api-key-control');
  await control.getByRole('button', { name: 'Generate' }).click();
  const answered = page.waitForResponse((response) => response.url().endsWith('/user/update-key'));
  await page.getByRole('dialog', { name: 'Are you sure?' }).getByRole('button', { name: 'Generate key' }).click();
  assert.equal((await answered).status(), 200);
  await eventually(async () => /^[0-9a-f]{48}$/.test(await textOf(control.getByTestId('api-key-value'))), true);
  const key = await textOf(control.getByTestId('api-key-value'));
  suite.server.markSecret(key);
  await eventually(() => textOf(page.getByTestId('checklist-score')), '3/3');
  for (const [label, id] of [['Python', 'python'], ['Go', 'golang'], ['Node.js', 'nodejs']] as const) {
    await samples.getByRole('tab', { name: label }).click();
    const code = await textOf(samples.getByTestId(`sample-quick-start-${id}`));
    assert.ok(code.includes(key), `${label} sample carries the key`);
    assert.ok(code.includes(`${suite.server.url}/v2/search`), `${label} sample calls this server`);
  }
});

test('screenshots of the three pages at desktop and mobile width, without console errors', async () => {
  for (const [name, viewport] of [['desktop', DESKTOP], ['mobile', MOBILE]] as const) {
    for (const target of ['/documentation/faq', '/documentation/search-guide', '/documentation/quick-start']) {
      const page = await signIn(target, SUBSCRIBED, viewport);
      const errors: string[] = [];
      page.on('console', (message) => {
        if (message.type() === 'error') errors.push(message.text());
      });
      await page.getByRole('heading', { level: 1 }).waitFor();
      if (target.endsWith('search-guide')) {
        await page.getByTestId('hashing-helper').getByLabel('Password').fill('password');
        await eventually(() => textOf(page.getByTestId('hash-md5')), '5f4dcc3b5aa765d61d8327deb882cf99');
      }
      await page.evaluate(() => window.scrollTo(0, 0));
      await page.waitForTimeout(300);
      await page.screenshot({ path: path.join(shotDir, `${target.split('/').pop()}-${name}.png`), fullPage: true });
      if (target.endsWith('search-guide')) {
        // Close-ups of the helper and the examples, for the visual check.
        for (const section of ['password-hashing', 'regex']) {
          await page.locator(`#${section}`).evaluate((element) => element.scrollIntoView());
          await page.screenshot({ path: path.join(shotDir, `search-guide-${section}-${name}.png`) });
        }
      }
      assert.deepEqual(errors, [], `${target} at ${name}`);
      await page.context().close();
    }
  }
});
