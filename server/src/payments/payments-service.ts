/**
 * What other features ask of payments (`app.payments`): whether the card
 * provider answers (health's /misc/check) and a recurring plan's cancel (subscriptions'
 * /subscriptions/cancel), which only the provider that renews it can stop.
 */
export type CancelType = 'subscription-search' | 'subscription-monitoring' | 'subscription-domain';

export interface PaymentsService {
  /** The card provider answers (false rather than a throw). */
  providerHealthy(): Promise<boolean>;
  /**
   * Asks the provider to stop the user's recurring plan of that kind renewing at its period's
   * end. 404 when there is none; 502 when the provider refuses.
   */
  cancelSubscription(userId: string, type: CancelType, id: string): Promise<void>;
}
