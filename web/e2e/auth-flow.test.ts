/** The sign-in journey end to end against the real server. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { eventually, fillCredentials, logInThroughForm, openPage, textOf, toastAfter } from './support/browser';
import { mailedLink, newUser, uniqueEmail } from './support/server';
import { useServerAndBrowser } from './support/suite';

const suite = useServerAndBrowser();

test('register, verify by mail, reach a protected page through the redirect rule, reload, log out', async () => {
  const page = await openPage(suite.browser, suite.server.url);
  const email = uniqueEmail('journey');
  const password = 'Sturdy-Pass-42';

  await page.goto('/register');
  await fillCredentials(page, email, password);
  assert.match(await textOf(page.getByRole('note')), /verif/i, 'the verification note shows once an email is typed');
  assert.equal(await textOf(page.getByTestId('strength-label')), 'Strong');
  await page.getByRole('button', { name: 'Register' }).click();
  await page.waitForURL('**/post-hoc');
  await page.getByRole('heading', { name: 'Successfully Registered!', exact: true }).waitFor();

  // Not verified yet: the login answers 401.
  await page.goto('/login');
  const unverified = await toastAfter(page, () => logInThroughForm(page, email, password));
  assert.equal(unverified, 'You need to verify your email in order to login. Please check your email.');

  await page.goto(await mailedLink(suite.server, email, /verify your email/, '/verification?v='));
  await page.getByRole('heading', { name: 'Email Verified', exact: true }).waitFor();

  // An anonymous visit to a protected page goes to the login with the redirect value.
  await page.goto('/profile');
  await page.waitForURL((url) => url.pathname === '/login' && url.search === '?redirect=profile');
  await logInThroughForm(page, email, password);
  await page.waitForURL((url) => url.pathname === '/profile');
  await eventually(() => textOf(page.getByTestId('profile-email')), email);

  // The access token lives in memory only; the refresh cookie brings the session back.
  const stored = await page.evaluate(() => [localStorage.length, sessionStorage.length]);
  assert.deepEqual(stored, [0, 0]);
  await page.reload();
  await eventually(() => textOf(page.getByTestId('profile-email')), email);
  assert.equal(new URL(page.url()).pathname, '/profile');

  // A signed-in visitor of a public route is sent on; / goes to /search.
  await page.goto('/login');
  await page.waitForURL((url) => url.pathname === '/search');
  await page.goto('/');
  await page.waitForURL((url) => url.pathname === '/search');

  await page.getByRole('link', { name: 'Logout' }).click();
  await page.waitForURL((url) => url.pathname === '/login');
  await page.reload();
  await page.goto('/profile');
  await page.waitForURL((url) => url.pathname === '/login' && url.search === '?redirect=profile');
  await page.context().close();
});

test('wrong credentials answer "Login Failed"', async () => {
  const user = await newUser(suite.server);
  const page = await openPage(suite.browser, suite.server.url);
  await page.goto('/login');
  assert.equal(await toastAfter(page, () => logInThroughForm(page, user.email, 'Wrong-Pass-1')), 'Login Failed');
  await page.context().close();
});

test('redirect rules: carried query values, search keeps only q, unsafe targets fall back to /search', async () => {
  const user = await newUser(suite.server);
  const page = await openPage(suite.browser, suite.server.url);

  // p, q, ref, v and t travel to the login and back; the path's slashes become dots.
  await page.goto('/monitoring/manage/tasks?p=a&q=b&ref=c&v=d&t=e&other=x');
  await page.waitForURL(
    (url) => url.pathname === '/login' && url.search === '?redirect=monitoring.manage.tasks&p=a&q=b&ref=c&v=d&t=e',
  );

  // A purchase intent becomes an ro code on the register tab, and maps back on the login tab.
  await page.goto('/login?redirect=checkout&p=whois-credits&q=5');
  await page.getByRole('navigation', { name: 'Sign in or register' }).getByRole('link', { name: 'Register' }).click();
  await page.waitForURL((url) => url.pathname === '/register' && url.search === '?ro=2&q=5');
  await page.getByRole('navigation', { name: 'Sign in or register' }).getByRole('link', { name: 'Login' }).click();
  await page.waitForURL((url) => url.pathname === '/login' && url.search === '?redirect=checkout&p=whois-credits&q=5');

  await page.goto('/login?redirect=search&q=alice&p=x&ref=y');
  await logInThroughForm(page, user.email, user.password);
  await page.waitForURL((url) => url.pathname === '/search' && url.search === '?q=alice');

  // Signed in, a public route follows its redirect value; only plain paths are accepted.
  await page.goto('/login?redirect=..%2F%2Fevil.example');
  await page.waitForURL((url) => url.pathname === '/search' && url.search === '');
  await page.goto('/register?redirect=subscriptions.search');
  await page.waitForURL((url) => url.pathname === '/subscriptions/search');
  await page.getByRole('heading', { name: 'Choose your package', exact: true }).waitFor();
  await page.context().close();
});

