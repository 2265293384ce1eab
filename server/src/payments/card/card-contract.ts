/** What every card provider offers the checkout routes and the webhook ingress. */
import type { WebhookProvider } from '../ingress';

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
