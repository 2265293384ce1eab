/** The subscriptions summary's wire contract, shared by the server and the dashboard. */

/** A monitored-domain slot a domain subscription bought; `domain` is null until the user names one. */
export interface DomainSlot {
  id: string;
  domain: string | null;
}

/**
 * A domain-monitoring subscription whose period has not ended: how many domains it holds,
 * whether it renews (`auto_renew`) and when its period ends (`expiry`: the renewal date while
 * it renews, the end of access otherwise). `cancel_requested`: a cancel was asked and the
 * provider has not confirmed it yet.
 */
export interface DomainPlan {
  id: string;
  domains: number;
  auto_renew: boolean;
  expiry: string;
  cancel_requested: boolean;
}

/** GET /subscriptions. Expiries are ISO strings or null. */
export interface SubscriptionsSummary {
  search_active: boolean;
  search_expiry: string | null;
  search_auto_renew: boolean;
  api_credits: number;
  /** The key's hint, never the key. */
  api_private_key: string | null;
  is_enterprise: boolean;
  monitoring_api_active: boolean;
  monitoring_api_auto_renew: boolean;
  monitoring_api_expiry: string | null;
  whois_credits: number;
  domains: DomainSlot[];
  /** The current domain-monitoring subscriptions (the slots of `domains` belong to them). */
  domain_plans: DomainPlan[];
  /** A cancel of the recurring search plan was asked and is not confirmed yet. */
  search_cancel_requested: boolean;
  /** The same for the enterprise (monitoring) plan. */
  monitoring_api_cancel_requested: boolean;
  email: string;
  elevated: boolean;
}
