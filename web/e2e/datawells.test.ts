/** /data-wells: browse, sort, page size, search and close, against the real server. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import { DESKTOP, eventually, logInThroughForm, MOBILE, openPage, textOf, toastAfter } from './support/browser';
import type * as DataWellsRepository from '../../server/src/datawells/datawells-repository';
import { newUser, type TestServer } from './support/server';
import { useServerAndBrowser } from './support/suite';

// Seeded the way the ingest CLI does it: through upsertDataWell on the harness's database.
// Loaded by URL, like the harness, when the suite starts.
const REPOSITORY_URL = new URL('../../server/src/datawells/datawells-repository.ts', import.meta.url).href;

const HOSTILE_NAME = '<img src=x onerror=alert(1)>';
const HOSTILE_DESCRIPTION = '<script>window.__pwned = 1</script><b>bold</b> leak';
const breachName = (i: number) => `Breach ${String(i).padStart(2, '0')}`;
const BREACHES = 24;
const TOTAL = BREACHES + 1;

async function seed(server: TestServer): Promise<void> {
  const { upsertDataWell } = (await import(REPOSITORY_URL)) as typeof DataWellsRepository;
  const { db } = server.runtime;
  for (let i = 1; i <= BREACHES; i++) {
    await upsertDataWell(db, {
      name: breachName(i),
      date: `${2000 + i}-01-15`,
      description: `About ${breachName(i)}`,
      recordCount: i * 1000 + 1,
      dataTypes: ['email', 'username'],
      isSensitive: false,
      segmentId: `seg-${i}`,
    });
  }
  await upsertDataWell(db, {
    name: HOSTILE_NAME,
    date: '2019-07-15',
    description: HOSTILE_DESCRIPTION,
    recordCount: 1_234_567,
    dataTypes: ['password', 'email', 'ip_address'],
    isSensitive: true,
    segmentId: 'seg-hostile',
  });
}

const suite = useServerAndBrowser(({ server }) => seed(server));

async function openDataWells(viewport = DESKTOP): Promise<Page> {
  const user = await newUser(suite.server);
  const page = await openPage(suite.browser, suite.server.url, viewport);
  await page.goto('/data-wells');
  await page.waitForURL((url) => url.pathname === '/login');
  await logInThroughForm(page, user.email, user.password);
  await page.waitForURL((url) => url.pathname === '/data-wells');
  await page.getByTestId('data-well').first().waitFor();
  return page;
}

const names = (page: Page) => page.getByTestId('data-well-name').allTextContents();
const summary = (page: Page) => textOf(page.getByTestId('data-wells-summary'));
const breachesIn = (list: string[]) => list.filter((name) => name.startsWith('Breach '));
const allBreaches = Array.from({ length: BREACHES }, (_, i) => breachName(i + 1));

test('browse: largest first, readable numbers and dates, badge, chips; hostile text stays text', async () => {
  const page = await openDataWells();
  const dialogs: string[] = [];
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  await eventually(() => summary(page), `${TOTAL} data wells · page 1 of 2`);
  assert.equal((await names(page)).length, 20);

  const first = page.getByTestId('data-well').first();
  assert.equal(await textOf(first.getByTestId('data-well-name')), HOSTILE_NAME);
  assert.equal(await textOf(first.locator('.well-description')), HOSTILE_DESCRIPTION);
  assert.equal(await textOf(first.getByTestId('data-well-records')), '1,234,567');
  assert.equal(await textOf(first.getByTestId('data-well-date')), 'Jul 15, 2019');
  assert.equal(await textOf(first.locator('.badge')), 'Sensitive');
  // Chips name the fields as the search screen does, never by their keys.
  assert.deepEqual(await first.locator('.well-type').allTextContents(), ['Email', 'IP Address', 'Password']);
  // Nothing of the hostile strings became markup or ran.
  assert.equal(await page.locator('img[src="x"], .well script, .well b').count(), 0);
  assert.equal(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned), undefined);
  assert.deepEqual(dialogs, []);

  const second = page.getByTestId('data-well').nth(1);
  assert.equal(await textOf(second.getByTestId('data-well-name')), breachName(24));
  assert.equal(await textOf(second.getByTestId('data-well-records')), '24,001');
  assert.equal(await second.locator('.badge').count(), 0, 'only sensitive wells carry the badge');

  await page.getByRole('button', { name: 'Page 2' }).click();
  await eventually(() => summary(page), `${TOTAL} data wells · page 2 of 2`);
  await eventually(async () => (await names(page)).length, TOTAL - 20);
  assert.equal(await page.getByRole('button', { name: 'Next' }).isDisabled(), true);
  await page.getByRole('button', { name: 'Previous' }).click();
  await eventually(async () => (await names(page))[0], HOSTILE_NAME);
  await page.context().close();
});

test('page size 20 or 50; every sort', async () => {
  const page = await openDataWells();
  await page.getByRole('button', { name: 'Page 2' }).click();
  await eventually(() => summary(page), `${TOTAL} data wells · page 2 of 2`);

  // A new page size starts again at page 1; 50 fit on one page, so no pager.
  await page.getByRole('combobox', { name: 'Per page' }).selectOption('50');
  await eventually(() => summary(page), `${TOTAL} data wells · page 1 of 1`);
  await eventually(async () => (await names(page)).length, TOTAL);
  assert.equal(await page.getByRole('navigation', { name: 'Pagination' }).count(), 0);

  const sortBy = (value: string) => page.getByRole('combobox', { name: 'Sort by' }).selectOption(value);
  await sortBy('records_asc');
  await eventually(async () => (await names(page)).slice(0, 2), [breachName(1), breachName(2)]);
  assert.equal((await names(page)).at(-1), HOSTILE_NAME);

  await sortBy('name_asc');
  await eventually(async () => breachesIn(await names(page)), allBreaches);
  await sortBy('name_desc');
  await eventually(async () => breachesIn(await names(page)), [...allBreaches].reverse());

  await sortBy('date_desc');
  await eventually(async () => (await names(page)).slice(0, 2), [breachName(24), breachName(23)]);
  await sortBy('date_asc');
  await eventually(async () => (await names(page)).slice(0, 2), [breachName(1), breachName(2)]);
  // 2019-07-15 sits between Breach 19 (2019-01-15) and Breach 20 (2020-01-15).
  const byDate = await names(page);
  assert.equal(byDate.indexOf(HOSTILE_NAME), byDate.indexOf(breachName(19)) + 1);

  await sortBy('records_desc');
  await eventually(async () => (await names(page))[0], HOSTILE_NAME);
  await page.context().close();
});

test('search: minimum length toast, results mode, Close back to browse', async () => {
  const page = await openDataWells();
  const searches: string[] = [];
  page.on('request', (request) => {
    if (request.method() === 'POST' && new URL(request.url()).pathname === '/datawells/search') searches.push(request.postData() ?? '');
  });
  const box = page.getByRole('searchbox', { name: 'Search data wells' });

  await box.fill('abc');
  assert.equal(await toastAfter(page, () => page.getByRole('button', { name: 'Search', exact: true }).click()), 'Query must be atleast 4 characters');
  await box.fill('   ab   ');
  assert.equal(await toastAfter(page, () => box.press('Enter')), 'Query must be atleast 4 characters');
  assert.deepEqual(searches, [], 'a short query never reaches the server');

  await box.fill('breach 1');
  await box.press('Enter');
  await eventually(() => summary(page), '10 results for “breach 1”');
  assert.deepEqual(await names(page), allBreaches.slice(9, 19).reverse(), 'largest first');
  assert.equal(await page.getByRole('combobox', { name: 'Sort by' }).count(), 0, 'no browse controls in search mode');
  assert.equal(await page.getByRole('navigation', { name: 'Pagination' }).count(), 0);

  // Descriptions are searched too; hostile text in the query is just text.
  await box.fill('<script>window');
  await box.press('Enter');
  await eventually(() => names(page), [HOSTILE_NAME]);
  await eventually(() => summary(page), '1 result for “<script>window”');

  await box.fill('no such well anywhere');
  await box.press('Enter');
  await page.getByRole('heading', { name: 'No matching data wells' }).waitFor();

  await page.getByRole('button', { name: 'Close' }).click();
  await eventually(() => summary(page), `${TOTAL} data wells · page 1 of 2`);
  await eventually(async () => (await names(page)).length, 20);
  assert.equal(await box.inputValue(), '');
  await page.getByRole('combobox', { name: 'Sort by' }).waitFor();
  await page.context().close();
});

test('a failed load says so', async () => {
  const page = await openDataWells();
  await page.route(/\/datawells\?/, (route) => route.fulfill({ status: 500, contentType: 'application/json', body: '{"error":"Internal Server Error"}' }));
  assert.equal(
    await toastAfter(page, () => page.getByRole('combobox', { name: 'Sort by' }).selectOption('name_asc')),
    'Could not pull data wells',
  );
  await page.getByRole('heading', { name: 'Could not pull data wells' }).waitFor();
  await page.unroute(/\/datawells\?/);
  await page.getByRole('button', { name: 'Try again' }).click();
  await eventually(async () => (await names(page)).length, 20);
  await page.context().close();
});

test('mobile: facts under the name, nothing wider than the screen', async () => {
  const page = await openDataWells(MOBILE);
  const first = page.getByTestId('data-well').first();
  const name = (await first.getByTestId('data-well-name').boundingBox())!;
  const facts = (await first.locator('.well-facts').boundingBox())!;
  assert.ok(facts.y >= name.y + name.height, 'records and date sit below the name');
  assert.ok(
    await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth),
    'no horizontal scrolling',
  );
  await page.context().close();
});
