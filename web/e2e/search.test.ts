/** /search and /entry-removal against the real server, engine and seeded data. */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { Page, Request } from 'playwright-core';
import { unpackSearch, type SearchFields } from '../../server/src/common/obfuscation';
import { clearToasts, eventually, logInThroughForm, MOBILE, openPage, textOf, toastAfter } from './support/browser';
import { mailedLink, uniqueEmail, type UserOptions } from './support/server';
import { useServerAndBrowser } from './support/suite';
import { csvRecords } from './support/csv';

const WELL = 'Search Test Well';
const HYPERLINK = '=HYPERLINK("http://evil.example/x","click me")';

const RECORDS: object[] = [
  {
    email: 'alice.search@example.com',
    username: 'alice_searcher',
    password: 'Sup3rSecret!',
    hashed_password: '5f4dcc3b5aa765d61d8327deb882cf99:None',
    name: 'Alice Search',
  },
  // Two identical records: one row with deduplication, two without.
  { email: 'dup.search@example.com', password: 'twice-seen' },
  { email: 'dup.search@example.com', password: 'twice-seen' },
  // Wildcard and regex targets.
  { username: 'wildcat1', email: 'wildcat1@example.com' },
  { username: 'wildcat2', email: 'wildcat2@example.com' },
  { username: 'wildcat9', email: 'wildcat9@example.com' },
  // Hostile values: must show as text, never run.
  {
    email: 'xss.search@example.com',
    username: '<script>alert(1)</script>',
    url: 'javascript:alert(2)',
    name: '<img src=x onerror=alert(3)>',
  },
  // CSV export: an array field, a comma, a line break, a formula.
  {
    email: ['csv.one@example.com', 'csv.two@example.com'],
    name: 'Doe, John',
    address: 'Line one\nLine two',
    password: HYPERLINK,
  },
  // A masked record.
  { email: 'hidden', username: 'masked_user_search' },
  // Removal flow.
  { email: 'remove.me.search@example.com', password: 'remove-me-please' },
  // A broken dump's 3,000-character value.
  { email: 'long.value.search@example.com', address: `${'Long Street '.repeat(249)}Long Street.` },
  // Paging: 130 records share a password → 7 pages of 20.
  ...Array.from({ length: 130 }, (_, i) => ({ email: `pager${i}@paging.example`, password: 'paging-shared-pass' })),
];

const suite = useServerAndBrowser(({ server }) => server.ingest(WELL, RECORDS));

const SUBSCRIBED: UserOptions = { verified: true, searchDays: 30, searchCredits: 10 };

async function signIn(options: UserOptions = SUBSCRIBED, target = '/search', viewport?: typeof MOBILE): Promise<Page> {
  const user = await suite.server.createUser({ email: uniqueEmail('search'), ...options });
  const page = await openPage(suite.browser, suite.server.url, viewport);
  await page.goto(target);
  await page.waitForURL((url) => url.pathname === '/login');
  await logInThroughForm(page, user.email, user.password);
  await page.waitForURL((url) => url.pathname === new URL(target, suite.server.url).pathname);
  return page;
}

const isSearchCall = (request: Request) => request.method() === 'POST' && new URL(request.url()).pathname === '/search';

/** The values the dashboard sent, decoded with the shared codec. */
function sentValues(request: Request) {
  return unpackSearch(request.postDataJSON() as SearchFields);
}

async function chooseTab(page: Page, label: string): Promise<void> {
  await page.getByRole('tab', { name: label, exact: true }).click();
}

async function setSwitch(page: Page, label: string, on: boolean): Promise<void> {
  const control = page.getByRole('switch', { name: label });
  if ((await control.isChecked()) !== on) await control.click({ force: true });
}

/** Types the query, presses Enter and waits for the answer; returns the request sent. */
async function search(page: Page, query: string, tab?: string): Promise<Request> {
  if (tab) await chooseTab(page, tab);
  await page.locator('input[name="query"]').fill(query);
  const sent = page.waitForRequest(isSearchCall);
  const answered = page.waitForResponse((response) => isSearchCall(response.request()));
  await page.locator('input[name="query"]').press('Enter');
  const request = await sent;
  await answered;
  await page.locator('.results-area[aria-busy="false"]').waitFor();
  return request;
}

