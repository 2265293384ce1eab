/**
 * Favourites keep no breach data in the browser's storage (record ids and data well names
 * only), while the feature keeps working. That list stays on the device for its account
 * across a sign-out (a user does not expect signing out to delete it); another account
 * signing in on the device does not see it.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import { eventually, logInThroughForm, openPage, textOf } from './support/browser';
import { uniqueEmail, type UserOptions } from './support/server';
import { useServerAndBrowser } from './support/suite';

const WELL = 'Favourites Test Well';
const SECRETS = ['fav.alice@example.com', 'Fav0urite-Secret!', 'fav_alice_user', '9b8f1c2a77e0d4ab3f11c0d6e2a4b5c7:None', 'Alice Favourite'];
const RECORDS: object[] = [
  { email: SECRETS[0], password: SECRETS[1], username: SECRETS[2], hashed_password: SECRETS[3], name: SECRETS[4] },
];

const suite = useServerAndBrowser(({ server }) => server.ingest(WELL, RECORDS));
// Law enforcement: the answer carries the raw record too, which must not be stored either.
const USER: UserOptions = { verified: true, searchDays: 30, searchCredits: 10, lawEnforcement: true };

async function signIn(page: Page, email: string, password: string): Promise<void> {
  await page.goto('/search');
  await page.waitForURL((url) => url.pathname === '/login');
  await logInThroughForm(page, email, password);
  await page.waitForURL((url) => url.pathname === '/search');
}

async function searchEmail(page: Page, query: string): Promise<void> {
  await page.getByRole('tab', { name: 'Email', exact: true }).click();
  await page.locator('input[name="query"]').fill(query);
  const answered = page.waitForResponse((response) => response.request().method() === 'POST' && new URL(response.url()).pathname === '/search');
  await page.locator('input[name="query"]').press('Enter');
  await answered;
  await page.locator('.results-area[aria-busy="false"]').waitFor();
}

/** Every localStorage entry of the page's origin. */
const storage = (page: Page) =>
  page.evaluate(() => Object.fromEntries(Array.from({ length: localStorage.length }, (_, i) => localStorage.key(i)!).map((key) => [key, localStorage.getItem(key)!])));

const favouriteKeys = (entries: Record<string, string>) => Object.keys(entries).filter((key) => key.startsWith('search-favourites:'));

function assertNoRecordValues(entries: Record<string, string>): void {
  const all = JSON.stringify(entries);
  for (const secret of SECRETS) assert.ok(!all.includes(secret), `localStorage holds ${secret}: ${all}`);
  assert.ok(!/raw_record|password/.test(all), `localStorage holds record fields: ${all}`);
}

