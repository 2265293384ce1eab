/**
 * The real product for browser tests: the server tests' harness (server/test/support/harness.ts) starts
 * the app with a fresh PostgreSQL database, mails kept in the outbox, and dist/web served.
 *
 * Its types are imported from it (so `tsc -p web` also checks the harness and the server
 * code it reaches); the module itself is loaded by URL when a test file starts a server.
 */
import { fileURLToPath } from 'node:url';
import type * as Harness from '../../../server/test/support/harness';
import type { TestServer } from '../../../server/test/support/harness';

export type { TestServer };

/** The harness's createUser options: operator grants plus an API key. */
export type UserOptions = NonNullable<Parameters<TestServer['createUser']>[0]>;

const HARNESS_URL = new URL('../../../server/test/support/harness.ts', import.meta.url).href;
export const WEB_DIST = fileURLToPath(new URL('../../../dist/web', import.meta.url));

async function harness(): Promise<typeof Harness> {
  return (await import(HARNESS_URL)) as typeof Harness;
}

/** `env`: settings on top of the harness's (e.g. DNS_SERVERS of a test's own DNS server). */
export async function startServer(env?: Record<string, string>): Promise<TestServer> {
  return (await harness()).startTestServer({ webDistDir: WEB_DIST, ...(env ? { env } : {}) });
}

/** Closes the server and the embedded PostgreSQL the harness started for this file. */
export async function stopServer(server: TestServer | undefined): Promise<void> {
  try {
    await server?.close();
  } finally {
    await (await harness()).stopTestDatabaseServer();
  }
}

/** The path and query of a mailed link, opened against the test server. */
export function linkOn(server: TestServer, link: string): string {
  const { pathname, search } = new URL(link);
  return server.url + pathname + search;
}

/** The newest mail to `to` whose subject matches, and its first link containing `path`. */
export async function mailedLink(server: TestServer, to: string, subject: RegExp, path: string): Promise<string> {
  const mail = await server.waitForMail(to, subject);
  const link = mail.links.find((candidate) => candidate.includes(path));
  if (!link) throw new Error(`no ${path} link in "${mail.subject}"`);
  return linkOn(server, link);
}

let counter = 0;
/** A fresh address per call, so tests never collide on accounts. */
export function uniqueEmail(label: string): string {
  counter += 1;
  return `${label}-${Date.now().toString(36)}-${counter}@example.com`;
}

/** A verified account with the harness's default password. (An explicit grant: the
 * harness's createUser() with no options currently fails on an empty UPDATE.) */
export function newUser(server: TestServer) {
  return server.createUser({ verified: true });
}
