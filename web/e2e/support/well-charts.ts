/**
 * Shared by the browser tests of the well charts (exposure timeline, domain overview): an axe
 * run that answers its violations, what a drawn chart shows (its dots' wells, its labels, its
 * data table), the page's horizontal overflow, and screenshots kept under CHART_SHOTS_DIR
 * (a temporary directory removed after the file when it is not set).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { after } from 'node:test';
import type { Locator, Page } from 'playwright-core';

const AXE_SOURCE = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];

/** axe (WCAG 2.1 A/AA) on the page as it is: one line per violation, empty when none. */
export async function axeViolations(page: Page): Promise<string[]> {
  await page.waitForTimeout(150);
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async (tags) => {
    const axe = (window as unknown as { axe: { run: (c: unknown, o: unknown) => Promise<{ violations: { id: string; nodes: { target: unknown[] }[] }[] }> } }).axe;
    return (await axe.run(document, { runOnly: { type: 'tag', values: tags }, resultTypes: ['violations'] })).violations;
  }, TAGS);
  return violations.map((v) => `${v.id}: ${v.nodes.map((n) => JSON.stringify(n.target)).join(', ')}`);
}

/** The wells of a chart's dots (their data-well), in drawing order, once drawn. */
export async function dotWells(chart: Locator): Promise<string[]> {
  await chart.locator('svg g[aria-label="dot"] circle').first().waitFor();
  return chart.locator('svg g[aria-label="dot"] circle').evaluateAll((circles) => circles.map((c) => c.getAttribute('data-well') ?? ''));
}

/** The number of dots of a chart, once drawn. */
export async function dotCount(chart: Locator): Promise<number> {
  await chart.locator('svg g[aria-label="dot"] circle').first().waitFor();
  return chart.locator('svg g[aria-label="dot"] circle').count();
}

/** The texts of a chart's text marks (the wells' labels). */
export function labels(chart: Locator): Promise<string[]> {
  return chart.locator('svg g[aria-label="text"] text').allTextContents();
}

/** The chart's data table, opened through its disclosure button: each row's cells' texts. */
export async function tableRows(chart: Locator): Promise<string[][]> {
  const toggle = chart.getByRole('button', { name: 'Show the data as a table' });
  if (await toggle.count()) await toggle.click();
  const rows = chart.locator('table tbody tr');
  await rows.first().waitFor();
  return rows.evaluateAll((trs) => trs.map((tr) => [...tr.children].map((cell) => (cell.textContent ?? '').trim())));
}

/** Whether the page is wider than the window (a horizontal scroll at phone width). */
export function overflows(page: Page): Promise<boolean> {
  return page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth);
}

const keptDir = process.env.CHART_SHOTS_DIR;
const shotDir = keptDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'lw-chart-shots-'));
fs.mkdirSync(shotDir, { recursive: true });
after(() => {
  if (!keptDir) fs.rmSync(shotDir, { recursive: true, force: true });
});

/** A screenshot of `target` (an element, else the whole page) named `name`.png. */
export async function chartShot(page: Page, name: string, target?: Locator): Promise<string> {
  const file = path.join(shotDir, `${name}.png`);
  // The sticky top bar, the skip link and toasts would cover the element scrolled under them.
  if (target) await target.screenshot({ path: file, style: '.topbar, .skip-link, .toaster { visibility: hidden !important; }' });
  else await page.screenshot({ path: file, fullPage: true });
  return file;
}