test('a favourite is stored as its id only, still listed, and kept for its account after logout', async () => {
  const user = await suite.server.createUser({ email: uniqueEmail('fav'), ...USER });
  const other = await suite.server.createUser({ email: uniqueEmail('fav-other'), ...USER });
  const page = await openPage(suite.browser, suite.server.url);
  await signIn(page, user.email, user.password);
  await searchEmail(page, SECRETS[0]!);
  const row = page.getByTestId('results-list').getByTestId('search-result').first();
  const id = await row.getAttribute('data-record-id');
  assert.ok(id);

  // Favourite: the whole record is listed for this visit…
  await row.getByRole('button', { name: 'Add to favourites' }).click();
  const favourites = page.getByTestId('favourites-list');
  assert.equal(await textOf(favourites.getByTestId('result-headline')), SECRETS[0]);
  // …but the browser's storage holds its id and data well, nothing of the record.
  let entries = await storage(page);
  assertNoRecordValues(entries);
  const keys = favouriteKeys(entries);
  assert.equal(keys.length, 1);
  assert.deepEqual(JSON.parse(entries[keys[0]!]!), [{ id, database_name: WELL }]);

  // After a reload the favourite is still there: the page fetches its record again by id
  // (POST /search/records, one counted search), under the subscription's rules…
  const fetched = page.waitForRequest((request) => new URL(request.url()).pathname === '/search/records');
  await page.reload();
  assert.deepEqual((await fetched).postDataJSON(), { ids: [id] });
  await eventually(() => textOf(favourites.getByTestId('result-headline')), SECRETS[0]!);
  assert.equal(await textOf(favourites.getByTestId('result-source')), WELL);
  if (process.env.E2E_SCREENSHOT_DIR) {
    fs.mkdirSync(process.env.E2E_SCREENSHOT_DIR, { recursive: true });
    await page.screenshot({ path: path.join(process.env.E2E_SCREENSHOT_DIR, 'favourite-by-id.png') });
  }
  // …and still nothing of it in the browser's storage.
  assertNoRecordValues(await storage(page));

  // A list written by an earlier version (whole records) is rewritten as references.
  await page.evaluate(
    ([key, record]) => localStorage.setItem(key, JSON.stringify([record])),
    [keys[0]!, { id, database_name: WELL, email: SECRETS[0], password: SECRETS[1], raw_record: SECRETS.join(':') }] as const,
  );
  await page.reload();
  await favourites.getByTestId('result-headline').waitFor();
  entries = await storage(page);
  assertNoRecordValues(entries);
  assert.deepEqual(JSON.parse(entries[keys[0]!]!), [{ id, database_name: WELL }]);

  // Logout: the account's list stays on the device, as references only.
  const loggedOut = page.waitForRequest((request) => new URL(request.url()).pathname === '/authentication/logout');
  await page.goto('/logout');
  await loggedOut;
  await page.waitForURL((url) => url.pathname === '/login');
  entries = await storage(page);
  assert.deepEqual(favouriteKeys(entries), keys, `favourites dropped at logout: ${JSON.stringify(entries)}`);
  assert.deepEqual(JSON.parse(entries[keys[0]!]!), [{ id, database_name: WELL }]);
  assertNoRecordValues(entries);

  // Another account on this device starts with none of them.
  await logInThroughForm(page, other.email, other.password);
  await page.waitForURL((url) => url.pathname === '/search');
  await page.getByText('Star a result to keep it here.').waitFor();
  await page.goto('/logout');
  await page.waitForURL((url) => url.pathname === '/login');

  // Signing in again lists the favourite, its record fetched again by id.
  const again = page.waitForRequest((request) => new URL(request.url()).pathname === '/search/records');
  await logInThroughForm(page, user.email, user.password);
  await page.waitForURL((url) => url.pathname === '/search');
  assert.deepEqual((await again).postDataJSON(), { ids: [id] });
  await eventually(() => textOf(favourites.getByTestId('result-headline')), SECRETS[0]!);
  await page.context().close();
});

test('a session that ends without the logout page keeps the favourites for the account too', async () => {
  const user = await suite.server.createUser({ email: uniqueEmail('fav'), ...USER });
  const page = await openPage(suite.browser, suite.server.url);
  await signIn(page, user.email, user.password);
  await searchEmail(page, SECRETS[0]!);
  await page.getByTestId('results-list').getByTestId('search-result').first().getByRole('button', { name: 'Add to favourites' }).click();
  const kept = favouriteKeys(await storage(page));
  assert.equal(kept.length, 1);
  // The server refuses the token and the refresh (session revoked or expired): the app signs out.
  await page.route('**/search', (route) => route.fulfill({ status: 401, contentType: 'application/json', body: '{"error":"expired"}' }));
  await page.route('**/authentication/refresh', (route) => route.fulfill({ status: 401, contentType: 'application/json', body: '{"error":"no session"}' }));
  const loggedOut = page.waitForRequest((request) => new URL(request.url()).pathname === '/authentication/logout');
  await page.getByRole('tab', { name: 'Email', exact: true }).click();
  await page.locator('input[name="query"]').fill(SECRETS[0]!);
  await page.locator('input[name="query"]').press('Enter');
  await loggedOut;
  await page.waitForURL((url) => url.pathname === '/login');
  const entries = await storage(page);
  assert.deepEqual(favouriteKeys(entries), kept);
  assertNoRecordValues(entries);
  await page.context().close();
});
