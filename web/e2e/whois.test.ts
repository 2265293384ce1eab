/**
 * /whois against the real server and a local store holding the sample files of
 * samples/whois and fictitious `e2e-*.test` names (support/whois.ts): every tab answers from
 * the samples and from the store, the balance goes down by the
 * documented costs (1, history 25) and follows each answer's remaining_credits, history is
 * refused below 25 credits without a call, the credits toast (its link, its 3.3 s), the
 * documented validation messages before sending, reverse WHOIS paged by 20, lookups by
 * 25/50/100, 'No results found.', a dataError's text, hostile text shown as text, the same
 * query not sent twice, an answer without data free (a domain not registered reads
 * Available, one nobody knows Undetermined, neither with contact cards). Desktop and mobile
 * screenshots.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import type { Page, Request } from 'playwright-core';
import {
  CREDITS_TOAST_MS,
  DATA_ERROR_TEXT,
  HISTORY_COST,
  MAX_REVERSE_TERMS,
  NO_CHARGE_TEXT,
  NO_RECORD_TEXT,
  REVERSE_WHOIS_PAGE_SIZE,
  WHOIS_MESSAGES,
  domainAgeDays,
} from '../../server/src/common/whois-rules';
import { clearToasts, eventually, MOBILE, textOf, toastAfter } from './support/browser';
import { call, screenshot, signInAs, signInTo } from './support/monitoring';
import { useServerAndBrowser } from './support/suite';
import {
  cacheNotRegistered,
  HISTORY_DOMAIN,
  HOSTILE_ORG,
  IP_HOSTS,
  loadWhoisSamples,
  MAIL_DOMAINS,
  MAIL_HOST,
  MASKED_DOMAIN,
  NAME_SERVER,
  NOT_REGISTERED_DOMAIN,
  NS_DOMAINS,
  PRIVACY_DOMAINS,
  RETAIL_DOMAINS,
  RETAIL_TERM,
  SAMPLE,
  seedWhoisStore,
  SHARED_IP,
  SUBDOMAINS,
} from './support/whois';

const suite = useServerAndBrowser(async ({ server }) => {
  await loadWhoisSamples(server);
  await seedWhoisStore(server);
});

const open = (credits: number, viewport?: typeof MOBILE) =>
  signInTo(suite.server, suite.browser, '/whois', { verified: true, ...(credits > 0 ? { whoisCredits: credits } : {}) }, viewport);

const balance = (page: Page) => textOf(page.getByTestId('whois-balance'));
const tab = (page: Page, label: string) => page.getByRole('tab', { name: label, exact: true });
const queryInput = (page: Page) => page.locator('input[name="whois-query"]');
const lookUp = (page: Page) => page.getByRole('button', { name: 'Look Up' }).click();
const results = (page: Page, tool: string) => page.getByTestId(`whois-results-${tool}`);
const texts = async (page: Page, testId: string) => (await page.getByTestId(testId).allTextContents()).map((t) => t.trim());

/** Counts the POST /whois calls the page makes. */
function whoisCalls(page: Page): Request[] {
  const sent: Request[] = [];
  page.on('request', (request) => {
    if (new URL(request.url()).pathname === '/whois' && request.method() === 'POST') sent.push(request);
  });
  return sent;
}

/** Runs a lookup on `label`'s tab with `value` typed in the query input, and waits for its results. */
async function lookUpOn(page: Page, label: string, tool: string, value: string): Promise<void> {
  await tab(page, label).click();
  await queryInput(page).fill(value);
  await lookUp(page);
  await results(page, tool).getByTestId('whois-query-echo').filter({ hasText: value.toLowerCase() }).waitFor();
}

async function lookupNames(page: Page): Promise<string[]> {
  return (await page.locator('[data-testid="lookup-row"] td:first-child').allTextContents()).map((t) => t.trim());
}

