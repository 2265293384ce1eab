/** Every validation message of the sign-in screen, several joined by newlines. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import { fillCredentials, openPage, textOf, toastAfter } from './support/browser';
import { useServerAndBrowser } from './support/suite';

let page: Page;
/** Requests to the API paths seen by the page: validation failures must send nothing. */
const apiCalls: string[] = [];

useServerAndBrowser(async ({ server, browser }) => {
  page = await openPage(browser, server.url);
  page.on('request', (request) => {
    const { pathname } = new URL(request.url());
    if (request.method() === 'POST' && pathname !== '/authentication/refresh') apiCalls.push(pathname);
  });
});

const LONG_PASSWORD = 'Aa1' + 'x'.repeat(53); // 56 characters
const LONG_EMAIL = 'a'.repeat(250) + '@example.com'; // 262 characters

async function submitWith(email: string | null, password: string | null, button: string): Promise<string> {
  if (email !== null) await page.locator('input[name="email"]').fill(email);
  if (password !== null) await page.locator('input[name="password"]').fill(password);
  return toastAfter(page, () => page.getByRole('button', { name: button }).click());
}

test('login', async () => {
  await page.goto('/login');
  assert.equal(await submitWith('', '', 'Log In'), 'Please input an email\nPlease input a password');
  assert.equal(await submitWith('a@example.com', '', 'Log In'), 'Please input a password');
  assert.equal(await submitWith('', 'Secret-1', 'Log In'), 'Please input an email');
  assert.deepEqual(apiCalls, []);
});

test('register', async () => {
  await page.goto('/register');
  assert.equal(await submitWith('', '', 'Register'), 'Please set an email\nPlease set a password');
  assert.equal(await submitWith('not-an-email', 'Good-Pass-1', 'Register'), 'Invalid email format');
  assert.equal(await submitWith('a@b', 'Good-Pass-1', 'Register'), 'Invalid email format');
  assert.equal(await submitWith(LONG_EMAIL, 'Good-Pass-1', 'Register'), 'Invalid email format');
  assert.equal(await submitWith('a@example.com', '', 'Register'), 'Please set a password');
  assert.equal(
    await submitWith('a@example.com', LONG_PASSWORD, 'Register'),
    'Invalid password format (max length 55)',
  );
  assert.equal(
    await submitWith('bad', LONG_PASSWORD, 'Register'),
    'Invalid email format\nInvalid password format (max length 55)',
  );
  assert.equal(
    await submitWith('a@example.com', 'short', 'Register'),
    'Password must be 8 to 55 characters with at least 1 uppercase letter and 1 number',
  );
  assert.deepEqual(apiCalls, []);
});

test('forgot password', async () => {
  await page.goto('/forgot-password');
  assert.equal(await submitWith('', null, 'Submit'), 'Empty Email');
  assert.equal(await submitWith('nope@', null, 'Submit'), 'Invalid email format');
  assert.deepEqual(apiCalls, []);
});

test('reset password: messages, and nothing sent without the k key', async () => {
  await page.goto('/reset-password?k=some-key');
  assert.equal(await submitWith(null, '', 'Set New Password'), 'Please set a password');
  assert.equal(
    await submitWith(null, LONG_PASSWORD, 'Set New Password'),
    'Invalid password format (max length 55)',
  );
  await page.goto('/reset-password');
  await submitWith(null, 'Good-Pass-1', 'Set New Password');
  assert.deepEqual(apiCalls, []);
});

test('password strength levels', async () => {
  await page.goto('/register');
  const levels: [string, string][] = [
    ['', 'Enter a password'],
    ['abc', 'Very weak'],
    ['abcdefgh', 'Weak'],
    ['Abc1', 'Weak'],
    ['Abcdefg1', 'Okay'],
    ['Abcdefg1!', 'Strong'],
    [LONG_PASSWORD + '!', 'Weak'],
  ];
  for (const [password, label] of levels) {
    await page.locator('input[name="password"]').fill(password);
    assert.equal(await textOf(page.getByTestId('strength-label')), label, `strength of "${password}"`);
  }
});

test('views are chosen from the path, in the documented order', async () => {
  const cases: [string, string][] = [
    ['/post-hoc', 'Successfully Registered!'],
    ['/post-hoc-fp', 'Reset Requested'],
    ['/post-hoc-rp', 'Updated'],
    ['/forgot-password', 'Forgot Password'],
    ['/reset-password', 'New Password'],
  ];
  for (const [path, heading] of cases) {
    await page.goto(path);
    assert.equal(await textOf(page.locator('.auth-card h1')), heading, path);
  }
  // The sign-in screen shows the light theme whatever the saved one is.
  assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), 'light');
});

test('a double submit sends one request', async () => {
  await page.goto('/login');
  await fillCredentials(page, 'double@example.com', 'Some-Pass-1');
  apiCalls.length = 0;
  await page.getByRole('button', { name: 'Log In' }).evaluate((button: HTMLButtonElement) => {
    button.click();
    button.click();
    button.click();
  });
  await page.locator('.toast').first().waitFor();
  assert.deepEqual(apiCalls, ['/authentication/login']);
});