const rows = (page: Page) => page.getByTestId('results-list').getByTestId('search-result');
const stat = (page: Page, id: string) => textOf(page.getByTestId(`stat-${id}`));

test('toggles: dedup on by default, regex and wildcard exclude each other; stats use separators', async () => {
  const page = await signIn();
  assert.equal(await page.getByRole('switch', { name: 'Remove duplicates' }).isChecked(), true);
  assert.equal(await page.getByRole('switch', { name: 'Regex' }).isChecked(), false);
  assert.equal(await page.getByRole('switch', { name: 'Wildcard' }).isChecked(), false);

  let request = await search(page, 'dup.search@example.com', 'Email');
  assert.deepEqual(sentValues(request), {
    query: 'dup.search@example.com',
    type: 'email',
    page: 1,
    regex: false,
    wildcard: false,
    deduplicate: true,
  });
  assert.equal(await rows(page).count(), 1);
  assert.equal(await stat(page, 'total'), '1');
  assert.match(await stat(page, 'assets'), /^\d{1,3}(,\d{3})*$/);
  assert.match(await stat(page, 'elapsed'), /^[\d,.]+ (ms|s)$/);

  await setSwitch(page, 'Remove duplicates', false);
  request = await search(page, 'dup.search@example.com');
  assert.equal(sentValues(request).deduplicate, false);
  assert.equal(await rows(page).count(), 2);

  await setSwitch(page, 'Remove duplicates', true);
  await setSwitch(page, 'Wildcard', true);
  await setSwitch(page, 'Regex', true);
  assert.equal(await page.getByRole('switch', { name: 'Wildcard' }).isChecked(), false);
  await setSwitch(page, 'Wildcard', true);
  assert.equal(await page.getByRole('switch', { name: 'Regex' }).isChecked(), false);

  // Wildcard: a trailing &wildcard is removed before sending.
  request = await search(page, 'wildcat*&wildcard', 'Username');
  assert.deepEqual(sentValues(request), { query: 'wildcat*', type: 'username', page: 1, regex: false, wildcard: true, deduplicate: true });
  assert.equal(await rows(page).count(), 3);

  await setSwitch(page, 'Regex', true);
  request = await search(page, 'wildcat[12]&regex');
  assert.deepEqual(sentValues(request), { query: 'wildcat[12]', type: 'username', page: 1, regex: true, wildcard: false, deduplicate: true });
  assert.equal(await rows(page).count(), 2);

  // With both toggles off, a typed &wildcard turns wildcard on, as the engine reads it on /v2.
  await setSwitch(page, 'Regex', false);
  request = await search(page, 'wildcat* &WILDCARD');
  assert.deepEqual(sentValues(request), { query: 'wildcat*', type: 'username', page: 1, regex: false, wildcard: true, deduplicate: true });
  assert.equal(await rows(page).count(), 3);
  assert.equal(await page.getByRole('switch', { name: 'Wildcard' }).isChecked(), true);
  await page.context().close();
});