test('every tab answers from the local store; the balance goes down by 1 a lookup and 25 for history', async () => {
  const { page, token } = await open(40);
  const sent = whoisCalls(page);
  await eventually(() => balance(page), '40');
  assert.match(await textOf(page.getByTestId('whois-cost')), /costs 1 credit\./);
  assert.deepEqual(
    (await page.getByRole('tab').allTextContents()).map((t) => t.trim()),
    ['WHOIS', 'WHOIS History', 'Reverse WHOIS', 'Reverse IP', 'Reverse MX', 'Reverse NS', 'Subdomain Scan'],
  );
  assert.equal(await page.locator('.breadcrumb').textContent(), 'WHOIS');

  // WHOIS: the current record, its age in days, hostile text as text.
  await tab(page, 'WHOIS').click();
  await queryInput(page).fill('E2E-Widgets.TEST');
  await lookUp(page);
  await eventually(() => textOf(page.getByTestId('whois-domain')), HISTORY_DOMAIN);
  const facts = page.getByTestId('whois-facts');
  assert.match(await textOf(facts), /RegistrarThird Registrar LLC/);
  const age = domainAgeDays('2016-02-29T12:00:00Z')!;
  assert.match(await textOf(facts), new RegExp(`Domain age${age.toLocaleString('en-US')} days`));
  // Dates read like every other date of the page, never as raw ISO strings.
  assert.match(await textOf(facts), /CreatedFeb 29, 2016, 12:00 PM UTC/);
  assert.doesNotMatch(await textOf(page.locator('.whois-record')), /\d{4}-\d{2}-\d{2}T\d{2}:/);
  assert.equal(await textOf(page.getByTestId('whois-availability')), 'Registered');
  assert.deepEqual(await page.getByTestId('whois-name-servers').locator('li').allTextContents(), [NAME_SERVER, 'ns2.e2e-widgets.test']);
  await page.getByRole('region', { name: 'Registrant' }).getByText(HOSTILE_ORG, { exact: true }).waitFor();
  assert.equal(await page.evaluate(() => (window as unknown as { __whoisXss?: number }).__whoisXss), undefined, 'no markup ran');
  assert.equal(await page.locator('.whois-record img').count(), 0);
  assert.match(await textOf(page.getByTestId('whois-source')), /^Local store · /);
  await eventually(() => balance(page), '39');
  await screenshot(page, 'whois-record-desktop');

  // WHOIS History: three records, newest first; 25 credits.
  await tab(page, 'WHOIS History').click();
  assert.match(await textOf(page.getByTestId('whois-cost')), new RegExp(`costs ${HISTORY_COST} credits\\.`));
  await lookUp(page);
  await eventually(() => page.getByTestId('whois-history-record').count(), 3);
  const registrars = await page.locator('[data-testid="whois-history-record"] > .whois-facts > .whois-fact:first-child dd').allTextContents();
  assert.deepEqual(registrars, ['Third Registrar LLC', 'Second Registrar GmbH', 'First Registrar Ltd']);
  assert.equal(await textOf(page.getByTestId('whois-history-count')), '3 records');
  await eventually(() => balance(page), String(39 - HISTORY_COST));
  await screenshot(page, 'whois-history-desktop');

  // Reverse WHOIS: 23 domains (25 name the term, 2 of them also 'privacy'), 20 a page.
  await tab(page, 'Reverse WHOIS').click();
  await page.locator('input[name="include-terms"]').fill('Globex Retail');
  await page.locator('input[name="exclude-terms"]').fill('PRIVACY');
  assert.equal(await textOf(page.getByTestId('include-count')), `1 / ${MAX_REVERSE_TERMS}`);
  await lookUp(page);
  const expected = RETAIL_DOMAINS.filter((d) => !PRIVACY_DOMAINS.includes(d));
  await eventually(() => textOf(page.getByTestId('reverse-whois-count')), `${expected.length} domains · page 1 of 2`);
  assert.deepEqual(await texts(page, 'reverse-whois-domain'), expected.slice(0, REVERSE_WHOIS_PAGE_SIZE));
  assert.equal(await textOf(page.getByTestId('whois-query-echo')), `current:${RETAIL_TERM}:privacy`);
  await page.getByRole('button', { name: 'Page 2' }).click();
  await eventually(() => texts(page, 'reverse-whois-domain'), expected.slice(REVERSE_WHOIS_PAGE_SIZE));
  assert.equal(await page.getByTestId('reverse-whois-list').getAttribute('start'), String(REVERSE_WHOIS_PAGE_SIZE + 1));
  await eventually(() => balance(page), '13');
  await screenshot(page, 'whois-reverse-whois-desktop');

  // Reverse IP: 60 names, 50 a page by default, then 25 and 100.
  await lookUpOn(page, 'Reverse IP', 'reverse_ip', SHARED_IP);
  await eventually(() => textOf(page.getByTestId('lookup-count')), '60 rows · page 1 of 2');
  assert.equal((await lookupNames(page)).length, 50);
  await page.locator('select[name="lookup-page-size"]').selectOption('25');
  await eventually(async () => (await lookupNames(page)).length, 25);
  assert.equal(await textOf(page.getByTestId('lookup-count')), '60 rows · page 1 of 3');
  await page.getByRole('button', { name: 'Page 3' }).click();
  await eventually(async () => (await lookupNames(page)).length, 10);
  await page.locator('select[name="lookup-page-size"]').selectOption('100');
  await eventually(async () => (await lookupNames(page)).sort(), [...IP_HOSTS].sort());
  assert.match(await textOf(page.locator('[data-testid="lookup-row"] td').nth(1)), /^May 1, 2022$/);
  // A name is never broken over lines: a narrow screen scrolls the table (phone-layout.test.ts).
  const nameCell = page.locator('[data-testid="lookup-row"] td.whois-table-name').first();
  assert.equal(await nameCell.evaluate((cell) => getComputedStyle(cell).whiteSpace), 'nowrap');
  await eventually(() => balance(page), '12');
  await screenshot(page, 'whois-reverse-ip-desktop');

  await lookUpOn(page, 'Reverse MX', 'reverse_mx', MAIL_HOST);
  await eventually(async () => (await lookupNames(page)).sort(), [...MAIL_DOMAINS].sort());
  await eventually(() => balance(page), '11');

  await lookUpOn(page, 'Reverse NS', 'reverse_ns', NAME_SERVER);
  await eventually(async () => (await lookupNames(page)).sort(), [...NS_DOMAINS].sort());
  await eventually(() => balance(page), '10');

  await lookUpOn(page, 'Subdomain Scan', 'subdomain_scan', HISTORY_DOMAIN);
  await eventually(async () => (await lookupNames(page)).sort(), [...SUBDOMAINS].sort());
  await eventually(() => balance(page), '9');

  // Each tab keeps its results: back on WHOIS, the record is there without a new call.
  const calls = sent.length;
  assert.equal(calls, 7);
  await tab(page, 'WHOIS').click();
  await eventually(() => textOf(page.getByTestId('whois-domain')), HISTORY_DOMAIN);
  assert.equal(await page.locator('.whois-tab-dot').count(), 7);
  assert.equal(sent.length, calls);
  // The server agrees with the balance shown.
  assert.deepEqual(await call(suite.server, token, '/user/whois-credits'), { whois_credits: 9 });
  await page.context().close();
});

