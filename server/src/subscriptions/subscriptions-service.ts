/**
 * The subscriptions page's summary and
 * the slots of one domain subscription. Decisions: docs/payments.md, section
 * "Subscriptions summary and history (decisions)".
 */
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import { Errors } from '../infra/errors';
import { maskApiKey } from '../users/user-service';
import { enterpriseActive, searchActive, searchRecurring } from '../common/plan-status';
import * as subscriptionsRepo from './subscriptions-repository';
import type { DomainSlot, SubscriptionsSummary } from '../common/subscriptions';

export function createSubscriptionsService(db: Kysely<Database>) {
  return {
    async summary(userId: string): Promise<SubscriptionsSummary> {
      const now = new Date();
      const [account, searchPlan, enterprisePlan, domains, domainPlans] = await Promise.all([
        subscriptionsRepo.getSummaryAccount(db, userId),
        subscriptionsRepo.getPlanSubscription(db, userId, 'search'),
        subscriptionsRepo.getPlanSubscription(db, userId, 'enterprise'),
        subscriptionsRepo.listCurrentDomainSlots(db, userId, now),
        subscriptionsRepo.listCurrentDomainPlans(db, userId, now),
      ]);
      if (!account) throw Errors.unauthorized();
      const enterprise = enterpriseActive(account, now.getTime());
      const searchRenews = searchRecurring(account, now.getTime());
      const monitoringRenews = enterprise && enterprisePlan !== undefined && enterprisePlan.recurring && enterprisePlan.period_end > now;
      return {
        search_active: searchActive(account, now.getTime()),
        search_expiry: account.search_subscribed_until?.toISOString() ?? null,
        search_auto_renew: searchRenews,
        api_credits: account.search_credits,
        api_private_key: maskApiKey(account.api_key_hint),
        is_enterprise: enterprise,
        // The monitoring block is the enterprise plan: active as enterprise is, renewing while its row does.
        monitoring_api_active: enterprise,
        monitoring_api_auto_renew: monitoringRenews,
        monitoring_api_expiry: account.enterprise_until?.toISOString() ?? null,
        whois_credits: account.whois_credits,
        domains,
        domain_plans: domainPlans,
        // Asked and not yet confirmed by the provider (the plan renews until its cancel event).
        search_cancel_requested: searchRenews && Boolean(searchPlan?.recurring && searchPlan.cancel_requested_at),
        monitoring_api_cancel_requested: monitoringRenews && Boolean(enterprisePlan?.cancel_requested_at),
        email: account.email,
        elevated: account.elevated,
      };
    },

    /** Another user's subscription, or one that does not exist: the same 404. */
    async domainInfo(userId: string, subscriptionId: string): Promise<{ domains: DomainSlot[] }> {
      const domains = await subscriptionsRepo.listDomainSlotsOf(db, userId, subscriptionId);
      if (!domains) throw Errors.notFound('Subscription not found');
      return { domains };
    },
  };
}

export type SubscriptionsService = ReturnType<typeof createSubscriptionsService>;
