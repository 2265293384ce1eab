/**
 * Phone widths: every screen at 320, 360 and 390 px, in the dark and the
 * light theme, signed out and signed in with data in its tables and cards (search results,
 * an answer of every WHOIS tool, monitoring tasks and a report, notifications, a paid plan
 * with its domain and invoice), never scrolls sideways: the document is no wider than the
 * window (`document.documentElement.scrollWidth <= window.innerWidth`). A table wider than
 * its box scrolls inside a region the keyboard can reach, with a name and a visible cue
 * (shadows at the edges that have more); a domain name in a table stays on one line.
 *
 * Lean on time: one signed-in page per theme; each screen is loaded once, at 320 px, and
 * measured again after widening the window to 360 and 390.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import { payWithSandbox } from '../../server/test/support/harness';
import { addNotice, call, waitForReports } from './support/monitoring';
import { fullUser, h1, openScreen, SCREEN_QUERY, seedScreens, signedInPage, SIGNED_IN, SIGNED_OUT, themedContext, THEMES, type Theme } from './support/screens';
import { useServerAndBrowser } from './support/suite';
import { HISTORY_DOMAIN, MAIL_HOST, NAME_SERVER, RETAIL_TERM, seedWhoisStore, SHARED_IP } from './support/whois';

const suite = useServerAndBrowser(async ({ server }) => {
  await seedScreens(server);
  await seedWhoisStore(server);
});

/** The phone widths measured, narrowest first (the page is loaded at the first). */
const WIDTHS = [320, 360, 390] as const;
const HEIGHT = 740;
const narrowest = { width: WIDTHS[0], height: HEIGHT };

/** What the page measures at one width. */
interface Layout {
  documentWidth: number;
  windowWidth: number;
  /** The outermost elements reaching past the window's right edge. */
  sticksOut: string[];
  /** Boxes holding a table that scroll sideways without being a named keyboard stop with a cue. */
  hiddenScrollers: string[];
}

/**
 * Runs in the page. No helper functions inside: the test runner names every function it
 * compiles (esbuild keepNames), and the page has no such helper.
 */
function readLayout(): Layout {
  const windowWidth = window.innerWidth;
  const sticksOut: string[] = [];
  const hiddenScrollers: string[] = [];
  for (const element of document.body.querySelectorAll('*')) {
    const style = getComputedStyle(element);
    const testId = element.getAttribute('data-testid');
    const name =
      element.tagName.toLowerCase() +
      [...element.classList].slice(0, 2).map((c) => `.${c}`).join('') +
      (testId ? `[data-testid=${testId}]` : '');
    const scrolls = (style.overflowX === 'auto' || style.overflowX === 'scroll') && element.scrollWidth > element.clientWidth + 1;
    if (scrolls && (element.matches('table') || element.querySelector('table'))) {
      const cue = getComputedStyle(element.parentElement ?? element, '::after');
      const moreRight = element.scrollLeft + element.clientWidth < element.scrollWidth - 1;
      const missing = [
        element.getAttribute('role') === 'region' ? '' : 'role=region',
        (element as HTMLElement).tabIndex >= 0 ? '' : 'tabindex=0',
        element.getAttribute('aria-label') || element.getAttribute('aria-labelledby') ? '' : 'a name',
        // The cue: a shadow over the edge with more behind it, drawn by the box's frame.
        !moreRight || (cue.backgroundImage.includes('gradient') && cue.opacity === '1') ? '' : 'a shadow over its right edge',
      ].filter((text) => text !== '');
      if (missing.length > 0) hiddenScrollers.push(`${name} scrolls sideways (${element.scrollWidth} px in ${element.clientWidth}) without ${missing.join(', ')}`);
    }
    const box = element.getBoundingClientRect();
    if (box.width === 0 || box.right <= windowWidth + 0.5) continue;
    // The culprit is the outermost element past the edge that no box scrolls or clips.
    let parent = element.parentElement;
    let contained = false;
    while (parent && parent !== document.body && !contained) {
      contained = getComputedStyle(parent).overflowX !== 'visible' || parent.getBoundingClientRect().right > windowWidth + 0.5;
      parent = parent.parentElement;
    }
    if (!contained) sticksOut.push(`${name} (right edge at ${Math.round(box.right)} px)`);
  }
  return { documentWidth: document.documentElement.scrollWidth, windowWidth, sticksOut: sticksOut.slice(0, 4), hiddenScrollers };
}

