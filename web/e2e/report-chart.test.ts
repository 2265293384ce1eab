/**
 * The reports screen's chart (docs/charts.md): matches per UTC day over the last 90 days,
 * against the reports it was given; both themes, desktop and phone (390 px), axe at zero
 * violations, the table toggle reached by keyboard. Screenshots go to CHART_SHOT_DIR.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import { DESKTOP, MOBILE } from './support/browser';
import { axeViolations, barCount, chartShot, overflowsSideways, tabTo, tableRows } from './support/chart-figures';
import { signedInPage, THEMES, type Theme } from './support/screens';
import { newUser } from './support/server';
import { useServerAndBrowser } from './support/suite';

const suite = useServerAndBrowser();

const DAY = 86_400_000;
const todayStart = () => Math.floor(Date.now() / DAY) * DAY;
const dayText = (ms: number) => new Intl.DateTimeFormat('en-US', { month: 'short', day: 'numeric', year: 'numeric', timeZone: 'UTC' }).format(ms);

/** Reports of a new user, days ago → matches of each report that day. */
const REPORTS: [daysAgo: number, matches: number][] = [
  [0, 1],
  [0, 2],
  [5, 10],
  [40, 4],
  [89, 6],
  [95, 50],
];

async function userWithReports(): Promise<{ email: string; password: string }> {
  const user = await newUser(suite.server);
  const today = todayStart();
  let n = 0;
  for (const [daysAgo, results] of REPORTS) {
    await suite.server.runtime.db
      .insertInto('monitor_reports')
      .values({ user_id: user.id, segment_id: `seg-chart-${++n}`, well_name: `Well ${n}`, results, created: new Date(today - daysAgo * DAY + 3_600_000) })
      .execute();
  }
  return user;
}

/** The table the seed should give: 90 days, oldest first. */
function expectedRows(): string[][] {
  const today = todayStart();
  return Array.from({ length: 90 }, (_, i) => {
    const daysAgo = 89 - i;
    const those = REPORTS.filter(([d]) => d === daysAgo);
    const matches = those.reduce((sum, [, m]) => sum + m, 0);
    return [dayText(today - daysAgo * DAY), String(matches), String(those.length)];
  });
}

async function openReports(theme: Theme, viewport: typeof DESKTOP): Promise<Page> {
  const page = await signedInPage(suite.browser, suite.server, await userWithReports(), theme, viewport);
  await page.goto('/monitoring/reports');
  await page.getByTestId('chart-report-matches').locator('svg[role="img"]').waitFor();
  return page;
}

for (const viewport of [DESKTOP, MOBILE]) {
  for (const theme of THEMES) {
    const label = `${theme}-${viewport === DESKTOP ? 'desktop' : 'phone'}`;
    test(`matches per day show the account's reports, ${label}`, async () => {
      const page = await openReports(theme, viewport);
      const figure = page.getByTestId('chart-report-matches');
      await chartShot(figure, `report-chart-${label}`);
      assert.equal(
        await figure.locator('figcaption').innerText(),
        `23 matches in 5 reports over the last 90 days, from ${dayText(todayStart() - 89 * DAY)} to ${dayText(todayStart())} (UTC days), on 4 days; the most on ${dayText(todayStart() - 5 * DAY)} (10 matches).`,
      );
      const rows = await tableRows(figure);
      assert.deepEqual(rows, expectedRows());
      assert.equal(await barCount(figure), rows.length, 'one bar per day');
      assert.equal(await overflowsSideways(page), false, 'no sideways scrolling');
      assert.deepEqual(await axeViolations(page), [], 'axe with the table open');
      await page.context().close();
    });
  }
}

test('an account without reports: every day at 0, said in words', async () => {
  const page = await signedInPage(suite.browser, suite.server, await newUser(suite.server), 'dark', DESKTOP);
  await page.goto('/monitoring/reports');
  const figure = page.getByTestId('chart-report-matches');
  await figure.locator('svg[role="img"]').waitFor();
  assert.match(await figure.locator('figcaption').innerText(), /^No matches in the last 90 days/);
  const rows = await tableRows(figure);
  assert.equal(rows.length, 90);
  assert.ok(rows.every((row) => row[1] === '0' && row[2] === '0'));
  await page.context().close();
});

test('the keyboard reaches the table toggle and opens the table', async () => {
  const page = await openReports('light', DESKTOP);
  const figure = page.getByTestId('chart-report-matches');
  const toggle = figure.getByRole('button', { name: 'Show the data as a table' });
  assert.ok(await tabTo(page, toggle), 'Tab reaches the toggle');
  await page.keyboard.press('Enter');
  assert.equal(await figure.locator('table').isVisible(), true);
  assert.equal(await figure.locator('table tbody tr').count(), 90);
  await page.context().close();
});
