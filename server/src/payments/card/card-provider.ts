/**
 * The card provider behind the checkout overlay, chosen by `CARD_PROVIDER` (docs/payments.md,
 * "Card checkout"): `sandbox` (default, refused in production) or `paddle`. One instance per
 * configuration, shared by the webhook ingress (providers.ts) and the routes.
 */
import type { Kysely } from 'kysely';
import type { Config } from '../../config';
import type { Database } from '../../db/schema';
import type { QueueSystem } from '../../infra/queues';
import type { WebhookProvider } from '../ingress';
import { createPaddleProvider } from './paddle-provider';
import { createSandboxProvider, type SandboxCardProvider } from './sandbox-provider';

/** What the dashboard needs to load and open the overlay (`GET /payments/card-config`). */
export interface CardClientConfig {
  provider: 'sandbox' | 'paddle';
  script_url: string;
  global_name: string;
  /** The provider's client-side token (public by design). */
  token: string;
  environment: string;
  /** The provider's price id for every SKU that can be bought by card. */
  price_ids: Record<string, string>;
}

export interface CardProvider {
  readonly name: 'sandbox' | 'paddle';
  clientConfig(): CardClientConfig;
  webhook: WebhookProvider;
  /** Stops renewing at the end of the period; the provider's cancel event follows. */
  cancel(providerSubscriptionId: string): Promise<void>;
  /** True when the provider can take a payment now. */
  health(): Promise<boolean>;
}

export type AnyCardProvider = SandboxCardProvider | (CardProvider & { name: 'paddle' });

export interface CardDeps {
  config: Config;
  db: Kysely<Database>;
  queues: QueueSystem;
}

const instances = new WeakMap<Config, AnyCardProvider>();

/** The configured card provider (the same instance for the same configuration). */
export function cardProviderFor(deps: CardDeps): AnyCardProvider {
  let provider = instances.get(deps.config);
  if (!provider) {
    provider = deps.config.CARD_PROVIDER === 'paddle' ? createPaddleProvider(deps.config) : createSandboxProvider(deps);
    instances.set(deps.config, provider);
  }
  return provider;
}
