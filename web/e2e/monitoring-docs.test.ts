/**
 * The monitoring API pages in real Chromium against the real server:
 * /monitoring/api (key, both base URLs, links to both docs), /monitoring/documentation (V1)
 * and /monitoring/documentation-v2 linking each other, the Monitoring section of
 * /documentation/api (contents, anchors, samples with the user's key, one of them run as
 * copied), and the 404 page's /documentation/api-v1 link reaching the V1 docs, signed in
 * or not. Screenshots at desktop and mobile width go to E2E_SCREENSHOT_DIR when it is set,
 * else to a temporary directory.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { promisify } from 'node:util';
import type { Page } from 'playwright-core';
import { DESKTOP, eventually, logInThroughForm, MOBILE, openPage, textOf, toastAfter } from './support/browser';
import { uniqueEmail, type UserOptions } from './support/server';
import { useServerAndBrowser } from './support/suite';

const run = promisify(execFile);
const suite = useServerAndBrowser();

const shotDir = process.env.E2E_SCREENSHOT_DIR ?? fs.mkdtempSync(path.join(os.tmpdir(), 'lw-monitoring-docs-shots-'));
fs.mkdirSync(shotDir, { recursive: true });
after(() => {
  if (!process.env.E2E_SCREENSHOT_DIR) fs.rmSync(shotDir, { recursive: true, force: true });
});

async function signIn(target: string, options: UserOptions = { verified: true }, viewport = DESKTOP): Promise<Page> {
  const user = await suite.server.createUser({ email: uniqueEmail('mondocs'), ...options });
  const page = await openPage(suite.browser, suite.server.url, viewport);
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: suite.server.url });
  await page.goto(target);
  await page.waitForURL((url) => url.pathname === '/login');
  await logInThroughForm(page, user.email, user.password);
  await page.waitForURL((url) => url.pathname === target.split('#')[0]);
  return page;
}

const breadcrumb = (page: Page) => textOf(page.getByRole('navigation', { name: 'Breadcrumb' }));
const tocLinks = (page: Page): Promise<[string, string][]> =>
  page
    .getByRole('navigation', { name: 'Table of contents' })
    .getByRole('link')
    .evaluateAll((links) => links.map((link): [string, string] => [link.textContent?.trim() ?? '', link.getAttribute('href') ?? '']));

/** Every contents link moves the hash to its section and brings the section into view. */
async function checkAnchors(page: Page, hrefs: string[]): Promise<void> {
  const toc = page.getByRole('navigation', { name: 'Table of contents' });
  for (const href of [...hrefs].reverse()) {
    const id = href.slice(1);
    assert.equal(await page.locator(`section[id="${id}"]`).count(), 1, `section ${id}`);
    await toc.locator(`a[href="${href}"]`).click();
    await eventually(() => page.evaluate(() => window.location.hash), href);
    await eventually(
      () =>
        page.evaluate((anchor) => {
          const top = document.getElementById(anchor)?.getBoundingClientRect().top ?? -1;
          return top >= 0 && top < window.innerHeight - 60;
        }, id),
      true,
    );
  }
}

async function generateKey(page: Page): Promise<string> {
  const control = page.getByTestId('api-key-control');
  await control.getByRole('button', { name: /^(Generate|Regenerate)$/ }).click();
  const dialog = page.getByRole('dialog', { name: 'Are you sure?' });
  const answered = page.waitForResponse((response) => response.url().endsWith('/user/update-key'));
  await dialog.getByRole('button', { name: /key$/ }).click();
  assert.equal((await answered).status(), 200);
  await eventually(async () => /^[0-9a-f]{48}$/.test(await textOf(control.getByTestId('api-key-value'))), true);
  const key = await textOf(control.getByTestId('api-key-value'));
  suite.server.markSecret(key);
  return key;
}

const sample = (page: Page, name: string, language: string) => textOf(page.getByTestId(`sample-${name}-${language}`));

async function showTab(page: Page, name: string, label: string): Promise<void> {
  await page.getByTestId(`samples-${name}`).getByRole('tab', { name: label }).click();
}