test('after loading samples/whois, every tab answers from the samples', async () => {
  const { page } = await open(40);
  await eventually(() => balance(page), '40');
  await lookUpOn(page, 'WHOIS', 'whois', SAMPLE.domain);
  assert.equal(await textOf(page.getByTestId('whois-domain')), SAMPLE.domain);
  assert.match(await textOf(page.getByTestId('whois-facts')), /Registrar\S/);
  assert.match(await textOf(page.getByTestId('whois-source')), /^Local store · /);
  await lookUpOn(page, 'WHOIS', 'whois', SAMPLE.masked);
  assert.equal(await textOf(page.getByTestId('whois-data-error')), DATA_ERROR_TEXT.MASKED_WHOIS_DATA);

  await lookUpOn(page, 'WHOIS History', 'whois_history', SAMPLE.domain);
  assert.ok((await page.getByTestId('whois-history-record').count()) >= SAMPLE.historyVersions, 'every version kept');

  await tab(page, 'Reverse WHOIS').click();
  await page.locator('input[name="include-terms"]').fill(SAMPLE.term);
  await lookUp(page);
  await eventually(async () => (await texts(page, 'reverse-whois-domain')).includes(SAMPLE.domain), true);

  for (const [label, tool, value, name] of [
    ['Reverse IP', 'reverse_ip', SAMPLE.ip, SAMPLE.domain],
    ['Reverse MX', 'reverse_mx', SAMPLE.mx, SAMPLE.domain],
    ['Reverse NS', 'reverse_ns', SAMPLE.ns, SAMPLE.domain],
    ['Subdomain Scan', 'subdomain_scan', SAMPLE.domain, SAMPLE.subdomain],
  ] as const) {
    await lookUpOn(page, label, tool, value);
    await page.locator('select[name="lookup-page-size"]').selectOption('100');
    assert.ok((await lookupNames(page)).includes(name), `${label} ${value} finds ${name}`);
  }
  await eventually(() => balance(page), String(40 - 7 - HISTORY_COST));
  await page.context().close();
});