test('paging: 20 a page, the window with ellipses, the last-run query re-run, scrolled to top', async () => {
  const page = await signIn();
  await search(page, 'paging-shared-pass', 'Password');
  assert.equal(await stat(page, 'total'), '130');
  assert.equal(await rows(page).count(), 20);
  const pager = page.getByRole('navigation', { name: 'Pagination' });
  const labels = () => pager.locator('button, .paginator-gap').allTextContents();
  assert.deepEqual(await labels(), ['Previous', '1', '2', '…', '7', 'Next']);

  // The edited input does not matter: paging re-runs the last search.
  await page.locator('input[name="query"]').fill('something else');
  await page.evaluate(() => window.scrollTo({ top: document.body.scrollHeight }));
  const ids = () => rows(page).evaluateAll((items) => items.map((item) => item.getAttribute('data-record-id')));
  const firstPage = await ids();
  const sent = page.waitForRequest(isSearchCall);
  await pager.getByRole('button', { name: 'Page 2' }).click();
  const values = sentValues(await sent);
  assert.equal(values.query, 'paging-shared-pass');
  assert.equal(values.type, 'password');
  assert.equal(values.page, 2);
  await eventually(() => pager.locator('[aria-current="page"]').textContent(), '2');
  await eventually(() => page.evaluate(() => window.scrollY), 0);
  const secondPage = await ids();
  assert.equal(secondPage.length, 20);
  assert.equal(
    secondPage.some((id) => firstPage.includes(id)),
    false,
  );

  await pager.getByRole('button', { name: 'Next' }).click();
  await eventually(() => pager.locator('[aria-current="page"]').textContent(), '3');
  await pager.getByRole('button', { name: 'Next' }).click();
  await eventually(() => pager.locator('[aria-current="page"]').textContent(), '4');
  assert.deepEqual(await labels(), ['Previous', '1', '…', '3', '4', '5', '…', '7', 'Next']);

  await pager.getByRole('button', { name: 'Page 7' }).click();
  await eventually(() => pager.locator('[aria-current="page"]').textContent(), '7');
  assert.equal(await rows(page).count(), 10);
  assert.deepEqual(await labels(), ['Previous', '1', '…', '6', '7', 'Next']);
  assert.equal(await pager.getByRole('button', { name: 'Next' }).isDisabled(), true);
  await page.context().close();
});

test('"All" covers every page: it says how many searches it takes, loads with progress, then exports', async () => {
  const page = await signIn();
  await search(page, 'paging-shared-pass', 'Password');
  assert.equal(await stat(page, 'total'), '130');
  await page.getByRole('radio', { name: 'All' }).click();
  let searches = 0;
  page.on('request', (request) => {
    if (isSearchCall(request)) searches++;
  });
  await page.getByRole('button', { name: 'Export CSV' }).click();
  const dialog = page.getByRole('dialog');
  assert.match(await textOf(dialog.getByTestId('load-all-notice')), /6 pages are not loaded yet; loading them counts as 6 searches/);
  // The progress counts the same 6 pages, not the page already loaded ("of 7").
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const searchPath = (url: URL) => url.pathname === '/search';
  await page.route(
    searchPath,
    async (route) => {
      if (isSearchCall(route.request())) await held;
      await route.continue();
    },
  );
  await dialog.getByRole('button', { name: 'Load 6 pages' }).click();
  const progress = dialog.getByTestId('load-all-progress');
  assert.equal(await textOf(progress.getByRole('status')), 'Loaded 0 of 6 pages…');
  assert.equal(await progress.getByRole('progressbar').getAttribute('max'), '6');
  release();
  await dialog.getByTestId('load-all-ready').waitFor();
  await page.unroute(searchPath);
  assert.equal(await textOf(dialog.getByTestId('load-all-ready')), 'Every page is loaded: 130 records.');
  assert.equal(searches, 6, 'one search per page not loaded yet');
  await dialog.getByRole('button', { name: 'Export CSV' }).click();
  const exportDialog = page.getByRole('dialog', { name: 'Export CSV' });
  assert.match(await textOf(exportDialog), /130 records from every page of this search/);
  await exportDialog.getByRole('button', { name: 'Cancel' }).click();
  // Every page is now loaded: All acts at once, with no search.
  await page.getByRole('button', { name: 'Export CSV' }).click();
  assert.match(await textOf(page.getByRole('dialog', { name: 'Export CSV' })), /130 records/);
  assert.equal(searches, 6);
  await page.context().close();
});