/** Two frames: the layout of the new width is done. */
const settled = (page: Page) => page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));

/** Lines saying what is wrong with the view at the current width; none when it fits. */
async function measure(page: Page, view: string, width: number, theme: Theme): Promise<string[]> {
  await settled(page);
  let layout = await page.evaluate(readLayout);
  if (layout.documentWidth > layout.windowWidth || layout.hiddenScrollers.length > 0) {
    // Once more after a moment: a screen may still be setting up (a cue is set after its box is measured).
    await page.waitForTimeout(250);
    layout = await page.evaluate(readLayout);
  }
  const where = `${view} at ${width} px, ${theme} theme`;
  const problems: string[] = [];
  if (layout.documentWidth > layout.windowWidth) {
    problems.push(`${where}: the document is ${layout.documentWidth} px wide in a ${layout.windowWidth} px window (${layout.sticksOut.join('; ') || 'no single element'})`);
  }
  for (const line of layout.hiddenScrollers) problems.push(`${where}: ${line}`);
  return problems;
}

/** Measures the view as it is at every width, then goes back to the narrowest. */
async function atEveryWidth(page: Page, view: string, theme: Theme, extra?: (width: number) => Promise<string[]>): Promise<string[]> {
  const problems: string[] = [];
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: HEIGHT });
    problems.push(...(await measure(page, view, width, theme)));
    if (extra) problems.push(...(await extra(width)));
  }
  await page.setViewportSize({ width: WIDTHS[0], height: HEIGHT });
  return problems;
}

/** Domain names of a lookup table that break over two lines ("example." / "com"). */
async function brokenNames(page: Page, view: string, width: number, theme: Theme): Promise<string[]> {
  const broken = await page.locator('[data-testid="lookup-row"] td:first-child').evaluateAll((cells) =>
    cells
      .filter((cell) => {
        const range = document.createRange();
        range.selectNodeContents(cell);
        return new Set([...range.getClientRects()].map((rect) => Math.round(rect.top))).size > 1;
      })
      .map((cell) => cell.textContent ?? ''),
  );
  return broken.length === 0 ? [] : [`${view} at ${width} px, ${theme} theme: names broken over lines: ${broken.slice(0, 3).join(', ')}`];
}

/** Each WHOIS tool answers, and each answer is measured on its tab. */
async function whoisViews(page: Page, theme: Theme): Promise<string[]> {
  const problems: string[] = [];
  await page.goto('/whois');
  await h1(page, 'WHOIS').waitFor();
  const lookups: [tab: string, tool: string, value: string][] = [
    ['WHOIS', 'whois', 'nobody-knows-phone.test'],
    ['WHOIS', 'whois', HISTORY_DOMAIN],
    ['WHOIS History', 'whois_history', HISTORY_DOMAIN],
    ['Reverse IP', 'reverse_ip', SHARED_IP],
    ['Reverse MX', 'reverse_mx', MAIL_HOST],
    ['Reverse NS', 'reverse_ns', NAME_SERVER],
    ['Subdomain Scan', 'subdomain_scan', HISTORY_DOMAIN],
  ];
  for (const [tab, tool, value] of lookups) {
    await page.getByRole('tab', { name: tab, exact: true }).click();
    await page.locator('input[name="whois-query"]').fill(value);
    await page.getByRole('button', { name: 'Look Up' }).click();
    await page.getByTestId(`whois-results-${tool}`).getByTestId('whois-query-echo').filter({ hasText: value }).waitFor();
    const view = `whois ${tab} ${value}`;
    const names = tool.startsWith('reverse') || tool === 'subdomain_scan';
    problems.push(...(await atEveryWidth(page, view, theme, names ? (width) => brokenNames(page, view, width, theme) : undefined)));
  }
  await page.getByRole('tab', { name: 'Reverse WHOIS', exact: true }).click();
  await page.locator('input[name="include-terms"]').fill(RETAIL_TERM);
  await page.getByRole('button', { name: 'Look Up' }).click();
  await page.getByTestId('reverse-whois-list').waitFor();
  problems.push(...(await atEveryWidth(page, 'whois Reverse WHOIS', theme)));
  return problems;
}