test('history is refused below 25 credits before any call; the credits toast links to the purchase page for 3.3 s', async () => {
  const { page, user } = await open(HISTORY_COST - 1);
  const sent = whoisCalls(page);
  await eventually(() => balance(page), String(HISTORY_COST - 1));
  await tab(page, 'WHOIS History').click();
  await queryInput(page).fill(HISTORY_DOMAIN);
  await page.mouse.move(5, 700); // away from the toaster: hovering would pause its countdown
  const shownAt = Date.now();
  const text = await toastAfter(page, () => lookUp(page));
  assert.equal(text.replace(/\s+/g, ' '), `${WHOIS_MESSAGES.creditsRequired} Buy WHOIS credits`);
  assert.equal(await page.locator('.toast').getByRole('link', { name: 'Buy WHOIS credits' }).getAttribute('href'), '/subscriptions/whois-credits');
  assert.equal(sent.length, 0, 'no call was made');
  await page.waitForTimeout(Math.max(0, CREDITS_TOAST_MS - 800 - (Date.now() - shownAt)));
  assert.equal(await page.locator('.toast').count(), 1, 'still shown before 3.3 s');
  await page.locator('.toast').waitFor({ state: 'detached', timeout: 2_000 });
  assert.ok(Date.now() - shownAt >= CREDITS_TOAST_MS - 100, `gone after ${Date.now() - shownAt} ms`);

  // A 1-credit lookup still runs.
  await tab(page, 'WHOIS').click();
  await lookUp(page);
  await eventually(() => textOf(page.getByTestId('whois-domain')), HISTORY_DOMAIN);
  await eventually(() => balance(page), String(HISTORY_COST - 2));
  assert.equal(sent.length, 1);

  // The link goes to the purchase page.
  await clearToasts(page).catch(() => undefined);
  await tab(page, 'WHOIS History').click();
  await toastAfter(page, () => lookUp(page));
  await page.locator('.toast').getByRole('link', { name: 'Buy WHOIS credits' }).click();
  await page.waitForURL((url) => url.pathname === '/subscriptions/whois-credits');
  await page.context().close();

  // The balance shown is stale (spent elsewhere): the server refuses, the toast shows, the balance is read again.
  const stale = await signInAs(suite.server, suite.browser, user, '/whois');
  const staleCalls = whoisCalls(stale);
  await eventually(() => balance(stale), String(HISTORY_COST - 2));
  await suite.server.runtime.db.updateTable('users').set({ whois_credits: 0 }).where('id', '=', user.id).execute();
  await queryInput(stale).fill(MASKED_DOMAIN);
  assert.match(await toastAfter(stale, () => lookUp(stale)), new RegExp(`^${WHOIS_MESSAGES.creditsRequired}`));
  assert.equal(staleCalls.length, 1);
  await eventually(() => balance(stale), '0');
  // Now known to be 0: the next lookup is refused without a call.
  await queryInput(stale).fill(HISTORY_DOMAIN);
  assert.match(await toastAfter(stale, () => lookUp(stale)), new RegExp(`^${WHOIS_MESSAGES.creditsRequired}`));
  assert.equal(staleCalls.length, 1);
  await stale.context().close();
});

