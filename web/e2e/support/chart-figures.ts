/**
 * Chart helpers for browser tests (web/src/components/chart): a chart's data table as text,
 * its bars, the keyboard path to its table toggle, axe over the page, and screenshots of a
 * chart saved under CHART_SHOT_DIR (default /tmp/shots) for a person to look at.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import type { Locator, Page } from 'playwright-core';

/** The rows of the chart's table, cell texts, after opening it with its toggle. */
export async function tableRows(figure: Locator): Promise<string[][]> {
  const toggle = figure.getByRole('button', { name: 'Show the data as a table' });
  if (await toggle.count()) await toggle.click();
  const rows = figure.locator('table tbody tr');
  await rows.first().waitFor();
  return rows.evaluateAll((trs) => trs.map((tr) => [...tr.children].map((cell) => (cell.textContent ?? '').trim())));
}

/** The bars Plot drew: the rects of its bar and rect marks (their names kept as data-mark by the chart). */
export async function barCount(figure: Locator): Promise<number> {
  await figure.locator('svg[role="img"]').waitFor();
  return figure.locator('svg[role="img"] g:is([data-mark="bar"], [data-mark="rect"]) > rect').count();
}

/** The SVG's text (tick labels), in document order. */
export const svgTexts = (figure: Locator) => figure.locator('svg[role="img"] text').allTextContents();

/** Presses Tab until the focus is on `target` (at most `limit` presses); true when it got there. */
export async function tabTo(page: Page, target: Locator, limit = 120): Promise<boolean> {
  const handle = await target.elementHandle();
  for (let i = 0; i < limit; i++) {
    await page.keyboard.press('Tab');
    if (await page.evaluate((el) => document.activeElement === el, handle)) return true;
  }
  return false;
}

const AXE_SOURCE = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** WCAG 2.1 A/AA violations on the page as it is, one line each. */
export async function axeViolations(page: Page): Promise<string[]> {
  await page.waitForTimeout(150);
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE_SOURCE);
  const violations = (await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (context: unknown, options: unknown) => Promise<{ violations: unknown[] }> } }).axe;
    const result = await axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] }, resultTypes: ['violations'] });
    return result.violations;
  })) as { id: string; help: string; nodes: { target: unknown[] }[] }[];
  return violations.map((v) => `${v.id}: ${v.help} — ${v.nodes.map((n) => JSON.stringify(n.target)).join(' ')}`);
}

/** The page scrolls sideways (something is wider than the viewport). */
export const overflowsSideways = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth);

const SHOT_DIR = process.env.CHART_SHOT_DIR ?? '/tmp/shots';

/**
 * A screenshot of `element` as `name`.png under the chart shot folder: scrolled to the
 * middle of the viewport, clear of the frame's fixed bars, with no focus ring showing.
 */
export async function chartShot(element: Locator, name: string): Promise<void> {
  fs.mkdirSync(SHOT_DIR, { recursive: true });
  await element.evaluate((el) => {
    (document.activeElement as HTMLElement | null)?.blur();
    el.scrollIntoView({ block: 'center' });
  });
  await element.screenshot({ path: path.join(SHOT_DIR, `${name}.png`) });
}
