/**
 * Two-factor sign-in in real Chromium: TOTP turned on from the profile and used at sign-in (a replayed
 * and a wrong code refused, a recovery code working once), and a passkey added and then used
 * alone through Chromium's virtual authenticator (DevTools protocol, WebAuthn domain).
 * WebAuthn does not run on an IP address: the pages are opened at http://localhost:PORT.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Secret, TOTP } from 'otpauth';
import type { Page } from 'playwright-core';
import { eventually, logInThroughForm, openPage, textOf, toastAfter } from './support/browser';
import { newUser } from './support/server';
import { useServerAndBrowser } from './support/suite';

const suite = useServerAndBrowser();
const base = () => suite.server.url.replace('127.0.0.1', 'localhost');

function codeFor(secret: string, offsetSteps = 0): string {
  return new TOTP({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 }).generate({ timestamp: Date.now() + offsetSteps * 30_000 });
}

async function passwordStep(page: Page, email: string, password: string): Promise<void> {
  await page.goto('/login');
  await logInThroughForm(page, email, password);
  await page.getByRole('heading', { name: 'Two-factor authentication' }).waitFor();
}

async function signOut(page: Page): Promise<void> {
  await page.context().clearCookies();
  await page.goto('/login');
  await page.getByRole('button', { name: 'Log In' }).waitFor();
}

test('TOTP: enabled from the profile, asked at sign-in; a wrong and a replayed code refused; a recovery code works once', async () => {
  const user = await newUser(suite.server);
  const page = await openPage(suite.browser, base());
  await page.goto('/login');
  await logInThroughForm(page, user.email, user.password);
  await page.waitForURL((url) => url.pathname !== '/login');
  await page.goto('/profile');
  await page.getByRole('heading', { name: 'Two-factor authentication' }).waitFor();
  await page.getByRole('button', { name: 'Enable two-factor authentication' }).click();
  await page.getByRole('img', { name: /QR code/ }).waitFor();
  const secret = await textOf(page.getByTestId('totp-secret'));
  suite.server.markSecret(secret);
  await page.getByLabel('Authentication code').fill(codeFor(secret));
  await page.getByRole('button', { name: 'Turn on' }).click();
  await page.getByTestId('recovery-codes').locator('code').first().waitFor();
  const codes = (await page.getByTestId('recovery-codes').locator('code').allTextContents()).map((c) => c.trim());
  assert.equal(codes.length, 10);
  suite.server.markSecret(...codes);
  await page.getByRole('button', { name: 'Download' }).waitFor();
  await page.getByRole('button', { name: 'Copy' }).waitFor();
  await page.getByRole('button', { name: 'Done' }).click();
  await eventually(() => textOf(page.getByTestId('two-factor-state')), 'On');

  // Sign-in: the password, then the code (the next step: the current one turned it on).
  await signOut(page);
  await passwordStep(page, user.email, user.password);
  assert.equal(await toastAfter(page, async () => {
    await page.getByLabel('Authentication code').fill(codeFor(secret, 0) === '000000' ? '111111' : '000000');
    await page.getByRole('button', { name: 'Verify' }).click();
  }), 'Invalid authentication code');
  const code = codeFor(secret, 1);
  await page.getByLabel('Authentication code').fill(code);
  await page.getByRole('button', { name: 'Verify' }).click();
  await page.waitForURL((url) => url.pathname !== '/login');

  // The same code again: refused.
  await signOut(page);
  await passwordStep(page, user.email, user.password);
  assert.equal(await toastAfter(page, async () => {
    await page.getByLabel('Authentication code').fill(code);
    await page.getByRole('button', { name: 'Verify' }).click();
  }), 'Invalid authentication code');

  // A recovery code instead: works once.
  await page.getByRole('button', { name: 'Use a recovery code' }).click();
  await page.getByLabel('Recovery code').fill(codes[0]!);
  await page.getByRole('button', { name: 'Verify' }).click();
  await page.waitForURL((url) => url.pathname !== '/login');
  await signOut(page);
  await passwordStep(page, user.email, user.password);
  await page.getByRole('button', { name: 'Use a recovery code' }).click();
  assert.equal(await toastAfter(page, async () => {
    await page.getByLabel('Recovery code').fill(codes[0]!);
    await page.getByRole('button', { name: 'Verify' }).click();
  }), 'Invalid recovery code');

  // A new API key asks for the second factor in its dialog (here a recovery code).
  await page.getByLabel('Recovery code').fill(codes[1]!);
  await page.getByRole('button', { name: 'Verify' }).click();
  await page.waitForURL((url) => url.pathname !== '/login');
  await page.goto('/documentation/api');
  await page.getByTestId('api-key-control').getByRole('button', { name: 'Generate' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByRole('button', { name: 'Generate key' }).click();
  await dialog.getByLabel('Authentication code').fill(codes[2]!);
  // Enter in the code field confirms, as the button does.
  await dialog.getByLabel('Authentication code').press('Enter');
  await page.locator('.api-key-note').waitFor();
  await page.context().close();
});

test('passkey: said to turn on two-factor before it is added, added from the profile with a virtual authenticator, then signs in alone (no email, no password)', async () => {
  const user = await newUser(suite.server);
  const page = await openPage(suite.browser, base());
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true },
  });
  await page.goto('/login');
  await logInThroughForm(page, user.email, user.password);
  await page.waitForURL((url) => url.pathname !== '/login');
  await page.goto('/profile');
  await eventually(() => textOf(page.getByTestId('two-factor-sign-in')), 'Off');
  // Before the passkey is made, the page says what it does to password sign-in.
  const note = page.getByTestId('passkey-two-factor-note');
  assert.match(await textOf(note), /Adding a passkey also turns on two-factor sign-in/);
  assert.match(await textOf(note), /on a device without it, you need one of the recovery codes we show you once, right after the passkey is made/);
  assert.equal(await page.getByRole('button', { name: 'Add a passkey' }).getAttribute('aria-describedby'), await note.getAttribute('id'));
  await page.getByLabel('Passkey name').fill('Test laptop');
  await page.getByRole('button', { name: 'Add a passkey' }).click();
  // The first second factor: recovery codes are shown once.
  await page.getByTestId('recovery-codes').waitFor();
  suite.server.markSecret(...(await page.getByTestId('recovery-codes').locator('code').allTextContents()));
  await page.getByRole('button', { name: 'Done' }).click();
  await page.getByRole('button', { name: 'Remove passkey Test laptop' }).waitFor();
  assert.match(await textOf(page.locator('.passkey-list')), /Last used never/);
  // Dates read as every other date of the dashboard: "Dec 6, 2026, 05:53 AM".
  assert.match(await textOf(page.locator('.passkey-list')), /Added [A-Z][a-z]{2} \d{1,2}, \d{4}, \d{2}:\d{2} [AP]M · Last used never/);
  // The two-factor block says it is on, why, and what a password sign-in now asks for.
  await eventually(() => textOf(page.getByTestId('two-factor-sign-in')), 'On');
  const explained = page.getByTestId('two-factor-explained');
  assert.match(await textOf(explained), /On because you added a passkey: signing in with your password also asks for your passkey, or, on a device without it, a recovery code/);
  // …and links to the FAQ answer on how to recover.
  await explained.getByRole('link', { name: 'How to recover' }).click();
  await page.waitForURL((url) => url.pathname === '/documentation/faq' && url.hash === '#twoFactor');
  assert.match(await textOf(page.locator('#twoFactor')), /Adding a passkey turns two-factor sign-in on too/);
  assert.match(await textOf(page.locator('#twoFactor')), /Use a recovery code/);

  await signOut(page);
  await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
  await page.waitForURL((url) => url.pathname !== '/login');
  await page.goto('/profile');
  await eventually(() => textOf(page.getByTestId('profile-email')), user.email);
  assert.doesNotMatch(await textOf(page.locator('.passkey-list')), /Last used never/);

  // With a passkey, the password alone no longer signs in: the second step offers the passkey.
  await signOut(page);
  await passwordStep(page, user.email, user.password);
  await page.getByRole('button', { name: 'Use a passkey' }).click();
  await page.waitForURL((url) => url.pathname !== '/login');
  await page.context().close();
});