test('rows expand, favourite (kept across a reload), select and copy', async () => {
  const page = await signIn({ ...SUBSCRIBED, lawEnforcement: true });
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: suite.server.url });
  await search(page, 'alice.search@example.com', 'Email');
  const row = rows(page).first();
  assert.equal(await textOf(row.getByTestId('result-headline')), 'alice.search@example.com');
  assert.equal(await textOf(row.getByTestId('result-source')), WELL);

  // Expand: every field; the hashed password without its "None" salt; LE-only raw record.
  assert.equal(await row.getByTestId('result-details').count(), 0);
  await row.getByTestId('result-toggle').click();
  const details = row.getByTestId('result-details');
  const text = await textOf(details);
  for (const value of ['alice_searcher', 'Sup3rSecret!', 'Alice Search', '5f4dcc3b5aa765d61d8327deb882cf99', WELL]) {
    assert.ok(text.includes(value), `details show ${value}`);
  }
  const hashed = await textOf(details.locator('.result-field', { hasText: 'Hashed Password' }));
  assert.equal(hashed, 'Hashed Password5f4dcc3b5aa765d61d8327deb882cf99', 'a None salt is not shown');
  const raw = details.getByTestId('raw-record');
  assert.match(await textOf(raw), /LE ONLY/);
  assert.match(await textOf(raw), /Exclusively available to law enforcement agencies/);
  await row.getByTestId('result-toggle').click();
  await details.waitFor({ state: 'detached' });

  // Favourite: into the favourites section, kept across a reload, hidden and shown.
  await row.getByRole('button', { name: 'Add to favourites' }).click();
  const favourites = page.getByTestId('favourites-list');
  assert.equal(await textOf(favourites.getByTestId('result-headline')), 'alice.search@example.com');
  await page.reload();
  await favourites.getByTestId('result-headline').waitFor();
  await page.getByTestId('favourites').getByRole('button', { name: 'Hide' }).click();
  await favourites.waitFor({ state: 'detached' });
  await page.getByTestId('favourites').getByRole('button', { name: 'Show' }).click();
  await favourites.getByRole('button', { name: 'Remove from favourites' }).click();
  await favourites.waitFor({ state: 'detached' });

  // Select and copy.
  await setSwitch(page, 'Wildcard', true);
  await search(page, 'wildcat*', 'Username');
  const copySelected = page.getByRole('button', { name: /^Copy Selected/ });
  assert.equal(await copySelected.isDisabled(), true);
  await rows(page).nth(1).getByRole('checkbox').check();
  assert.equal(await copySelected.isDisabled(), false);
  assert.equal(await toastAfter(page, () => copySelected.click()), 'Copied Data');
  const selected = await page.evaluate(() => navigator.clipboard.readText());
  const selectedEmail = await textOf(rows(page).nth(1).getByTestId('result-headline'));
  assert.ok(selected.includes(selectedEmail));
  assert.equal((selected.match(/wildcat\d@example\.com/g) ?? []).length, 1);

  assert.equal(await toastAfter(page, () => page.getByRole('button', { name: 'Copy', exact: true }).click()), 'Copied Data');
  const wholePage = await page.evaluate(() => navigator.clipboard.readText());
  assert.deepEqual((wholePage.match(/wildcat\d@example\.com/g) ?? []).sort(), ['wildcat1@example.com', 'wildcat2@example.com', 'wildcat9@example.com']);
  await page.context().close();
});

test('raw records stay hidden from users without law-enforcement status', async () => {
  const page = await signIn();
  await search(page, 'alice.search@example.com', 'Email');
  await rows(page).first().getByTestId('result-toggle').click();
  await rows(page).first().getByTestId('result-details').waitFor();
  assert.equal(await page.getByTestId('raw-record').count(), 0);
  assert.equal(await page.getByText('LE ONLY').count(), 0);
  await page.context().close();
});