test('validation messages before sending; dataError text; "No results found."; the same query is not sent twice', async () => {
  const { page } = await open(20);
  const sent = whoisCalls(page);
  await eventually(() => balance(page), '20');

  const cases: [label: string, value: string, message: string][] = [
    ['WHOIS', '', WHOIS_MESSAGES.emptyQuery],
    ['WHOIS', 'not a domain', WHOIS_MESSAGES.invalidDomain],
    ['WHOIS', 'example.c0m', WHOIS_MESSAGES.invalidDomain],
    ['WHOIS History', '   ', WHOIS_MESSAGES.emptyQuery],
    ['Reverse IP', '', WHOIS_MESSAGES.emptyLookup],
    ['Reverse IP', '999.1.1.1', WHOIS_MESSAGES.invalidIp],
    ['Reverse MX', '', WHOIS_MESSAGES.emptyLookup],
    ['Reverse NS', 'ns1..example.test', WHOIS_MESSAGES.invalidDomain],
    ['Subdomain Scan', '', WHOIS_MESSAGES.emptyLookup],
  ];
  for (const [label, value, message] of cases) {
    await tab(page, label).click();
    await queryInput(page).fill(value);
    assert.equal(await toastAfter(page, () => lookUp(page)), message, `${label} "${value}"`);
  }
  await tab(page, 'Reverse WHOIS').click();
  assert.equal(await toastAfter(page, () => lookUp(page)), WHOIS_MESSAGES.emptyReverseWhois);
  await page.locator('input[name="include-terms"]').fill(' , ,');
  assert.equal(await toastAfter(page, () => lookUp(page)), WHOIS_MESSAGES.emptyReverseWhois);
  await page.locator('input[name="include-terms"]').fill('a, b, c, d, e');
  assert.equal(await textOf(page.getByTestId('include-count')), `5 / ${MAX_REVERSE_TERMS}`);
  assert.equal(await toastAfter(page, () => lookUp(page)), WHOIS_MESSAGES.tooManyTerms);
  await page.locator('input[name="include-terms"]').fill('x'.repeat(101));
  assert.equal(await toastAfter(page, () => lookUp(page)), WHOIS_MESSAGES.termTooLong);
  assert.equal(sent.length, 0, 'nothing invalid was sent');
  await screenshot(page, 'whois-reverse-form-desktop');

  // A redacted record: its dataError in words.
  await lookUpOn(page, 'WHOIS', 'whois', MASKED_DOMAIN);
  assert.equal(await textOf(page.getByTestId('whois-data-error')), DATA_ERROR_TEXT.MASKED_WHOIS_DATA);
  assert.equal(sent.length, 1);
  // The same query again is not re-run; another one is.
  await lookUp(page);
  await page.waitForTimeout(300);
  assert.equal(sent.length, 1);
  await eventually(() => balance(page), '19');

  // Reverse WHOIS over current records finds nothing for an old owner; historic finds it.
  await tab(page, 'Reverse WHOIS').click();
  await page.locator('input[name="include-terms"]').fill('E2E Widgets Inc');
  await page.locator('input[name="exclude-terms"]').fill('');
  await lookUp(page);
  await eventually(() => textOf(results(page, 'reverse_whois').getByTestId('whois-empty').locator('h2')), WHOIS_MESSAGES.noResults);
  await page.getByRole('radio', { name: 'Historic' }).click();
  await lookUp(page);
  await eventually(() => texts(page, 'reverse-whois-domain'), [HISTORY_DOMAIN]);
  assert.equal(await textOf(page.getByTestId('whois-query-echo')), 'historic:e2e widgets inc:');

  // An empty scan. The empty reverse WHOIS and the empty scan cost nothing: an answer without data is free.
  await lookUpOn(page, 'Subdomain Scan', 'subdomain_scan', 'nothing-here.test');
  assert.equal(await textOf(results(page, 'subdomain_scan').getByTestId('whois-empty').locator('h2')), WHOIS_MESSAGES.noResults);
  await eventually(() => balance(page), '18');
  assert.equal(sent.length, 4);
  await page.context().close();
});

