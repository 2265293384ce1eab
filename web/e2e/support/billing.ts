/**
 * Operator actions of the payments feature for browser tests, through the server's own
 * functions (as `npm run admin` runs them), loaded by URL like the harness.
 */
import type * as EventCodes from '../../../server/src/billing/event-code-service';
import type { TestServer } from './server';

const EVENT_CODES_URL = new URL('../../../server/src/billing/event-code-service.ts', import.meta.url).href;

/** `npm run admin -- event-code:create --code CODE --grant SKU:QTY…` on the test server's database. */
export async function createEventCode(server: TestServer, code: string, grants: { sku: string; quantity: number }[], maxUses = 1) {
  const { createEventCode: create } = (await import(EVENT_CODES_URL)) as typeof EventCodes;
  return create(server.runtime.db, { code, grants, maxUses, expiresAt: null });
}