test('CSV export: numbered columns, every character kept (commas, line breaks), formulas neutralised, .csv required', async () => {
  const page = await signIn();
  await search(page, 'csv.one@example.com', 'Email');
  await page.getByRole('button', { name: 'Export CSV' }).click();
  const name = page.locator('input[name="csv-file-name"]');
  assert.match(await name.inputValue(), /^search-results-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}\.csv$/);

  await name.fill('results.txt');
  assert.equal(await toastAfter(page, () => page.getByRole('button', { name: 'Download' }).click()), 'The file name must end in .csv');

  await name.fill('export-test.csv');
  await clearToasts(page).catch(() => undefined);
  const download = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Download' }).click();
  const file = await download;
  assert.equal(file.suggestedFilename(), 'export-test.csv');
  assert.equal(await textOf(page.locator('.toast .toast-body').first()), 'Downloaded CSV');
  const csv = fs.readFileSync((await file.path())!, 'utf8');

  const records = csvRecords(csv);
  assert.equal(records.length, 1);
  const record = records[0]!;
  assert.equal(record.email_1, 'csv.one@example.com');
  assert.equal(record.email_2, 'csv.two@example.com');
  // An export is a copy of the data: commas and line breaks kept.
  assert.equal(record.name_1, 'Doe, John');
  assert.equal(record.address_1, 'Line one\nLine two');
  assert.equal(record.password_1, `'${HYPERLINK}`);
  assert.equal(record.database_name, WELL);
  assert.equal('primary_field' in record, false);
  assert.equal('raw_record' in record, false);
  await page.context().close();
});

test('hostile values render as inert text, on screen and in the print view', async () => {
  const page = await signIn({ ...SUBSCRIBED, lawEnforcement: true });
  const dialogs: string[] = [];
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  await search(page, 'xss.search@example.com', 'Email');
  const row = rows(page).first();
  await row.getByTestId('result-toggle').click();
  const details = await textOf(row.getByTestId('result-details'));
  assert.ok(details.includes('<script>alert(1)</script>'));
  assert.ok(details.includes('javascript:alert(2)'));
  assert.ok(details.includes('<img src=x onerror=alert(3)>'));
  const list = page.getByTestId('results-list');
  assert.equal(await list.locator('script').count(), 0);
  assert.equal(await list.locator('img').count(), 0);
  assert.equal(await list.locator('a[href^="javascript"]').count(), 0);

  await page.getByRole('button', { name: 'Print' }).click();
  const frame = page.frameLocator('#search-print-frame');
  await eventually(async () => ((await frame.locator('body').textContent()) ?? '').includes('xss.search@example.com'), true);
  const printed = (await frame.locator('body').textContent()) ?? '';
  assert.ok(printed.includes('<script>alert(1)</script>'));
  assert.ok(printed.includes('javascript:alert(2)'));
  assert.equal(await frame.locator('script').count(), 0);
  assert.equal(await frame.locator('img').count(), 0);
  await page.waitForTimeout(200);
  assert.deepEqual(dialogs, []);
  await page.context().close();
});

test('without a subscription: the notice with a Subscribe link, no values', async () => {
  const page = await signIn({ verified: true });
  await page.getByTestId('subscription-notice').waitFor();
  await search(page, 'alice.search@example.com', 'Email');
  const notice = page.getByTestId('subscription-notice');
  assert.match(await textOf(notice), /You need an active subscription in order to view results/);
  assert.equal(await notice.getByRole('link', { name: 'Subscribe' }).getAttribute('href'), '/subscriptions/search');
  assert.equal(await page.getByTestId('search-result').count(), 0);
  assert.equal(await stat(page, 'total'), '1');
  assert.equal((await page.content()).includes('Sup3rSecret!'), false);
  assert.match(await textOf(notice.getByTestId('one-term-rule')), /one term/);
  assert.equal(await notice.getByTestId('credits-need-subscription').count(), 0, 'no credits, no word about them');

  // A guess about a hidden field joined to a known email is refused, with no count: a count would confirm the guess.
  await page.locator('input[name="query"]').fill('email:alice.search@example.com AND password:"Sup3rSecret!"');
  const answered = page.waitForResponse((response) => isSearchCall(response.request()));
  const message = await toastAfter(page, () => page.getByRole('button', { name: 'Find' }).click());
  assert.equal((await answered).status(), 403);
  assert.match(message, /need a search subscription/);
  assert.equal(await stat(page, 'total'), '1', 'the count shown is still the one-term search');
  await page.context().close();
});

