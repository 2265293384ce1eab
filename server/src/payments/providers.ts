/** The payment providers whose events the webhook ingress accepts, chosen by settings. */
import type { Kysely } from 'kysely';
import type { Config } from '../config';
import type { Database } from '../db/schema';
import type { QueueSystem } from '../infra/queues';
import type { WebhookProvider } from './ingress';

export function createWebhookProviders(_deps: { config: Config; db: Kysely<Database>; queues: QueueSystem }): WebhookProvider[] {
  return [];
}