// A lookup without data costs nothing, whatever the tool, and a WHOIS record
// without data shows the domain's availability and why, never empty contact cards.
test('no data: not registered reads Available, unknown reads Undetermined, no contact cards; no credit taken, on any tab', async () => {
  await cacheNotRegistered(suite.server);
  const { page, token } = await open(3, MOBILE);
  const sent = whoisCalls(page);
  await eventually(() => balance(page), '3');
  const record = page.locator('.whois-record');

  await lookUpOn(page, 'WHOIS', 'whois', NOT_REGISTERED_DOMAIN);
  assert.equal(await textOf(page.getByTestId('whois-availability')), 'Available');
  assert.equal(await textOf(page.getByTestId('whois-data-error')), `${NO_RECORD_TEXT.AVAILABLE} ${NO_CHARGE_TEXT}`);
  assert.equal(await record.locator('.whois-contact').count(), 0, 'no contact cards');
  assert.equal(await record.getByText('Not given').count(), 0);
  assert.match(await textOf(page.getByTestId('whois-source')), /^RDAP · /);
  await screenshot(page, 'whois-not-registered-mobile');

  await lookUpOn(page, 'WHOIS', 'whois', 'nobody-knows-e2e.test');
  assert.equal(await textOf(page.getByTestId('whois-availability')), 'Undetermined');
  assert.equal(await textOf(page.getByTestId('whois-data-error')), `${NO_RECORD_TEXT.UNDETERMINED} ${NO_CHARGE_TEXT}`);
  assert.equal(await record.locator('.whois-contact').count(), 0, 'no contact cards');

  await lookUpOn(page, 'Reverse IP', 'reverse_ip', '203.0.113.250');
  const empty = results(page, 'reverse_ip').getByTestId('whois-empty');
  assert.equal(await textOf(empty.locator('h2')), WHOIS_MESSAGES.noResults);
  assert.ok((await textOf(empty)).endsWith(NO_CHARGE_TEXT), await textOf(empty));

  // Nothing was taken, as the page says and the server agrees; a lookup with data costs its credit.
  assert.equal(sent.length, 3);
  assert.equal(await balance(page), '3');
  assert.deepEqual(await call(suite.server, token, '/user/whois-credits'), { whois_credits: 3 });
  await lookUpOn(page, 'WHOIS', 'whois', HISTORY_DOMAIN);
  await eventually(() => balance(page), '2');
  assert.equal(await record.locator('.whois-contact').count(), 3);
  await page.context().close();
});

test('mobile: tabs, form and results at 390 px (screenshots)', async () => {
  const { page } = await open(5, MOBILE);
  await eventually(() => balance(page), '5');
  await screenshot(page, 'whois-mobile');
  await lookUpOn(page, 'WHOIS', 'whois', HISTORY_DOMAIN);
  await screenshot(page, 'whois-record-mobile');
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.ok(overflow <= 0, `the page scrolls sideways by ${overflow} px`);
  await page.context().close();
});

test('/documentation/api: the WHOIS API section (Search, Credits), samples in four languages for every search_type, the credits call', async () => {
  const { page } = await open(0);
  await page.goto('/documentation/api#whois-api');
  const toc = page.getByRole('navigation', { name: 'Table of contents' });
  // The contents render after the page's data: read them once the last entry is there.
  await toc.locator('a[href="#whois-credits"]').waitFor();
  const links = await toc.getByRole('link').evaluateAll((all) => all.map((a) => [a.textContent?.trim(), a.getAttribute('href')]));
  const start = links.findIndex(([title]) => title === 'WHOIS API');
  assert.deepEqual(links.slice(start), [
    ['WHOIS API', '#whois-api'],
    ['Search', '#whois-search'],
    ['Credits', '#whois-credits'],
  ]);
  for (const id of ['whois-search', 'whois-credits']) {
    await toc.locator(`a[href="#${id}"]`).click();
    await eventually(() => page.evaluate((target) => window.location.hash === `#${target}`, id), true);
  }
  assert.equal(await page.locator('#whois-api .docs-soon').count(), 0, 'no coming-soon note left');
  const types = ['whois', 'whois-history', 'reverse-whois', 'reverse-ip', 'reverse-mx', 'reverse-ns', 'subdomain-scan'];
  const endpoints = await page.locator('#whois-search .docs-endpoint').allTextContents();
  assert.deepEqual(endpoints.map((t) => t.replace(/\s+/g, ' ').trim()), types.map(() => 'POST/v2/whois/search'));
  for (const [index, type] of types.entries()) {
    const section = page.locator('#whois-search section').nth(index);
    for (const language of ['curl', 'python', 'nodejs', 'golang']) {
      await section.getByRole('tab', { name: { curl: 'cURL', python: 'Python', nodejs: 'Node.js', golang: 'Go' }[language]! }).click();
      const code = await textOf(section.getByTestId(new RegExp(`^sample-whois-.*-${language}$`)));
      assert.match(code, /YOUR_API_KEY/, `${type} ${language}`);
      assert.ok(code.includes(`${suite.server.url}/v2/whois/search`), `${type} ${language} url`);
      assert.ok(code.includes(type), `${type} ${language} names its search_type`);
    }
  }
  assert.match(await textOf(page.locator('#whois-credits .docs-endpoint')), /GET\s*\/v2\/whois\/credits/);
  const shots = process.env.E2E_SCREENSHOT_DIR;
  if (shots) await page.locator('#whois-api').screenshot({ path: path.join(shots, 'whois-api-docs.png') });
  await page.context().close();
});
