/**
 * The marketing banner in the real dashboard: on the sign-in screen and
 * in the signed-in frame, hostile markup inert (no script, handler, image or javascript:
 * link), dismissal remembered per id for a year, and screenshots (desktop and mobile).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import type { Page } from 'playwright-core';
import { DESKTOP, MOBILE, eventually, logInThroughForm, openPage } from './support/browser';
import { newUser } from './support/server';
import { useServerAndBrowser } from './support/suite';

const suite = useServerAndBrowser();

const shotDir = process.env.E2E_SCREENSHOT_DIR ?? fs.mkdtempSync(path.join(os.tmpdir(), 'lw-banner-'));
fs.mkdirSync(shotDir, { recursive: true });
after(() => {
  if (!process.env.E2E_SCREENSHOT_DIR) fs.rmSync(shotDir, { recursive: true, force: true });
});

const YEAR_MS = 365 * 86_400_000;
const HOSTILE =
  'Spring sale: <b>50% off</b> yearly plans. <a href="https://example.com/sale" onclick="window.__pwned=5">See plans</a> ' +
  '<a href="javascript:window.__pwned=3">free</a><img src=x onerror=window.__pwned=1><script>window.__pwned=2</script>' +
  '<svg onload="window.__pwned=4"><circle r="5"/></svg><iframe src="javascript:parent.__pwned=6"></iframe><span style="color:red">!</span>';

/**
 * Makes `markup` the current banner, written straight to the table: banner:set would refuse
 * hostile markup (server/test/marketing/banner.test.ts), and the dashboard must be safe regardless.
 */
async function setBanner(markup: string): Promise<string> {
  const { db } = suite.server.runtime;
  await db.updateTable('marketing_banners').set({ cleared_at: new Date() }).where('cleared_at', 'is', null).execute();
  const row = await db.insertInto('marketing_banners').values({ markup }).returning('id').executeTakeFirstOrThrow();
  return row.id;
}

const banners = (page: Page) => page.locator('.marketing-banner');
const bannerCount = (page: Page) => banners(page).count();

async function signedInPage(viewport = DESKTOP): Promise<Page> {
  const user = await newUser(suite.server);
  const page = await openPage(suite.browser, suite.server.url, viewport);
  await page.goto('/login');
  await logInThroughForm(page, user.email, user.password);
  await page.waitForURL((url) => url.pathname === '/search');
  return page;
}

/** What of the banner could run or leak: scripts, handlers, images, foreign content, non-http links. */
async function inertness(page: Page) {
  // Give an onerror or onload the time it would need.
  await page.waitForTimeout(400);
  return page.evaluate(() => {
    const banner = document.querySelector('.marketing-banner .marketing-banner-text')!;
    const all = [...banner.querySelectorAll('*')];
    return {
      pwned: (window as { __pwned?: unknown }).__pwned ?? null,
      tags: [...new Set(all.map((el) => el.tagName.toLowerCase()))].sort(),
      attributes: [...new Set(all.flatMap((el) => [...el.attributes].map((a) => `${el.tagName.toLowerCase()}[${a.name}]`)))].sort(),
      hrefs: [...banner.querySelectorAll('a[href]')].map((a) => a.getAttribute('href')),
      imgs: document.querySelectorAll('img[src="x"]').length,
      text: (banner.textContent ?? '').trim(),
    };
  });
}

const EXPECTED_INERT = {
  pwned: null,
  tags: ['a', 'b', 'span'],
  attributes: ['a[href]', 'a[rel]', 'a[target]'],
  hrefs: ['https://example.com/sale'],
  imgs: 0,
  text: 'Spring sale: 50% off yearly plans. See plans free!',
};

test('shown on the sign-in screen and in the signed-in frame; hostile markup stays inert', async () => {
  await setBanner(HOSTILE);
  const page = await openPage(suite.browser, suite.server.url);
  await page.goto('/login');
  await banners(page).waitFor();
  assert.deepEqual(await inertness(page), EXPECTED_INERT);
  assert.equal(await banners(page).locator('svg').count(), 1, 'no svg but the close icon');
  assert.equal(await banners(page).locator('a[href]').getAttribute('rel'), 'noopener noreferrer');
  assert.equal(await banners(page).locator('a[href]').getAttribute('target'), '_blank');
  await page.screenshot({ path: path.join(shotDir, 'banner-sign-in-desktop.png') });
  await page.context().close();

  const framed = await signedInPage();
  await banners(framed).waitFor();
  assert.equal(await bannerCount(framed), 1, 'one banner: the frame shows it, the page-level one steps aside');
  assert.equal(await framed.locator('.frame-main > .marketing-banner').count(), 1, 'inside the frame, above its top bar');
  assert.deepEqual(await inertness(framed), EXPECTED_INERT);
  await framed.screenshot({ path: path.join(shotDir, 'banner-frame-desktop.png') });
  // Signing out shows the page-level one again on the sign-in screen.
  await framed.goto('/logout');
  await framed.waitForURL((url) => url.pathname === '/login');
  await eventually(() => bannerCount(framed), 1);
  await framed.context().close();
});

