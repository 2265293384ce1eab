/**
 * Operator actions of the payments feature for browser tests, through the server's own
 * functions (as `npm run admin` runs them), loaded by URL like the harness.
 */
import type * as EventCodes from '../../../server/src/billing/event-code-service';
import type * as Queues from '../../../server/src/infra/queues';
import type * as CryptoSandbox from '../../../server/src/payments/crypto/sandbox';
import type { Page } from 'playwright-core';
import { textOf } from './browser';
import type { TestServer } from './server';

const EVENT_CODES_URL = new URL('../../../server/src/billing/event-code-service.ts', import.meta.url).href;

/** `npm run admin -- event-code:create --code CODE --grant SKU:QTY…` on the test server's database. */
export async function createEventCode(server: TestServer, code: string, grants: { sku: string; quantity: number }[], maxUses = 1) {
  const { createEventCode: create } = (await import(EVENT_CODES_URL)) as typeof EventCodes;
  return create(server.runtime.db, { code, grants, maxUses, expiresAt: null });
}

const QUEUES_URL = new URL('../../../server/src/infra/queues.ts', import.meta.url).href;
const CRYPTO_SANDBOX_URL = new URL('../../../server/src/payments/crypto/sandbox.ts', import.meta.url).href;

/**
 * `npm run admin -- payment:simulate --invoice ID`: the sandbox crypto provider reports the
 * invoice settled, through the running server's queue and webhook ingress.
 */
export async function simulateCryptoPayment(server: TestServer, invoiceId: string): Promise<void> {
  const { createQueueSystem } = (await import(QUEUES_URL)) as typeof Queues;
  const { simulateCryptoPayment: simulate } = (await import(CRYPTO_SANDBOX_URL)) as typeof CryptoSandbox;
  const { config, db, connectionString } = server.runtime;
  const queues = createQueueSystem({ connectionString, redisUrl: config.REDIS_URL, namespace: server.namespace });
  try {
    await simulate({ config, db, queues }, { paymentId: invoiceId });
  } finally {
    await queues.close();
  }
}

/** GET /subscriptions is the API too: the page is opened from the sidebar, without a document load. */
export async function openSubscriptions(page: Page): Promise<void> {
  await page.getByRole('complementary', { name: 'Main navigation' }).getByRole('link', { name: 'Subscriptions' }).click();
  await page.waitForURL((url) => url.pathname === '/subscriptions');
}

/** The label → value lines of a block of /subscriptions. */
export async function facts(page: Page, block: string): Promise<Record<string, string>> {
  const region = page.getByRole('region', { name: block, exact: true });
  await region.waitFor();
  const rows = await region.locator('.subs-facts > div').evaluateAll((divs) =>
    divs.map((div) => [div.querySelector('dt')?.textContent ?? '', div.querySelector('dd')?.textContent ?? '']),
  );
  return Object.fromEntries(rows);
}

/** The credit balance shown in a block of /subscriptions. */
export const credits = (page: Page, block: string) => textOf(page.getByRole('region', { name: block, exact: true }).locator('.subs-credits'));
