/**
 * Opt-out for anyone, in the real dashboard, signed out: /opt-out asks for the address, the
 * mailed link shows the records holding it per data well (no values) and "Remove all my
 * entries" opts it out; the link does not work twice. A new link for an opted-out address
 * says so and "Undo my opt-out" lifts it.
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
  const done = await page.getByTestId('opt-out-done').innerText();
  assert.match(done, /3 records no longer appear/);
  assert.match(done, /breaches added later are hidden too/);

  await page.reload();
  await page.getByRole('alert').waitFor();
  assert.match(await page.getByRole('alert').innerText(), /invalid, used or expired/);
  await page.close();
});

test('signed out: a new link for an opted-out address says so, and "Undo my opt-out" lifts it', async () => {
  // After the first test: browser.opt@example.com is opted out. A later breach stays hidden.
  await suite.server.ingest('Browser Later', [{ email: 'Browser.Opt@example.com', password: 'Later-Secret-1' }]);
  const mailed = (await suite.server.mailsTo('browser.opt@example.com', /see and remove your entries/)).length;
  const page = await openPage(suite.browser, suite.server.url);
  await page.goto('/opt-out');
  await page.getByLabel('Email').fill('browser.opt@example.com');
  await page.getByRole('button', { name: 'Send me the link' }).click();
  await page.getByTestId('opt-out-sent').waitFor();
  const link = new URL((await suite.server.waitForMail('browser.opt@example.com', /see and remove your entries/, 10_000, mailed)).links[0]!);
  await page.goto(`${link.pathname}${link.search}`);
  const view = page.getByTestId('opt-out-opted-out');
  await view.waitFor();
  const text = await view.innerText();
  assert.match(text, /Your address is opted out/);
  assert.match(text, /Since [A-Z][a-z]{2} \d{1,2}, \d{4}, \d{2}:\d{2} [AP]M, no search, count, password check, alert or export shows a record holding browser\.opt@example\.com/);
  await page.getByRole('button', { name: 'Undo my opt-out' }).click();
  await page.getByTestId('opt-out-undone').waitFor();
  assert.match(await page.getByTestId('opt-out-undone').innerText(), /4 records holding the address show again/);
  await page.close();
});
