/**
 * Opt-out for anyone, in the real dashboard, signed out: /opt-out asks for the address, the
 * mailed link shows the records holding it per data well (no values) and "Remove all my
 * entries" removes them; the link does not work twice.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openPage } from './support/browser';
import { useServerAndBrowser } from './support/suite';

const suite = useServerAndBrowser(async ({ server }) => {
  await server.ingest('Browser Forum', [
    { email: 'browser.opt@example.com', username: 'browseropt', password: 'Browser-Secret-9' },
    { email: 'browser.opt@example.com', username: 'browseropt2' },
  ]);
  await server.ingest('Browser Shop', [{ email: 'browser.opt@example.com', name: 'Browser Opt' }]);
});

test('signed out: ask for a link, see the records per well, remove them all', async () => {
  const page = await openPage(suite.browser, suite.server.url);
  await page.goto('/opt-out');
  await page.getByLabel('Email').fill('browser.opt@example.com');
  await page.getByRole('button', { name: 'Send me the link' }).click();
  await page.getByTestId('opt-out-sent').waitFor();
  assert.match(await page.getByTestId('opt-out-sent').innerText(), /Check your inbox/);

  const mail = await suite.server.waitForMail('browser.opt@example.com', /see and remove your entries/);
  const link = new URL(mail.links[0]!);
  await page.goto(`${link.pathname}${link.search}`);
  const preview = page.getByTestId('opt-out-preview');
  await preview.waitFor();
  const text = await preview.innerText();
  assert.match(text, /3 records hold browser\.opt@example\.com/);
  const rows = await page.getByRole('region', { name: 'Records per data well' }).locator('tbody tr').allInnerTexts();
  assert.deepEqual(
    rows.map((row) => row.split('\t').map((cell) => cell.trim())),
    [
      ['Browser Forum', '2'],
      ['Browser Shop', '1'],
    ],
  );
  assert.doesNotMatch(text, /Browser-Secret|browseropt/, 'no values');

  await page.getByRole('button', { name: 'Remove all my entries' }).click();
  await page.getByTestId('opt-out-done').waitFor();
  assert.match(await page.getByTestId('opt-out-done').innerText(), /3 records no longer appear/);

  await page.reload();
  await page.getByRole('alert').waitFor();
  assert.match(await page.getByRole('alert').innerText(), /invalid, used or expired/);
  await page.close();
});
