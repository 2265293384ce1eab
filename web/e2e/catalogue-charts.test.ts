/**
 * The Data Wells page's charts (docs/charts.md) against the data they were given: each
 * chart's table rows, its bars, its caption; both themes, desktop and phone (390 px), axe
 * at zero violations, the table toggle reached by keyboard. Screenshots of the charts go to
 * CHART_SHOT_DIR (default /tmp/shots).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import { DESKTOP, MOBILE } from './support/browser';
import { axeViolations, barCount, chartShot, overflowsSideways, svgTexts, tabTo, tableRows } from './support/chart-figures';
import { signedInPage, THEMES, type Theme } from './support/screens';
import { newUser, type TestServer } from './support/server';
import { useServerAndBrowser } from './support/suite';
import type * as DataWellsRepository from '../../server/src/datawells/datawells-repository';

const REPOSITORY_URL = new URL('../../server/src/datawells/datawells-repository.ts', import.meta.url).href;
const HOSTILE = '<img src=x onerror=alert(1)>';

const WELLS = [
  { name: 'Alpha Forum', date: '2012-03-01', recordCount: 1500, dataTypes: ['email', 'password'] },
  { name: 'Beta Shop', date: '2012-09-09', recordCount: 800, dataTypes: ['email', 'hashed_password'] },
  { name: 'Gamma Games', date: '2014-05-05', recordCount: 12000, dataTypes: ['email', 'password', 'hashed_password'] },
  { name: HOSTILE, date: '2015-01-01', recordCount: 300, dataTypes: ['email'] },
  { name: 'No Date Leak', date: null, recordCount: 450, dataTypes: ['username'] },
];

async function seed(server: TestServer): Promise<void> {
  const { upsertDataWell } = (await import(REPOSITORY_URL)) as typeof DataWellsRepository;
  for (const well of WELLS) {
    await upsertDataWell(server.runtime.db, { ...well, description: '', isSensitive: false, segmentId: `seg-${well.name}` });
  }
}

const suite = useServerAndBrowser(({ server }) => seed(server));

// What the seed makes each chart show: years 2012 to 2015 (2013 empty), the undated apart.
const EXPECTED = {
  'chart-breaches-per-year': [['2012', '2'], ['2013', '0'], ['2014', '1'], ['2015', '1']],
  'chart-records-per-year': [['2012', '2,300'], ['2013', '0'], ['2014', '12,000'], ['2015', '300']],
  'chart-largest-wells': [
    ['Gamma Games', '12,000', 'May 5, 2014'],
    ['Alpha Forum', '1,500', 'Mar 1, 2012'],
    ['Beta Shop', '800', 'Sep 9, 2012'],
    ['No Date Leak', '450', 'Unknown date'],
    [HOSTILE, '300', 'Jan 1, 2015'],
  ],
  'chart-passwords': [
    ['Plain text only', '1', '20%'],
    ['Plain text and hashes', '1', '20%'],
    ['Hashes only', '1', '20%'],
    ['No passwords', '2', '40%'],
  ],
};

async function openCharts(theme: Theme, viewport: typeof DESKTOP): Promise<Page> {
  const user = await newUser(suite.server);
  const page = await signedInPage(suite.browser, suite.server, user, theme, viewport);
  await page.goto('/data-wells');
  await page.getByTestId('catalogue-charts').waitFor();
  // Every chart drawn (Plot is loaded on first use).
  for (const id of Object.keys(EXPECTED)) await page.getByTestId(id).locator('svg[role="img"]').waitFor();
  return page;
}

for (const viewport of [DESKTOP, MOBILE]) {
  for (const theme of THEMES) {
    const label = `${theme}-${viewport === DESKTOP ? 'desktop' : 'phone'}`;
    test(`catalogue charts show the seeded catalogue, ${label}`, async () => {
      const page = await openCharts(theme, viewport);
      for (const [id, rows] of Object.entries(EXPECTED)) {
        const figure = page.getByTestId(id);
        await chartShot(figure, `${id.replace('chart-', 'catalogue-')}-${label}`);
        assert.deepEqual(await tableRows(figure), rows, `${id}: table`);
        assert.equal(await barCount(figure), rows.length, `${id}: one bar per row`);
        // The picture is named by the heading and described by the caption.
        const svg = figure.locator('svg[role="img"]');
        assert.equal(await svg.getAttribute('aria-describedby'), await figure.locator('figcaption').getAttribute('id'));
      }
      assert.match(await page.getByTestId('chart-breaches-per-year').locator('figcaption').innerText(), /2012 to 2015: the most in 2012 \(2 wells\)\. 1 well has no breach date \(450 records\)/);
      assert.match(await page.getByTestId('chart-passwords').locator('figcaption').innerText(), /^40% of the 5 wells expose passwords in plain text \(2\), 20% hashes only \(1\), 40% no passwords \(2\)\.$/);
      // The hostile name is a label, never markup.
      assert.ok((await svgTexts(page.getByTestId('chart-largest-wells'))).some((t) => t.includes('<img src=x')));
      assert.equal(await page.locator('img[src="x"]').count(), 0);
      assert.equal(await overflowsSideways(page), false, 'no sideways scrolling');
      assert.deepEqual(await axeViolations(page), [], 'axe with the tables open');
      await page.context().close();
    });
  }
}

test('the keyboard reaches a chart’s table toggle and opens the table', async () => {
  const page = await openCharts('dark', DESKTOP);
  const figure = page.getByTestId('chart-largest-wells');
  const toggle = figure.getByRole('button', { name: 'Show the data as a table' });
  assert.equal(await toggle.getAttribute('aria-expanded'), 'false');
  assert.equal(await figure.locator('table').isVisible(), false);
  assert.ok(await tabTo(page, toggle, 200), 'Tab reaches the toggle');
  await page.keyboard.press('Enter');
  assert.equal(await figure.getByRole('button', { name: 'Hide the data table' }).getAttribute('aria-expanded'), 'true');
  assert.equal(await figure.locator('table').isVisible(), true);
  await page.context().close();
});

test('the charts describe the whole catalogue: not shown beside a search’s matches', async () => {
  const page = await openCharts('light', DESKTOP);
  await page.getByRole('searchbox', { name: 'Search data wells' }).fill('Alpha');
  await page.getByRole('button', { name: 'Search', exact: true }).click();
  await page.getByTestId('data-wells-summary').filter({ hasText: 'result' }).waitFor();
  assert.equal(await page.getByTestId('catalogue-charts').count(), 0);
  await page.context().close();
});