test('/monitoring/api: breadcrumb, key control, both base URLs, links to both documentation pages', async () => {
  const page = await signIn('/monitoring/api');
  await page.getByRole('heading', { level: 1, name: 'Monitoring API' }).waitFor();
  assert.equal(await breadcrumb(page), 'Monitoring / API');
  await page.getByTestId('api-key-control').waitFor();
  assert.equal(await textOf(page.getByTestId('base-url-v2')), `${suite.server.url}/v2/monitoring`);
  assert.equal(await textOf(page.getByTestId('base-url-v1')), `${suite.server.url}/monitor-api/v1`);
  // The sidebar keeps Monitoring highlighted.
  const sidebar = page.getByRole('complementary', { name: 'Main navigation' });
  assert.deepEqual(await sidebar.locator('.nav-link.active').allTextContents(), ['Monitoring']);

  await page.getByRole('link', { name: 'V2 Documentation' }).click();
  await page.waitForURL((url) => url.pathname === '/monitoring/documentation-v2');
  await page.getByRole('heading', { level: 1, name: 'Monitoring API V2' }).waitFor();
  await page.goBack();
  await page.getByRole('link', { name: 'V1 Documentation' }).click();
  await page.waitForURL((url) => url.pathname === '/monitoring/documentation');
  await page.getByRole('heading', { level: 1, name: 'Monitor API V1' }).waitFor();
  await page.context().close();
});

test('V1 documentation: outline, limits, errors and rules, anchors, the key in bearer samples, links to V2 and back', async () => {
  const page = await signIn('/monitoring/documentation');
  await page.getByRole('heading', { level: 1, name: 'Monitor API V1' }).waitFor();
  assert.equal(await breadcrumb(page), 'Monitoring / Documentation');
  const links = await tocLinks(page);
  assert.deepEqual(
    links.map(([title]) => title),
    ['Introduction', 'Limits', 'Errors', 'Rules', 'Calls', 'Create', 'Update', 'Delete', 'Get User Info', 'Get Breaches', 'Get Breach Entries', 'Webhooks'],
  );
  await checkAnchors(page, links.map(([, href]) => href));
  const limits = await textOf(page.locator('#limits'));
  assert.match(limits, /5 requests a second, with bursts of up to 50/);
  assert.match(limits, /for 3 minutes/);
  const errors = await textOf(page.locator('#errors'));
  for (const text of ['302', '401', 'Invalid API credentials.', '404', '429', 'Too Many Requests.']) assert.ok(errors.includes(text), text);
  const rules = await textOf(page.locator('#rules'));
  assert.match(rules, /letters and spaces only, 10 to 48 characters/);
  assert.match(rules, /lower-case/);
  assert.match(rules, /Enterprise/);
  assert.match(await textOf(page.locator('#webhooks')), /"breach_id": "58211"/);
  for (const call of ['create', 'update', 'delete', 'get-user-info', 'get-breaches', 'get-breach-entries']) {
    assert.match(await textOf(page.locator(`#v1-${call} .docs-endpoint`)), new RegExp(`^POST\\s*/monitor-api/v1/${call}$`));
  }

  assert.match(await sample(page, 'v1-create', 'python'), /"Authorization": "Bearer YOUR_API_KEY"/);
  const key = await generateKey(page);
  assert.ok((await sample(page, 'v1-create', 'python')).includes(`"Authorization": "Bearer ${key}"`));
  await showTab(page, 'v1-get-breaches', 'cURL');
  const curl = await sample(page, 'v1-get-breaches', 'curl');
  assert.ok(curl.includes(`'Authorization: Bearer ${key}'`) && curl.includes(`${suite.server.url}/monitor-api/v1/get-breaches`), curl);

  // V1 → V2 and back.
  await page.getByTestId('v2-link').getByRole('link', { name: 'Monitoring API V2' }).click();
  await page.waitForURL((url) => url.pathname === '/monitoring/documentation-v2');
  assert.equal(await breadcrumb(page), 'Monitoring / Documentation V2');
  await page.getByRole('link', { name: 'Monitor API V1 documentation' }).click();
  await page.waitForURL((url) => url.pathname === '/monitoring/documentation');
  await page.getByRole('heading', { level: 1, name: 'Monitor API V1' }).waitFor();
  // The V1 page's webhook link lands on the V2 page's Webhooks section.
  await page.getByRole('link', { name: 'Webhooks in the V2 documentation' }).click();
  await page.waitForURL((url) => url.pathname === '/monitoring/documentation-v2' && url.hash === '#monitoring-webhooks');
  await eventually(
    () => page.evaluate(() => {
      const top = document.getElementById('monitoring-webhooks')?.getBoundingClientRect().top ?? -1;
      return top >= 0 && top < window.innerHeight;
    }),
    true,
  );
  await page.context().close();
});

