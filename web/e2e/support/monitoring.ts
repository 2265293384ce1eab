/**
 * Monitoring and inbox helpers for browser tests: signing in to a page, calls of the
 * dashboard API with a user's token (to set up tasks quickly), waiting for the report an
 * ingest makes, notices written as the server writes them, and screenshots kept in
 * E2E_SCREENSHOT_DIR when it is set.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import type * as NotificationsRepository from '../../../server/src/monitoring/notifications-repository';
import { DESKTOP, logInThroughForm, openPage } from './browser';
import { uniqueEmail, type TestServer, type UserOptions } from './server';

export interface SignedIn {
  page: Page;
  user: { id: string; email: string; password: string };
  /** A bearer token of the same user, for set-up calls. */
  token: string;
}

/** A new account signed in through the form, on `target`. */
export async function signInTo(
  server: TestServer,
  browser: Browser,
  target: string,
  options: UserOptions = { verified: true },
  viewport = DESKTOP,
): Promise<SignedIn> {
  const user = await server.createUser({ email: uniqueEmail('monitor'), ...options });
  const page = await signInAs(server, browser, user, target, viewport);
  const { token } = await server.login(user.email, user.password);
  return { page, user, token };
}

/** The same account in a new browser context (e.g. at another viewport). */
export async function signInAs(
  server: TestServer,
  browser: Browser,
  user: { email: string; password: string },
  target: string,
  viewport = DESKTOP,
): Promise<Page> {
  const page = await openPage(browser, server.url, viewport);
  await page.goto(target);
  await page.waitForURL((url) => url.pathname === '/login');
  await logInThroughForm(page, user.email, user.password);
  await page.waitForURL((url) => url.pathname === new URL(target, server.url).pathname);
  return page;
}

/** One dashboard call as the user; throws with the server's message on a refusal. */
export async function call<T = unknown>(server: TestServer, token: string, route: string, body?: unknown): Promise<T> {
  const response = await fetch(server.url + route, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${token}`, accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = (await response.json()) as T & { error?: string };
  if (!response.ok) throw new Error(`${route} ${response.status}: ${data.error}`);
  return data;
}

export const addTaskByApi = (server: TestServer, token: string, key: string, value: string) =>
  call<{ task: { id: string } }>(server, token, '/monitoring/add-task', { key, value });

export interface ReportSummaryWire {
  id: string;
  results: number;
  database_name: string;
}

/** Polls the user's reports until `count` exist (the match job runs after the ingest's NOTIFY). */
export async function waitForReports(server: TestServer, token: string, count = 1, timeoutMs = 20_000): Promise<ReportSummaryWire[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { reports } = await call<{ reports: ReportSummaryWire[] }>(server, token, '/monitoring/reports/get-reports', { page: 1, page_size: 20 });
    if (reports.length >= count) return reports;
    if (Date.now() > deadline) throw new Error(`${reports.length} of ${count} reports after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const NOTIFICATIONS_URL = new URL('../../../server/src/monitoring/notifications-repository.ts', import.meta.url).href;

/** Writes a notice as the server's jobs do. */
export async function addNotice(server: TestServer, notice: NotificationsRepository.NewNotification): Promise<string | null> {
  const { insertNotification } = (await import(NOTIFICATIONS_URL)) as typeof NotificationsRepository;
  return insertNotification(server.runtime.db, notice);
}

const keptDir = process.env.E2E_SCREENSHOT_DIR;
const shotDir = keptDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'lw-monitoring-shots-'));
fs.mkdirSync(shotDir, { recursive: true });
// Registered when a test file imports this module, so it runs once, after the file's tests.
after(() => {
  if (!keptDir) fs.rmSync(shotDir, { recursive: true, force: true });
});

/** A full-page screenshot named `name`.png; kept only when E2E_SCREENSHOT_DIR is set. */
export async function screenshot(page: Page, name: string): Promise<string> {
  const file = path.join(shotDir, `${name}.png`);
  // The frame's bars are fixed: a full-page shot of a scrolled page would draw them mid-page.
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: file, fullPage: true });
  return file;
}
