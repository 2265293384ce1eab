/**
 * The payment providers whose events the webhook ingress accepts, chosen by settings: one
 * entry a provider, each `/webhooks/<name>`. Add a provider by adding a line to the list.
 */
import type { Kysely } from 'kysely';
import type { Config } from '../config';
import type { Database } from '../db/schema';
import type { QueueSystem } from '../infra/queues';
import type { WebhookProvider } from './ingress';
import { cardProviderFor } from './card/card-provider';

export function createWebhookProviders(deps: { config: Config; db: Kysely<Database>; queues: QueueSystem }): WebhookProvider[] {
  return [
    // The card provider (CARD_PROVIDER): /webhooks/sandbox or /webhooks/paddle.
    cardProviderFor(deps).webhook,
  ];
}
