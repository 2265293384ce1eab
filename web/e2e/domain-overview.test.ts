/**
 * The domain overview on the monitoring screen (docs/monitoring.md "Domain overview") in
 * Chromium against the real server: a verified domain's card shows its distinct addresses,
 * records and wells, a dot per dated well, the undated well apart, the kinds of data with
 * their wells and records, and downloads the same numbers as CSV; an unverified domain shows
 * no overview. Both themes, desktop and phone width, axe, keyboard.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import type * as Verification from '../../server/src/monitoring/domain-verification-service';
import { DESKTOP, MOBILE, textOf } from './support/browser';
import { parseCsv } from './support/csv';
import { addTaskByApi, signInAs } from './support/monitoring';
import { THEMES, type Theme } from './support/screens';
import { uniqueEmail } from './support/server';
import { useServerAndBrowser } from './support/suite';
import { axeViolations, overflowsSideways as overflows, tableRows } from './support/chart-figures';
import { blockShot, dotCount, labels } from './support/well-charts';

const DOMAIN = 'overview-e2e.test';
const VERIFICATION_URL = new URL('../../server/src/monitoring/domain-verification-service.ts', import.meta.url).href;

const suite = useServerAndBrowser(async ({ server }) => {
  await server.ingest('DO Forum', [
    { email: `alice@${DOMAIN}`, password: 'forum-1' },
    { email: `Alice@${DOMAIN}`, username: 'alice_do' },
    { email: `bob@${DOMAIN}`, ip_address: '10.4.5.6' },
    { email: 'someone@elsewhere-e2e.test', password: 'x' },
  ]);
  await server.ingest('DO Shop', [{ email: `carol@${DOMAIN}`, hashed_password: 'E10ADC3949BA59ABBE56E057F20F883E' }]);
  await server.ingest('DO Undated', [{ email: `dave@${DOMAIN}`, phone: '15550004444' }]);
  const db = server.runtime.db;
  for (const [name, date] of [['DO Forum', '2017-06-01'], ['DO Shop', '2021-03-03'], ['DO Undated', null]] as const) {
    await db.updateTable('data_wells').set({ date }).where('name', '=', name).execute();
  }
});

/** An account with a task of DOMAIN (verified or not) and of another domain, on the Domain tab of its tasks. */
async function openDomains(theme: Theme, viewport = DESKTOP, verified = true): Promise<Page> {
  const { server, browser } = suite;
  const user = await server.createUser({ email: uniqueEmail('overview'), verified: true, enterprise: true });
  const { token } = await server.login(user.email, user.password);
  await addTaskByApi(server, token, 'domain', DOMAIN);
  await addTaskByApi(server, token, 'domain', 'unproven-e2e.test');
  if (verified) await ((await import(VERIFICATION_URL)) as typeof Verification).markDomainVerified(server.runtime.db, user.id, DOMAIN);
  const page = await signInAs(server, browser, user, '/monitoring/manage/tasks', viewport);
  await page.context().addCookies([{ name: 'theme', value: theme, url: server.url }]);
  await page.reload();
  await page.getByRole('tab', { name: /^Domain/ }).click();
  return page;
}

const card = (page: Page, domain: string) => page.getByTestId('domain-verification').filter({ has: page.getByRole('heading', { name: domain, exact: true }) });

test('a verified domain shows its numbers, a dot per dated well, the undated well, the kinds of data; an unverified one none', async () => {
  const page = await openDomains('dark');
  const overview = card(page, DOMAIN).getByTestId('domain-overview');
  await overview.getByTestId('overview-chart').locator('svg').waitFor();
  assert.equal(await textOf(overview.getByTestId('overview-addresses')), '4', 'alice in two cases is one address');
  assert.equal(await textOf(overview.getByTestId('overview-records')), '5');
  assert.equal(await textOf(overview.getByTestId('overview-wells')), '3');
  const chart = overview.getByTestId('overview-chart');
  assert.equal(await dotCount(chart), 2, 'one dot per dated well');
  assert.equal(await chart.locator('circle[data-well]').count(), 0, 'no choices here: the dots filter nothing');
  assert.deepEqual(await labels(chart), ['DO Forum · 3 records', 'DO Shop · 1 record']);
  assert.equal(
    await textOf(chart.locator('figcaption')),
    `5 records in 3 data wells expose 4 distinct addresses of ${DOMAIN}. Breaches from 2017 to 2021. 1 well has no breach date. Most exposed data: Email, IP address, Password.`,
  );
  assert.deepEqual(await tableRows(chart), [
    ['DO Forum', '2017-06-01', '3', 'Email, Username, Password, IP address'],
    ['DO Shop', '2021-03-03', '1', 'Email, Hashed password'],
    ['DO Undated', 'Unknown', '1', 'Email, Phone'],
  ]);
  assert.match(await textOf(overview.getByTestId('overview-undated')), /DO Undated · 1 record$/);
  const kinds = await overview.getByTestId('overview-kinds').locator('tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent)));
  assert.deepEqual(kinds, [
    ['Email', '3', '5'],
    ['IP address', '1', '3'],
    ['Password', '1', '3'],
    ['Username', '1', '3'],
    ['Hashed password', '1', '1'],
    ['Phone', '1', '1'],
  ]);
  assert.equal(await card(page, 'unproven-e2e.test').getByTestId('domain-overview').count(), 0, 'no overview before verification');
  assert.deepEqual(await axeViolations(page), []);
  await page.context().close();
});

test('Download CSV (by keyboard) saves the same numbers, cells quoted', async () => {
  const page = await openDomains('light');
  const button = card(page, DOMAIN).getByTestId('overview-csv');
  await button.focus();
  const [download] = await Promise.all([page.waitForEvent('download'), page.keyboard.press('Enter')]);
  assert.equal(download.suggestedFilename(), `domain-overview-${DOMAIN}.csv`);
  const rows = parseCsv(fs.readFileSync((await download.path())!, 'utf8'));
  assert.deepEqual(rows.slice(0, 2), [
    ['domain', 'distinct_addresses', 'records', 'wells'],
    [DOMAIN, '4', '5', '3'],
  ]);
  assert.deepEqual(rows.slice(3, 7), [
    ['well', 'breach_date', 'records', 'data_types'],
    ['DO Forum', '2017-06-01', '3', 'Email; Username; Password; IP address'],
    ['DO Shop', '2021-03-03', '1', 'Email; Hashed password'],
    ['DO Undated', '', '1', 'Email; Phone'],
  ]);
  assert.deepEqual(rows[8], ['data_type', 'wells', 'records']);
  assert.deepEqual(rows[9], ['Email', '3', '5']);
  await page.context().close();
});

for (const theme of THEMES) {
  test(`the overview at desktop and phone width, ${theme} theme: drawn, no overflow, no axe violation; screenshots`, async () => {
    for (const [label, viewport] of [['desktop', DESKTOP], ['phone', MOBILE]] as const) {
      const page = await openDomains(theme, viewport);
      const overview = card(page, DOMAIN).getByTestId('domain-overview');
      await dotCount(overview.getByTestId('overview-chart'));
      assert.equal(await overflows(page), false, `${label}: no horizontal scroll`);
      assert.deepEqual(await axeViolations(page), [], label);
      await blockShot(overview, `domain-overview-${label}-${theme}`);
      await page.context().close();
    }
  });
}