/** Views a click opens, and screens that need a record of the account. */
async function stateViews(page: Page, theme: Theme, reportId: string): Promise<string[]> {
  const problems: string[] = [];
  const check = (view: string) => atEveryWidth(page, view, theme).then((lines) => problems.push(...lines));

  await page.getByRole('button', { name: 'Open menu' }).click();
  await page.getByRole('button', { name: 'Close menu' }).waitFor();
  await check('navigation menu');
  await page.getByRole('button', { name: 'Close menu' }).click();

  await page.goto(`/search?q=${encodeURIComponent(SCREEN_QUERY)}`);
  await page.getByTestId('results-list').locator('li').first().waitFor();
  await page.getByRole('button', { name: /^Export/ }).first().click();
  await page.getByRole('dialog').waitFor();
  await check('search export dialog');
  await page.keyboard.press('Escape');

  await page.goto(`/monitoring/reports/${reportId}`);
  await page.getByTestId('report-view').waitFor();
  await check('monitoring report');

  await page.goto('/monitoring/manage/tasks');
  await page.getByTestId('task-value').first().waitFor();
  await page.getByRole('button', { name: /^Add/ }).first().click();
  await page.getByRole('dialog').waitFor();
  await check('task dialog');

  await page.goto('/subscriptions/payment-history');
  await page.getByTestId('invoice-row').first().getByRole('button').first().click();
  await page.getByTestId('invoice-view').waitFor();
  await check('payment-history invoice');

  await page.goto('/crypto-checkout?p=whois-credits&q=2500');
  await page.getByTestId('qr-code').waitFor();
  await check('crypto-checkout');
  return problems;
}

/** An account whose screens all have something to show: a paid domain plan with its domain, a report, notices. */
async function accountWithData(theme: Theme) {
  const user = await fullUser(suite.server, `phone-${theme}`);
  await payWithSandbox(suite.server, user.token, 'domain-sub-monthly', 1);
  await call(suite.server, user.token, '/monitoring/set-domain', { domain: `a-fairly-long-company-name-${theme}.example.test` });
  await addNotice(suite.server, {
    userId: user.id,
    type: 'global',
    data: 'Scheduled maintenance: searches may be slower between 02:00 and 03:00 UTC on Sunday night.',
  });
  return user;
}

test('phone widths (320, 360, 390 px), both themes: no screen is wider than the window; wide tables scroll in a named region with a cue', { timeout: 600_000 }, async () => {
  const users = new Map<Theme, Awaited<ReturnType<typeof accountWithData>>>();
  for (const theme of THEMES) users.set(theme, await accountWithData(theme));
  // One well matching every account's watched email: a report for each.
  await suite.server.ingest(
    'Phone Layout Well',
    THEMES.map((theme) => ({ email: `watch-phone-${theme}@a11y.example`, username: `phone_${theme}`, password: 'phone-layout-pass' })),
  );
  const reports = new Map<Theme, string>();
  for (const theme of THEMES) reports.set(theme, (await waitForReports(suite.server, users.get(theme)!.token))[0]!.id);

  const problems: string[] = [];
  for (const theme of THEMES) {
    const outPage = await (await themedContext(suite.browser, suite.server, theme, narrowest)).newPage();
    for (const screen of SIGNED_OUT) {
      await openScreen(outPage, screen);
      problems.push(...(await atEveryWidth(outPage, screen.name, theme)));
    }
    await outPage.context().close();

    const page = await signedInPage(suite.browser, suite.server, users.get(theme)!, theme, narrowest);
    for (const screen of SIGNED_IN) {
      await openScreen(page, screen);
      problems.push(...(await atEveryWidth(page, screen.name, theme)));
    }
    problems.push(...(await whoisViews(page, theme)));
    problems.push(...(await stateViews(page, theme, reports.get(theme)!)));
    await page.context().close();
  }
  assert.deepEqual(problems, [], `\n${problems.join('\n')}`);
});
