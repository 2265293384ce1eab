/**
 * The card provider behind the checkout overlay, chosen by `CARD_PROVIDER` (docs/payments.md,
 * "Card checkout"): `sandbox` (default, refused in production) or `paddle`. One instance per
 * configuration, shared by the webhook ingress (providers.ts) and the routes.
 */
import type { Kysely } from 'kysely';
import type { Config } from '../../config';
import type { Database } from '../../db/schema';
import type { QueueSystem } from '../../infra/queues';
import { createPaddleProvider } from './paddle-provider';
import { createSandboxProvider, type SandboxCardProvider } from './sandbox-provider';
import type { CardProvider } from './card-contract';

export type { CardClientConfig, CardProvider } from './card-contract';

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
