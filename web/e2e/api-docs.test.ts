/**
 * /documentation/api: the key control, the checklist, and samples that really run:
 * the Node.js and cURL samples are copied from the page and run against the server.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import type { Page } from 'playwright-core';
import { eventually, logInThroughForm, openPage, textOf, toastAfter } from './support/browser';
import { uniqueEmail, type UserOptions } from './support/server';
import { useServerAndBrowser } from './support/suite';

const run = promisify(execFile);
const suite = useServerAndBrowser(({ server }) =>
  server.ingest('Api Docs Well', [
    // The samples search email:"name@example.com" and the SHA-256 of "password123".
    {
      email: 'name@example.com',
      username: 'sample_user',
      hashed_password: createHash('sha256').update('password123').digest('hex'),
    },
  ]),
);

async function signIn(options: UserOptions): Promise<Page> {
  const user = await suite.server.createUser({ email: uniqueEmail('docs'), verified: true, ...options });
  const page = await openPage(suite.browser, suite.server.url);
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: suite.server.url });
  await page.goto('/documentation/api');
  await page.waitForURL((url) => url.pathname === '/login');
  await logInThroughForm(page, user.email, user.password);
  await page.waitForURL((url) => url.pathname === '/documentation/api');
  return page;
}

const score = (page: Page) => textOf(page.getByTestId('checklist-score'));

async function generateKey(page: Page, button: 'Generate' | 'Regenerate'): Promise<string> {
  const control = page.getByTestId('api-key-control');
  await control.getByRole('button', { name: button }).click();
  const dialog = page.getByRole('dialog', { name: 'Are you sure?' });
  const answered = page.waitForResponse((response) => response.url().endsWith('/user/update-key'));
  await dialog.getByRole('button', { name: /key$/ }).click();
  assert.equal((await answered).status(), 200);
  await eventually(async () => /^[0-9a-f]{48}$/.test(await textOf(control.getByTestId('api-key-value'))), true);
  return textOf(control.getByTestId('api-key-value'));
}

/** The sample of one tab, as the Copy button puts it on the clipboard. */
async function copySample(page: Page, name: 'search' | 'password', language: 'Node.js' | 'cURL'): Promise<string> {
  const samples = page.getByTestId(`samples-${name}`);
  await samples.getByRole('tab', { name: language }).click();
  assert.equal(await toastAfter(page, () => samples.getByRole('button', { name: 'Copy code' }).click()), 'Copied Code');
  return page.evaluate(() => navigator.clipboard.readText());
}

test('page outline: contents, update note', async () => {
  const page = await signIn({});
  const toc = page.getByRole('navigation', { name: 'Table of contents' });
  const entries = (await toc.getByRole('link').allTextContents()).map((text) => text.trim());
  assert.deepEqual(entries, [
    'Introduction',
    'Authentication',
    'Rate Limiting',
    'Common Error Responses',
    'Search API',
    'Checklist',
    'Deduplication',
    'General Search',
    'Password Search',
    'Monitoring API',
    'Tasks',
    'Reports',
    'Notification Channels',
    'Domains',
    'Webhooks',
    'WHOIS API',
    'Search',
    'Credits',
  ]);
  await page.getByText('Updated April 23, 2025').waitFor();
  // The header name comes from the brand, without spaces.
  const brand = (await page.locator('meta[name="app-brand"]').getAttribute('content')) ?? '';
  await page.getByText(`${brand.replace(/\s+/g, '')}-Api-Key: YOUR_API_KEY`).waitFor();
  await page.context().close();
});

test('checklist 0/3 for a new account: invalid key message and links to buy', async () => {
  const page = await signIn({});
  await eventually(() => score(page), '0/3');
  assert.equal(await textOf(page.getByTestId('api-key-invalid')), 'API V2 Key is NOT VALID, please generate a new key below');
  const checklist = page.getByTestId('api-checklist');
  assert.equal(await checklist.getByRole('link', { name: 'Get a search subscription' }).getAttribute('href'), '/subscriptions/search');
  assert.equal(await checklist.getByRole('link', { name: 'Buy search credits' }).getAttribute('href'), '/subscriptions/search-credits');
  // Without a key the samples carry the placeholder.
  assert.match(await textOf(page.getByTestId('samples-search').locator('code')), /YOUR_API_KEY/);
  await page.context().close();
});