test('credits without a subscription: the notice says what the credits are for', async () => {
  const page = await signIn({ verified: true, searchCredits: 50 });
  const notice = page.getByTestId('subscription-notice');
  await notice.waitFor();
  assert.match(
    await textOf(notice.getByTestId('credits-need-subscription')),
    /Your 50 API credits pay for searches through the API.*need an active Search subscription/,
  );
  await page.context().close();
});

test('a search that finds nothing says how to write what was meant', async () => {
  const page = await signIn();
  await search(page, 'Nobody Atall', 'Name');
  const hints = page.getByTestId('search-empty-hints');
  await hints.waitFor();
  assert.match(await textOf(hints), /Put a name or an address in quotes: "John Smith"/);
  await page.context().close();
});

test('removal: Remove Entry mails a link; the confirmation page removes; a new search no longer finds it', async () => {
  const page = await signIn();
  await search(page, 'remove.me.search@example.com', 'Email');
  const row = rows(page).first();
  await row.getByRole('button', { name: 'Remove Entry' }).click();
  const dialog = page.getByRole('dialog', { name: 'Remove Entry' });
  await dialog.getByRole('radio', { name: 'remove.me.search@example.com' }).check();
  await dialog.getByRole('button', { name: 'Submit' }).click();
  await dialog.waitFor({ state: 'detached' });
  assert.equal(await textOf(row.getByTestId('result-removed')), 'Removed');
  assert.equal(await row.getByRole('button', { name: 'Remove Entry' }).count(), 0);

  const link = await mailedLink(suite.server, 'remove.me.search@example.com', /remov/i, '/entry-removal');
  const started = Date.now();
  await page.goto(link);
  const card = page.getByTestId('entry-removal');
  await card.getByText('Entry Removed').waitFor();
  assert.match(await textOf(card), /You will be redirected in 3 seconds\./);
  await page.waitForURL((url) => url.pathname === '/search', { timeout: 6_000 });
  assert.ok(Date.now() - started >= 2_900, 'waits 3 seconds before redirecting');

  await search(page, 'remove.me.search@example.com', 'Email');
  assert.equal(await textOf(page.getByTestId('search-empty').locator('h2')), 'No document matches the specified search terms.');

  // A used or forged link: the error toast, then /search.
  await page.goto(link);
  await page.waitForURL((url) => url.pathname === '/search');
  assert.equal(await textOf(page.locator('.toast .toast-body').first()), 'could not remove entry, try again later.');
  // Missing ref or v: straight to /search.
  await page.goto('/entry-removal?ref=abc');
  await page.waitForURL((url) => url.pathname === '/search');
  await page.context().close();
});

test('a masked email shows as Hidden and offers no Remove Entry', async () => {
  const page = await signIn();
  await search(page, 'masked_user_search', 'Username');
  const row = rows(page).first();
  await row.getByTestId('result-toggle').click();
  assert.match(await textOf(row.getByTestId('result-details')), /Hidden/);
  assert.equal(await row.getByRole('button', { name: 'Remove Entry' }).count(), 0);
  assert.equal(await row.getByRole('button', { name: 'Add to favourites' }).count(), 1);
  await page.context().close();
});

test('validation: every search message, nothing sent', async () => {
  const page = await signIn();
  const requests: Request[] = [];
  page.on('request', (request) => isSearchCall(request) && requests.push(request));
  const find = page.getByRole('button', { name: 'Find' });
  const attempt = async (tab: string, query: string) => {
    await chooseTab(page, tab);
    await page.locator('input[name="query"]').fill(query);
    return toastAfter(page, () => find.click());
  };

  assert.equal(await attempt('All', ''), 'Empty Query');
  assert.equal(await attempt('All', '   '), 'Empty Query');
  assert.equal(await attempt('All', 'abc'), 'Query not long enough (minimum 4 characters)');
  assert.equal(await attempt('All', 'x'.repeat(201)), 'Query Too Long');
  assert.equal(await attempt('IP Address', 'not-an-ip'), 'Invalid IP Address Format');
  assert.equal(await attempt('IP Address', '300.1.2.3'), 'Invalid IP Address Format');
  assert.equal(await attempt('IP Address', '10.1.*.*'), 'Invalid IP Address Format');
  assert.equal(await attempt('IP Address', ''), 'Empty Query');
  assert.equal(await attempt('Phone', 'abc12345'), 'Invalid Phone Format');
  assert.equal(await attempt('Phone', '1234567890123456'), 'Invalid Phone Format');
  assert.equal(await attempt('Phone', '12'), 'Query not long enough (minimum 4 characters)\nInvalid Phone Format');
  assert.equal(requests.length, 0);

  // Valid forms do go out: quoted IPv4, IPv6, a wildcard IPv4 with wildcard on, a phone.
  for (const [tab, query] of [
    ['IP Address', '"203.0.113.7"'],
    ['IP Address', '2001:db8::1'],
    ['Phone', '15555550123'],
  ] as const) {
    await search(page, query, tab);
  }
  await setSwitch(page, 'Wildcard', true);
  await search(page, '10.1.*.*', 'IP Address');
  assert.equal(requests.length, 4);
  await page.context().close();
});