test('forgot password always confirms, and the mailed link sets a new password', async () => {
  const user = await newUser(suite.server);
  const page = await openPage(suite.browser, suite.server.url);

  await page.goto('/forgot-password');
  await page.locator('input[name="email"]').fill('nobody-here@example.com');
  await page.getByRole('button', { name: 'Submit' }).click();
  await page.waitForURL('**/post-hoc-fp');
  await page.getByRole('heading', { name: 'Reset Requested', exact: true }).waitFor();

  await page.goto('/forgot-password');
  await page.locator('input[name="email"]').fill(user.email);
  await page.getByRole('button', { name: 'Submit' }).click();
  await page.waitForURL('**/post-hoc-fp');

  await page.goto(await mailedLink(suite.server, user.email, /reset your password/, '/reset-password?k='));
  await page.getByRole('heading', { name: 'New Password', exact: true }).waitFor();
  await page.locator('input[name="password"]').fill('Brand-New-Pass-7');
  await page.getByRole('button', { name: 'Set New Password' }).click();
  await page.getByRole('heading', { name: 'Password Updated.', exact: true }).waitFor();

  // The key is single use: a second try fails.
  await page.reload();
  await page.locator('input[name="password"]').fill('Another-Pass-8');
  assert.equal(
    await toastAfter(page, () => page.getByRole('button', { name: 'Set New Password' }).click()),
    'Unable to update password',
  );

  await page.goto('/login');
  await logInThroughForm(page, user.email, 'Brand-New-Pass-7');
  await page.waitForURL((url) => url.pathname === '/search');
  await page.context().close();
});

test('a 401 on a bearer call refreshes once and retries; when the refresh fails the session ends', async () => {
  const user = await newUser(suite.server);
  const page = await openPage(suite.browser, suite.server.url);
  await page.goto('/login');
  await logInThroughForm(page, user.email, user.password);
  await page.waitForURL((url) => url.pathname === '/search');

  const calls: string[] = [];
  page.on('request', (request) => calls.push(`${request.method()} ${new URL(request.url()).pathname}`));
  // The first profile load is refused as if the access token had expired.
  let refused = 0;
  await page.route('**/user/profile', (route) => {
    if (refused++ === 0) return route.fulfill({ status: 401, contentType: 'application/json', body: '{"error":"expired"}' });
    return route.continue();
  });
  await page.getByRole('link', { name: 'Profile' }).first().click();
  await eventually(() => textOf(page.getByTestId('profile-email')), user.email);
  assert.deepEqual(
    calls.filter((call) => /profile|refresh/.test(call)),
    ['GET /user/profile', 'POST /authentication/refresh', 'GET /user/profile'],
  );

  // Now a settings change is refused and so is the refresh: the session ends.
  await page.route('**/user/update-notification-setting', (route) =>
    route.fulfill({ status: 401, contentType: 'application/json', body: '{"error":"expired"}' }),
  );
  await page.route('**/authentication/refresh', (route) =>
    route.fulfill({ status: 401, contentType: 'application/json', body: '{"error":"no session"}' }),
  );
  const loggedOut = page.waitForRequest((request) => new URL(request.url()).pathname === '/authentication/logout');
  await page.getByRole('switch', { name: /Low WHOIS credits/ }).click({ force: true });
  await loggedOut;
  await page.waitForURL((url) => url.pathname === '/login' && url.search === '?redirect=profile');
  // The logout call dropped the refresh cookie: a reload stays signed out.
  await page.unrouteAll();
  await page.goto('/profile');
  await page.waitForURL((url) => url.pathname === '/login' && url.search === '?redirect=profile');
  await page.context().close();
});