test('the dashboard sanitises on its own: raw hostile markup from the API stays inert', async () => {
  // The server answers only allow-listed markup; here the browser gets the raw string anyway.
  const page = await openPage(suite.browser, suite.server.url);
  await page.route('**/marketing/banner', (route) =>
    route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify({ id: 'raw-hostile', data: HOSTILE }) }),
  );
  await page.goto('/login');
  await banners(page).waitFor();
  assert.deepEqual(await inertness(page), EXPECTED_INERT);
  assert.equal(await page.locator('iframe, script:not([src]):not([type="module"])').count(), 0);
  await page.context().close();
});

test('with no banner to show, the dashboard does not load the markup parser', async () => {
  await suite.server.runtime.db.updateTable('marketing_banners').set({ cleared_at: new Date() }).where('cleared_at', 'is', null).execute();
  const page = await openPage(suite.browser, suite.server.url);
  const scripts: string[] = [];
  page.on('request', (request) => {
    if (request.resourceType() === 'script') scripts.push(new URL(request.url()).pathname);
  });
  const answered = page.waitForResponse((response) => response.url().endsWith('/marketing/banner'));
  await page.goto('/login');
  await answered;
  await page.waitForTimeout(300);
  assert.equal(await bannerCount(page), 0);
  assert.ok(scripts.length > 0, 'the dashboard loaded its scripts');
  assert.deepEqual(scripts.filter((script) => script.includes('banner-markup')), [], 'the parser chunk stays unloaded');
  // Once there is one, it loads and the banner shows.
  await setBanner('Now a <b>banner</b>');
  await page.reload();
  await banners(page).waitFor();
  assert.equal(scripts.filter((script) => script.includes('banner-markup')).length, 1);
  await page.context().close();
});

test('mobile: the banner in the frame and on the sign-in screen (screenshots)', async () => {
  await setBanner('Spring sale: <b>50% off</b> yearly plans. <a href="https://example.com/sale">See plans</a>');
  const page = await signedInPage(MOBILE);
  await banners(page).waitFor();
  await page.screenshot({ path: path.join(shotDir, 'banner-frame-mobile.png') });
  await page.context().close();
  const signIn = await openPage(suite.browser, suite.server.url, MOBILE);
  await signIn.goto('/login');
  await banners(signIn).waitFor();
  await signIn.screenshot({ path: path.join(shotDir, 'banner-sign-in-mobile.png') });
  await signIn.context().close();
  process.stdout.write(`# banner screenshots in ${shotDir}\n`);
});

test('dismissing hides it for good (reload), a new banner shows again, a dismissal over a year old lapses', async () => {
  const first = await setBanner('First <b>banner</b>');
  const page = await openPage(suite.browser, suite.server.url);
  await page.goto('/login');
  await banners(page).waitFor();
  assert.equal(await banners(page).getAttribute('data-banner-id'), first);
  await page.getByRole('button', { name: 'Dismiss announcement' }).click();
  await eventually(() => bannerCount(page), 0);
  const stored = await page.evaluate(() => JSON.parse(localStorage.getItem('banner-dismissed') ?? 'null') as { id: string; at: number });
  assert.equal(stored.id, first);
  assert.ok(Math.abs(stored.at - Date.now()) < 60_000, 'stored with the time of dismissal');

  await page.reload();
  await page.locator('input[name="email"]').waitFor();
  await page.waitForResponse((response) => response.url().endsWith('/marketing/banner')).catch(() => undefined);
  await page.waitForTimeout(300);
  assert.equal(await bannerCount(page), 0, 'still dismissed after a reload');

  // Almost a year old: still dismissed. Over a year: shown again.
  const backdate = (ms: number) => page.evaluate((at) => localStorage.setItem('banner-dismissed', JSON.stringify({ ...JSON.parse(localStorage.getItem('banner-dismissed')!), at })), Date.now() - ms);
  await backdate(YEAR_MS - 86_400_000);
  await page.reload();
  await page.locator('input[name="email"]').waitFor();
  await page.waitForTimeout(500);
  assert.equal(await bannerCount(page), 0, 'dismissed 364 days ago: hidden');
  await backdate(YEAR_MS + 60_000);
  await page.reload();
  await banners(page).waitFor();
  assert.equal(await banners(page).getAttribute('data-banner-id'), first, 'a dismissal older than a year lapses');

  // Dismissed again, then the operator sets a new banner: it shows at once (new id).
  await page.getByRole('button', { name: 'Dismiss announcement' }).click();
  await eventually(() => bannerCount(page), 0);
  const second = await setBanner('Second <i>banner</i>');
  await page.reload();
  await banners(page).waitFor();
  assert.equal(await banners(page).getAttribute('data-banner-id'), second);
  assert.equal((await banners(page).locator('.marketing-banner-text').textContent())?.trim(), 'Second banner');

  // Cleared: nothing shows.
  await suite.server.runtime.db.updateTable('marketing_banners').set({ cleared_at: new Date() }).where('cleared_at', 'is', null).execute();
  await page.reload();
  await page.locator('input[name="email"]').waitFor();
  await page.waitForTimeout(500);
  assert.equal(await bannerCount(page), 0);
  await page.context().close();
});