test('a query the engine rejects shows the server message', async () => {
  const page = await signIn();
  await chooseTab(page, 'All');
  await page.locator('input[name="query"]').fill('email:"unterminated');
  const message = await toastAfter(page, () => page.getByRole('button', { name: 'Find' }).click());
  assert.notEqual(message, 'An error occurred while processing your seach. Please try again.');
  assert.ok(message.length > 0);
  await page.context().close();
});

test('?q= fills the input and searches on arrival, through the sign-in too', async () => {
  const page = await signIn(SUBSCRIBED, '/search?q=alice.search%40example.com');
  await eventually(() => page.locator('input[name="query"]').inputValue(), 'alice.search@example.com');
  await eventually(() => rows(page).first().getByTestId('result-headline').textContent(), 'alice.search@example.com');
  await page.context().close();
});

test('mobile: the tab strip shows it scrolls; a 3,000-character value is cut with a button for the rest', async () => {
  const page = await signIn(SUBSCRIBED, '/search', MOBILE);
  const tabs = page.getByRole('tablist', { name: 'Search type' });
  // Cut off at the end: faded there, not at the start; scrolled to the end: the other way round.
  await eventually(() => tabs.evaluate((el) => [el.hasAttribute('data-more-start'), el.hasAttribute('data-more-end')]), [false, true]);
  await tabs.evaluate((el) => el.scrollTo({ left: el.scrollWidth }));
  await eventually(() => tabs.evaluate((el) => [el.hasAttribute('data-more-start'), el.hasAttribute('data-more-end')]), [true, false]);

  await search(page, 'long.value.search@example.com', 'Email');
  const row = rows(page).first();
  await row.getByTestId('result-toggle').click();
  const value = row.getByTestId('result-details').locator('.value-long');
  const toggle = value.getByRole('button', { name: 'Show all 3,000 characters' });
  assert.equal(await toggle.getAttribute('aria-expanded'), 'false');
  assert.equal((await textOf(value.locator('.value-text'))).length, 401, '400 characters and an ellipsis');
  await toggle.click();
  assert.equal((await textOf(value.locator('.value-text'))).length, 3000);
  assert.equal(await value.getByRole('button', { name: 'Show less' }).getAttribute('aria-expanded'), 'true');
  assert.equal(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), true);
  await page.context().close();
});

test('mobile layout (390 px): rows are cards with their actions', async () => {
  const page = await signIn(SUBSCRIBED, '/search', MOBILE);
  await search(page, 'paging-shared-pass', 'Password');
  const row = rows(page).first();
  await row.getByTestId('result-toggle').click();
  await row.getByTestId('result-details').waitFor();
  const box = await row.boundingBox();
  assert.ok(box && box.width <= MOBILE.width, 'no horizontal overflow');
  assert.equal(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), true);
  await row.getByRole('button', { name: 'Add to favourites' }).click();
  const dir = process.env.E2E_SCREENSHOT_DIR;
  if (dir) {
    fs.mkdirSync(dir, { recursive: true });
    await page.screenshot({ path: path.join(dir, 'mobile-search-results.png') });
  }
  await page.context().close();
});