test('V2 documentation: every call and the webhooks section, anchors, samples in four languages', async () => {
  const page = await signIn('/monitoring/documentation-v2');
  await page.getByRole('heading', { level: 1, name: 'Monitoring API V2' }).waitFor();
  const links = await tocLinks(page);
  assert.deepEqual(links.map(([title]) => title), ['Introduction', 'Tasks', 'Reports', 'Notification Channels', 'Domains', 'Webhooks']);
  await checkAnchors(page, links.map(([, href]) => href));
  const calls = await page.locator('.docs-endpoint').evaluateAll((nodes) => nodes.map((node) => node.textContent?.replace(/\s+/g, ' ').trim()));
  assert.deepEqual(calls, [
    'POST/v2/monitoring/create-task',
    'POST/v2/monitoring/get-tasks',
    'POST/v2/monitoring/get-task',
    'POST/v2/monitoring/update-task',
    'POST/v2/monitoring/delete-task',
    'POST/v2/monitoring/get-reports',
    'POST/v2/monitoring/get-report',
    'GET/v2/monitoring/get-channels',
    'POST/v2/monitoring/update-channel',
    'POST/v2/monitoring/delete-channel',
    'GET/v2/monitoring/get-domains',
    'POST/v2/monitoring/update-domain',
    'POST/v2/monitoring/clear-domain',
  ]);
  const webhooks = page.locator('#monitoring-webhooks');
  const text = await textOf(webhooks);
  for (const part of ['"id": "58211"', 'webhook-id', 'webhook-timestamp', 'webhook-signature', 'whsec_', '5 minutes', '410 Gone', '24 hours']) {
    assert.ok(text.includes(part), part);
  }
  for (const [label, id, marker] of [
    ['Python', 'python', 'hmac.compare_digest'],
    ['Go', 'golang', 'hmac.Equal'],
    ['Node.js', 'nodejs', 'timingSafeEqual'],
    ['cURL', 'curl', 'openssl dgst -sha256 -mac HMAC'],
  ]) {
    await showTab(page, 'webhook', label!);
    assert.ok((await sample(page, 'webhook', id!)).includes(marker!), label);
  }
  await page.context().close();
});

