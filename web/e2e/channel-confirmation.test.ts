/**
 * Email channel confirmation on /monitoring/manage/channels: an email
 * channel at another address than the account's shows "Awaiting confirmation" and a
 * "Resend confirmation" button (reached and pressed by keyboard; a resend within a minute is
 * refused with a toast, a later one mails a new link); the state goes once the mailed link is
 * confirmed. The note in both themes (screenshots). The account's own address needs none.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { eventually, textOf, toastAfter } from './support/browser';
import { screenshot, signInTo } from './support/monitoring';
import { useServerAndBrowser } from './support/suite';

const suite = useServerAndBrowser();

test('channels: an email address awaiting confirmation, Resend confirmation, then confirmed', async () => {
  const { page, user } = await signInTo(suite.server, suite.browser, '/monitoring/manage/channels');
  const email = page.getByTestId('channel-block-email');
  const address = `confirm-${Date.now()}@example.com`;
  await email.getByRole('button', { name: 'Add Email' }).click();
  await email.locator('input[name="channel-email"]').fill(address);
  await email.getByRole('button', { name: 'Confirm' }).click();
  await eventually(() => textOf(email.getByTestId('channel-value')), address);
  assert.match(await textOf(email.getByTestId('channel-awaiting')), /^Awaiting confirmation\. No alert goes to this address until the link mailed to it is followed\.$/);
  const resend = email.getByRole('button', { name: 'Resend confirmation' });
  assert.equal(await resend.isVisible(), true);
  await screenshot(page, 'channel-awaiting-confirmation-dark');
  await page.evaluate(() => document.documentElement.setAttribute('data-theme', 'light'));
  await screenshot(page, 'channel-awaiting-confirmation-light');
  await page.evaluate(() => document.documentElement.setAttribute('data-theme', 'dark'));
  const first = await suite.server.waitForMail(address, /confirm monitoring alerts/);

  // Keyboard: the button takes focus and Enter presses it; within a minute the server refuses.
  await resend.focus();
  assert.equal(await resend.evaluate((node) => node === document.activeElement), true);
  assert.match(await toastAfter(page, () => page.keyboard.press('Enter')), /less than a minute ago/);

  // A minute later (moved back in the database): a new link.
  await suite.server.runtime.db
    .updateTable('notification_channels')
    .set({ confirm_sent_at: sql<Date>`now() - interval '2 minutes'` })
    .where('value', '=', address)
    .execute();
  assert.equal(await toastAfter(page, () => resend.click()), `Confirmation link sent to ${address}`);
  const mails = (await suite.server.outbox()).filter((mail) => mail.to === address);
  assert.equal(mails.length, 2);
  const link = mails[1]!.links.find((l) => l.includes('/monitoring/confirm-channel?t='))!;
  assert.notEqual(link, first.links.find((l) => l.includes('/monitoring/confirm-channel?t=')));

  // The link's page and its Confirm button, in the browser.
  const confirmPage = await page.context().newPage();
  await confirmPage.goto(link);
  await confirmPage.getByRole('button', { name: 'Confirm' }).click();
  await confirmPage.getByRole('heading', { name: 'Confirmed' }).waitFor();
  await confirmPage.close();
  await page.reload();
  await eventually(() => textOf(email.getByTestId('channel-value')), address);
  assert.equal(await email.getByTestId('channel-awaiting').count(), 0);
  assert.equal(await email.getByRole('button', { name: 'Resend confirmation' }).count(), 0);

  // The account's own verified address: no confirmation.
  await email.getByRole('button', { name: 'Edit Email' }).click();
  await email.locator('input[name="channel-email"]').fill(user.email);
  await email.getByRole('button', { name: 'Confirm' }).click();
  await eventually(() => textOf(email.getByTestId('channel-value')), user.email);
  assert.equal(await email.getByTestId('channel-awaiting').count(), 0);
  await page.context().close();
});