test('generate a key: shown once, copied, checklist 3/3, and the Node.js and cURL samples run', async () => {
  const page = await signIn({ searchDays: 30, searchCredits: 10 });
  await eventually(() => score(page), '2/3');
  const key = await generateKey(page, 'Generate');
  suite.server.markSecret(key);
  await eventually(() => score(page), '3/3');
  assert.equal(await page.getByTestId('api-key-invalid').count(), 0);
  assert.equal(await toastAfter(page, () => page.getByTestId('api-key-control').getByRole('button', { name: 'Copy' }).click()), 'Copied API Key');
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), key);

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'api-samples-'));
  try {
    // Node.js, general search.
    const nodeSearch = await copySample(page, 'search', 'Node.js');
    assert.ok(nodeSearch.includes(key) && nodeSearch.includes(suite.server.url));
    fs.writeFileSync(path.join(dir, 'search.mjs'), nodeSearch);
    const { stdout: nodeOut } = await run(process.execPath, [path.join(dir, 'search.mjs')], { timeout: 20_000 });
    const nodeAnswer = JSON.parse(nodeOut) as { balance: number; entries: { email?: string[] }[]; took: string; total: number };
    assert.equal(nodeAnswer.total, 1);
    assert.deepEqual(nodeAnswer.entries[0]?.email, ['name@example.com']);
    assert.equal(typeof nodeAnswer.balance, 'number');
    assert.equal(typeof nodeAnswer.took, 'string');

    // cURL, general search (the balance went down by one).
    const curlSearch = await copySample(page, 'search', 'cURL');
    const { stdout: curlOut } = await run('bash', ['-c', curlSearch], { timeout: 20_000 });
    const curlAnswer = JSON.parse(curlOut) as typeof nodeAnswer;
    assert.equal(curlAnswer.total, 1);
    assert.equal(curlAnswer.balance, nodeAnswer.balance - 1);

    // Password search, both ways.
    const nodePassword = await copySample(page, 'password', 'Node.js');
    fs.writeFileSync(path.join(dir, 'password.mjs'), nodePassword);
    const { stdout: nodePasswordOut } = await run(process.execPath, [path.join(dir, 'password.mjs')], { timeout: 20_000 });
    assert.equal((JSON.parse(nodePasswordOut) as { results_found: number }).results_found, 1);
    const curlPassword = await copySample(page, 'password', 'cURL');
    const { stdout: curlPasswordOut } = await run('bash', ['-c', curlPassword], { timeout: 20_000 });
    assert.equal((JSON.parse(curlPasswordOut) as { results_found: number }).results_found, 1);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }

  // Python and Go samples carry the key as well.
  const samples = page.getByTestId('samples-search');
  for (const language of ['Python', 'Go']) {
    await samples.getByRole('tab', { name: language }).click();
    assert.ok((await textOf(samples.locator('code'))).includes(key));
  }
  await page.context().close();
});

test('regenerate: the masked key before, a new full key after; the old one stops working', async () => {
  const user = await suite.server.createUser({ email: uniqueEmail('docs'), verified: true, searchDays: 30, searchCredits: 10, apiKey: true });
  const page = await openPage(suite.browser, suite.server.url);
  await page.goto('/documentation/api');
  await page.waitForURL((url) => url.pathname === '/login');
  await logInThroughForm(page, user.email, user.password);
  await page.waitForURL((url) => url.pathname === '/documentation/api');
  const value = page.getByTestId('api-key-control').getByTestId('api-key-value');
  await eventually(() => textOf(value), `••••${user.apiKey!.slice(-4)}`);
  await eventually(() => score(page), '3/3');

  const fresh = await generateKey(page, 'Regenerate');
  suite.server.markSecret(fresh);
  assert.notEqual(fresh, user.apiKey);
  const brand = (await page.locator('meta[name="app-brand"]').getAttribute('content')) ?? '';
  const header = `${brand.replace(/\s+/g, '')}-Api-Key`;
  const call = (key: string) =>
    fetch(`${suite.server.url}/v2/search`, {
      method: 'POST',
      headers: { [header]: key, 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'email:"name@example.com"' }),
    });
  assert.equal((await call(user.apiKey!)).status, 400);
  assert.equal((await call(fresh)).status, 200);
  await page.context().close();
});