test('/documentation/api: the Monitoring API contents, the key in every language, a copied sample runs', async () => {
  const page = await signIn('/documentation/api');
  const links = await tocLinks(page);
  const start = links.findIndex(([title]) => title === 'Monitoring API');
  assert.deepEqual(links.slice(start, start + 6), [
    ['Monitoring API', '#monitoring-api'],
    ['Tasks', '#monitoring-tasks'],
    ['Reports', '#monitoring-reports'],
    ['Notification Channels', '#monitoring-channels'],
    ['Domains', '#monitoring-domains'],
    ['Webhooks', '#monitoring-webhooks'],
  ]);
  await checkAnchors(page, links.slice(start, start + 6).map(([, href]) => href));
  // A link straight to the section lands on it.
  await page.goto('/documentation/api#monitoring-webhooks');
  await eventually(
    () =>
      page.evaluate(() => {
        const top = document.getElementById('monitoring-webhooks')?.getBoundingClientRect().top ?? -1;
        return top >= 0 && top < window.innerHeight;
      }),
    true,
  );
  assert.equal(await page.locator('#monitoring-api .docs-soon').count(), 0, 'no coming-soon note left');

  assert.match(await sample(page, 'v2-create-task', 'python'), /YOUR_API_KEY/);
  const key = await generateKey(page);
  const brand = (await page.locator('meta[name="app-brand"]').getAttribute('content')) ?? '';
  const header = `${brand.replace(/\s+/g, '')}-Api-Key`;
  for (const [label, id] of [
    ['Python', 'python'],
    ['Go', 'golang'],
    ['Node.js', 'nodejs'],
    ['cURL', 'curl'],
  ] as const) {
    await showTab(page, 'v2-create-task', label);
    const code = await sample(page, 'v2-create-task', id);
    assert.ok(code.includes(key) && code.includes(header), `${label} carries the key and header`);
    assert.ok(code.includes(`${suite.server.url}/v2/monitoring/create-task`), `${label} calls this server`);
  }

  // The Node.js create-task sample, as the Copy button gives it, creates the task.
  await showTab(page, 'v2-create-task', 'Node.js');
  const samples = page.getByTestId('samples-v2-create-task');
  assert.equal(await toastAfter(page, () => samples.getByRole('button', { name: 'Copy code' }).click()), 'Copied Code');
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lw-monitoring-copied-'));
  try {
    fs.writeFileSync(path.join(dir, 'create-task.mjs'), copied);
    const { stdout } = await run(process.execPath, [path.join(dir, 'create-task.mjs')], { timeout: 20_000 });
    const answer = JSON.parse(stdout) as { success: boolean; id: string };
    assert.equal(answer.success, true);
    const listed = await fetch(`${suite.server.url}/v2/monitoring/get-tasks`, {
      method: 'POST',
      headers: { [header]: key, 'content-type': 'application/json' },
      body: '{}',
    });
    const body = (await listed.json()) as { tasks: { id: string; value: string }[] };
    assert.deepEqual(body.tasks.map((t) => [t.id, t.value]), [[answer.id, 'name@example.com']]);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  await page.context().close();
});

test('the 404 page\'s API link reaches the V1 documentation: anonymous through sign-in, signed in at once', async () => {
  const user = await suite.server.createUser({ email: uniqueEmail('mondocs404'), verified: true });
  const page = await openPage(suite.browser, suite.server.url);
  await page.goto('/no/such/page');
  await page.getByRole('heading', { name: 'Page not found', exact: true }).waitFor();
  await page.locator('.tile[href="/documentation/api-v1"]').click();
  await page.waitForURL((url) => url.pathname === '/login');
  await logInThroughForm(page, user.email, user.password);
  await page.waitForURL((url) => url.pathname === '/monitoring/documentation');
  await page.getByRole('heading', { level: 1, name: 'Monitor API V1' }).waitFor();

  // Signed in, under the frame: the same link, straight there.
  await page.goto('/monitoring/no-such-page');
  await page.getByRole('heading', { name: 'Page not found', exact: true }).waitFor();
  await page.locator('.tile[href="/documentation/api-v1"]').click();
  await page.waitForURL((url) => url.pathname === '/monitoring/documentation');
  await page.getByRole('heading', { level: 1, name: 'Monitor API V1' }).waitFor();
  // An anchor survives the redirect; Back does not return to the redirecting address.
  await page.goto('/documentation/api-v1#rules');
  await page.waitForURL((url) => url.pathname === '/monitoring/documentation' && url.hash === '#rules');
  await page.context().close();
});

test('screenshots of the four pages at desktop and mobile width, without console errors', async () => {
  for (const [name, viewport] of [['desktop', DESKTOP], ['mobile', MOBILE]] as const) {
    for (const target of ['/monitoring/api', '/monitoring/documentation', '/monitoring/documentation-v2', '/documentation/api#monitoring-api']) {
      const page = await signIn(target, { verified: true }, viewport);
      const errors: string[] = [];
      page.on('console', (message) => {
        if (message.type() === 'error') errors.push(message.text());
      });
      await page.getByRole('heading', { level: 1 }).waitFor();
      await page.waitForTimeout(300);
      const file = target.replace(/^\//, '').replace(/[/#]/g, '-');
      await page.screenshot({ path: path.join(shotDir, `${file}-${name}.png`) });
      if (target.includes('documentation')) {
        // Close-ups: one call with its samples, the errors (V1) and the webhook signatures (V2).
        const v1 = target === '/monitoring/documentation';
        for (const section of v1 ? ['#v1-create', '#errors'] : ['#v2-create-task', '#webhook-signatures', '#webhook-retries']) {
          await page.locator(section).evaluate((element) => element.scrollIntoView());
          await page.screenshot({ path: path.join(shotDir, `${file}-${section.slice(1)}-${name}.png`) });
        }
      }
      // Nothing wider than the screen.
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(overflow <= 0, `${target} at ${name} overflows by ${overflow}px`);
      assert.deepEqual(errors, [], `${target} at ${name}`);
      await page.context().close();
    }
  }
});
