/**
 * What the well charts (exposure timeline, domain overview) draw, for their browser tests:
 * their dots' wells and count, their labels, a screenshot of a whole block. The rest (the
 * data table, axe, overflow) is support/chart-figures.ts. Plot's mark names are kept as data-mark by the
 * chart component.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Locator } from 'playwright-core';

const DOTS = 'svg[role="img"] g[data-mark="dot"] circle';

/** The wells of a chart's dots (their data-well), in drawing order, once drawn. */
export async function dotWells(chart: Locator): Promise<string[]> {
  await chart.locator(DOTS).first().waitFor();
  return chart.locator(DOTS).evaluateAll((circles) => circles.map((c) => c.getAttribute('data-well') ?? ''));
}

/** The number of dots of a chart, once drawn. */
export async function dotCount(chart: Locator): Promise<number> {
  await chart.locator(DOTS).first().waitFor();
  return chart.locator(DOTS).count();
}

/** The radii of a chart's dots, in drawing order. */
export function dotRadii(chart: Locator): Promise<number[]> {
  return chart.locator(DOTS).evaluateAll((circles) => circles.map((c) => Number(c.getAttribute('r'))));
}

/** The texts of a chart's text marks (the wells' labels). */
export function labels(chart: Locator): Promise<string[]> {
  return chart.locator('svg[role="img"] g[data-mark="text"] text').allTextContents();
}

/**
 * A screenshot of a chart block taller than the viewport's middle, as `name`.png under
 * CHART_SHOT_DIR (default /tmp/shots): the frame's sticky top bar, the skip link and toasts
 * hidden for the shot, so nothing covers the block's top.
 */
export async function blockShot(element: Locator, name: string): Promise<void> {
  const dir = process.env.CHART_SHOT_DIR ?? '/tmp/shots';
  fs.mkdirSync(dir, { recursive: true });
  await element.evaluate((el) => (document.activeElement as HTMLElement | null)?.blur?.() ?? el);
  await element.screenshot({ path: path.join(dir, `${name}.png`), style: '.topbar, .skip-link, .toaster { visibility: hidden !important; }' });
}
