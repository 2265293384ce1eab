/**
 * The search screen's exposure timeline (docs/search-and-api.md "Exposure timeline") in
 * Chromium against the real server: one dot per dated well holding matches, labelled with
 * its name and records, undated wells listed apart, the data table with the same rows;
 * choosing a dot, or a well's name in the table by keyboard, shows only that well's results;
 * a free account sees the counts without filters. Both themes, desktop and phone width, axe.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import type * as Samples from '../../scripts/lib/ingest-samples';
import type * as IngestCommand from '../../scripts/ingest';
import { DESKTOP, MOBILE, eventually, textOf } from './support/browser';
import { THEMES, signedInPage, type Theme } from './support/screens';
import { uniqueEmail } from './support/server';
import { useServerAndBrowser } from './support/suite';
import { axeViolations, overflowsSideways as overflows, tableRows } from './support/chart-figures';
import { blockShot, dotCount, dotRadii, dotWells, labels } from './support/well-charts';

const PERSON = 'tl.person@e2e-timeline.test';
const SAMPLES_URL = new URL('../../scripts/lib/ingest-samples.ts', import.meta.url).href;
const INGEST_URL = new URL('../../scripts/ingest.ts', import.meta.url).href;
const HOSTILE = '<img src=x onerror=alert(1)> Dump';

const suite = useServerAndBrowser(async ({ server }) => {
  await server.ingest('E2E Forum', [
    { email: PERSON, password: 'forum-1' },
    { email: PERSON, username: 'tl_person' },
    { email: PERSON, ip_address: '10.2.3.4' },
  ]);
  await server.ingest('E2E Shop', [{ email: PERSON, hashed_password: 'E10ADC3949BA59ABBE56E057F20F883E' }]);
  await server.ingest(HOSTILE, [{ email: PERSON, phone: '15550003333' }]);
  await server.ingest('E2E Paste', [{ email: PERSON }, { email: PERSON }]);
  const db = server.runtime.db;
  for (const [name, date] of [['E2E Forum', '2016-05-01'], ['E2E Shop', '2020-09-10'], [HOSTILE, '2023-02-14'], ['E2E Paste', null]] as const) {
    await db.updateTable('data_wells').set({ date }).where('name', '=', name).execute();
  }
});

const DATED = ['E2E Forum', 'E2E Shop', HOSTILE];

async function openTimeline(theme: Theme, viewport = DESKTOP, grants: { searchDays?: number } = { searchDays: 30 }): Promise<Page> {
  const user = await suite.server.createUser({ email: uniqueEmail('timeline'), verified: true, ...grants });
  const page = await signedInPage(suite.browser, suite.server, user, theme, viewport);
  await page.goto(`/search?q=${encodeURIComponent(PERSON)}&type=email`);
  await page.getByTestId('timeline-chart').locator('svg').waitFor();
  return page;
}

test('the timeline shows one labelled dot per dated well, the undated well apart, and the same rows as a table', async () => {
  const page = await openTimeline('dark');
  const chart = page.getByTestId('timeline-chart');
  assert.deepEqual(await dotWells(chart), DATED, 'one dot per dated well, oldest first');
  assert.deepEqual(await labels(chart), ['E2E Forum · 3 records', 'E2E Shop · 1 record', `${HOSTILE} · 1 record`]);
  assert.equal(await page.locator('img[src="x"]').count(), 0, 'a well name is text, never markup');
  // Bigger dot, more records.
  const radii = await dotRadii(chart);
  assert.ok(radii[0]! > radii[1]!, `${radii}`);
  assert.match(await textOf(chart.locator('figcaption')), /^4 data wells hold 7 records matching this search\. Breaches from May 2016 to Feb 2023\. Most records: E2E Forum \(3\)\. 1 well has no breach date\.$/);
  const undated = page.getByTestId('timeline-undated');
  assert.match(await textOf(undated), /E2E Paste · 2 records · Email/);
  assert.match(await textOf(page.getByTestId('timeline-kinds')), /E2E Forum \(2016-05-01\): Email, Username, Password, IP address/);
  assert.deepEqual(await tableRows(chart), [
    ['E2E Forum', '2016-05-01', '3', 'Email, Username, Password, IP address'],
    ['E2E Shop', '2020-09-10', '1', 'Email, Hashed password'],
    [HOSTILE, '2023-02-14', '1', 'Email, Phone'],
    ['E2E Paste', 'Unknown', '2', 'Email'],
  ]);
  assert.deepEqual(await axeViolations(page), []);
  await page.context().close();
});

test('choosing a dot shows only that well; Enter on a well name in the table does too; Show every well undoes it', async () => {
  const page = await openTimeline('light');
  // The results are deduplicated (E2E Paste holds one record twice): 6 of the 7 counted.
  const total = page.getByTestId('stat-total');
  await eventually(() => textOf(total), '6');
  const chart = page.getByTestId('timeline-chart');
  await chart.locator('circle[data-well="E2E Shop"]').click();
  await eventually(() => textOf(page.getByTestId('well-filter')), 'Showing only results from E2E Shop. Show every well');
  await eventually(() => textOf(total), '1');
  assert.match(await textOf(page.getByTestId('results-list')), /E2E Shop/);
  assert.doesNotMatch(await textOf(page.getByTestId('results-list')), /E2E Forum/);
  assert.deepEqual(await dotWells(chart), DATED, 'the timeline stays the whole search\'s');

  await page.getByRole('button', { name: 'Show every well' }).click();
  await eventually(() => textOf(total), '6');
  assert.equal(await page.getByTestId('well-filter').count(), 0);

  // Keyboard: the table's well names are buttons.
  await chart.getByRole('button', { name: 'Show the data as a table' }).click();
  await chart.getByRole('button', { name: 'Show only results from E2E Forum' }).focus();
  await page.keyboard.press('Enter');
  await eventually(() => textOf(total), '3');
  // The undated well too, and a hostile name is matched as it is.
  await page.getByTestId('timeline-undated').getByRole('button', { name: 'Show only results from E2E Paste' }).click();
  await eventually(() => textOf(total), '1');
  await eventually(() => textOf(page.getByTestId('well-filter')), 'Showing only results from E2E Paste. Show every well');
  await chart.getByRole('button', { name: `Show only results from ${HOSTILE}` }).click();
  await eventually(() => textOf(total), '1');
  assert.deepEqual(await axeViolations(page), []);
  await page.context().close();
});

test('a free account sees the timeline of a one-term search without filters', async () => {
  const page = await openTimeline('dark', DESKTOP, {});
  const chart = page.getByTestId('timeline-chart');
  assert.equal(await dotCount(chart), 3);
  assert.equal(await page.getByTestId('subscription-notice').count(), 1);
  assert.equal(await page.getByTestId('timeline-well-button').count(), 0, 'no filter without values to show');
  assert.equal(await chart.locator('circle[data-well]').count(), 0, 'the dots are not choices either');
  assert.equal((await tableRows(chart)).length, 4);
  await page.context().close();
});

test('no timeline for a search that finds nothing or for another tab (and no request for one)', async () => {
  const user = await suite.server.createUser({ email: uniqueEmail('timeline'), verified: true, searchDays: 30 });
  const page = await signedInPage(suite.browser, suite.server, user, 'dark');
  const asked: string[] = [];
  page.on('request', (request) => {
    if (new URL(request.url()).pathname === '/search/timeline') asked.push(request.url());
  });
  await page.goto(`/search?q=${encodeURIComponent('nobody@e2e-timeline.test')}&type=email`);
  await page.getByTestId('search-empty').waitFor();
  await page.goto(`/search?q=${encodeURIComponent('forum-1')}&type=password`);
  await page.getByTestId('results-list').waitFor();
  await page.waitForTimeout(300);
  assert.deepEqual(asked, []);
  assert.equal(await page.getByTestId('exposure-timeline').count(), 0);
  await page.context().close();
});

test('from the sample wells (npm run ingest -- --samples): alice@example.com over the years, Unsorted Paste apart for carol', async () => {
  const { server } = suite;
  // The ingest command's own path into this server's index and database (the running engine refreshes on the segments' notice).
  const previous = process.env.DATABASE_URL;
  process.env.DATABASE_URL = server.runtime.config.DATABASE_URL;
  try {
    const { ingestSamples } = (await import(SAMPLES_URL)) as typeof Samples;
    const { SAMPLE_STEPS } = (await import(INGEST_URL)) as typeof IngestCommand;
    await ingestSamples({ steps: SAMPLE_STEPS, indexDir: server.runtime.config.indexDir, catalogue: true });
  } finally {
    if (previous === undefined) delete process.env.DATABASE_URL;
    else process.env.DATABASE_URL = previous;
  }
  await server.runtime.engine.refresh();
  const user = await server.createUser({ email: uniqueEmail('timeline'), verified: true, searchDays: 30 });
  const page = await signedInPage(suite.browser, server, user, 'light');
  await page.goto(`/search?q=${encodeURIComponent('alice@example.com')}&type=email`);
  const chart = page.getByTestId('timeline-chart');
  assert.deepEqual(await dotWells(chart), ['Pixelboard Forum', 'Quillmate', 'Harbor Combolist', 'Cobalt Cloud', 'Nightjar Stealer Logs']);
  assert.match(await textOf(chart.locator('figcaption')), /^5 data wells hold 6 records matching this search\. Breaches from Jun 2012 to Oct 2023\./);
  await blockShot(page.getByTestId('exposure-timeline'), 'exposure-timeline-samples-alice-light');
  await page.goto(`/search?q=${encodeURIComponent('carol@example.net')}&type=email`);
  assert.deepEqual(await dotWells(chart), ['Tidewater Fitness', 'Lumen Dating', 'Cobalt Cloud']);
  assert.match(await textOf(page.getByTestId('timeline-undated')), /Unsorted Paste/);
  await page.context().close();
});

for (const theme of THEMES) {
  test(`the timeline at desktop and phone width, ${theme} theme: drawn, no overflow, no axe violation; screenshots`, async () => {
    for (const [label, viewport] of [['desktop', DESKTOP], ['phone', MOBILE]] as const) {
      const page = await openTimeline(theme, viewport);
      const section = page.getByTestId('exposure-timeline');
      assert.equal(await dotCount(section), 3, label);
      assert.equal(await overflows(page), false, `${label}: no horizontal scroll`);
      const width = await section.locator('svg').first().evaluate((svg) => svg.getBoundingClientRect().width);
      assert.ok(width <= viewport.width, `${label}: the drawing fits (${width})`);
      assert.deepEqual(await axeViolations(page), [], label);
      await blockShot(section, `exposure-timeline-${label}-${theme}`);
      await page.context().close();
    }
  });
}
