/**
 * The monitoring tasks screen's domain verification (docs/monitoring.md
 * "Domain verification") against the real server and a DNS server of the test's own on
 * loopback (dns2, DNS_SERVERS): each domain task shows its state, the TXT record and file
 * to publish (with copy buttons) and the role-address mail; "Check Now" says its result in
 * a live region and turns the state to Verified once the TXT record is there. Both themes.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { closeBrowser, eventually, launchBrowser, textOf } from './support/browser';
import { addTaskByApi, screenshot, signInTo } from './support/monitoring';
import { startServer, stopServer, type TestServer } from './support/server';
import { startTestDnsServer, type TestDnsServer } from '../../server/test/support/dns-server';

let dnsServer: TestDnsServer;
let server: TestServer;
let browser: Browser;

before(async () => {
  dnsServer = await startTestDnsServer();
  server = await startServer({ DNS_SERVERS: `127.0.0.1:${dnsServer.port}` });
  browser = await launchBrowser();
});

after(async () => {
  await closeBrowser(browser);
  await stopServer(server);
  await dnsServer?.close();
});

test('tasks screen: a domain task shows its state and instructions; Check Now reports the result and verifies once the TXT record is there', async () => {
  const { page, token } = await signInTo(server, browser, '/monitoring/manage/tasks', { verified: true, enterprise: true });
  await addTaskByApi(server, token, 'domain', 'e2e-proof.test');
  await page.reload();
  await page.getByRole('tab', { name: /^Domain/ }).click();

  const badge = page.getByTestId('task-domain-state');
  await eventually(() => textOf(badge), 'Not verified');
  const card = page.getByTestId('domain-verification');
  await card.getByRole('heading', { name: 'e2e-proof.test' }).waitFor();
  assert.equal(await textOf(card.getByTestId('domain-state')), 'Not verified');
  const record = await textOf(card.getByTestId('domain-txt'));
  assert.match(record, /^leakwell-verification=[0-9a-f]{32}$/);
  assert.equal(await textOf(card.getByTestId('domain-file')), record.split('=')[1]);
  assert.match(await textOf(card), /https:\/\/e2e-proof\.test\/\.well-known\/leakwell-verification\.txt/);
  await card.getByRole('button', { name: 'Copy TXT record for e2e-proof.test' }).waitFor();
  await card.getByRole('button', { name: 'Copy file content for e2e-proof.test' }).waitFor();
  // The role addresses: a labelled choice.
  const select = card.getByLabel('Send a confirmation link to');
  assert.deepEqual(await select.locator('option').allTextContents(), ['security', 'admin', 'hostmaster', 'webmaster', 'postmaster'].map((l) => `${l}@e2e-proof.test`));
  await screenshot(page, 'monitoring-domain-unverified-dark');

  // Nothing published yet: the live region says so, the state stays.
  const result = card.getByRole('status');
  assert.equal(await result.getAttribute('aria-live'), 'polite');
  await card.getByRole('button', { name: 'Check Now: e2e-proof.test' }).click();
  await eventually(async () => /No TXT record or file/.test(await textOf(result)), true);
  assert.equal(await textOf(card.getByTestId('domain-state')), 'Not verified');

  // The record published: by keyboard this time.
  dnsServer.txt.set('e2e-proof.test', [record]);
  await card.getByRole('button', { name: 'Check Now: e2e-proof.test' }).focus();
  await page.keyboard.press('Enter');
  await eventually(async () => /is verified/.test(await textOf(result)), true);
  await eventually(() => textOf(card.getByTestId('domain-state')), 'Verified');
  await eventually(() => textOf(badge), 'Verified');
  assert.match(await textOf(card), /by DNS TXT record, until/);

  // The light theme draws the badges too.
  await page.locator('.topbar').getByTestId('theme-switch').click();
  const colors = await card.getByTestId('domain-state').evaluate((el) => [getComputedStyle(el).color, getComputedStyle(el).backgroundColor]);
  assert.notEqual(colors[0], colors[1]);
  await screenshot(page, 'monitoring-domain-verified-light');
  await page.context().close();
});
