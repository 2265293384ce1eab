/** The subscriptions summary's wire contract, shared by the server and the dashboard (spec 3 §3, §7). */

/** A monitored-domain slot a domain subscription bought; `domain` is null until the user names one. */
export interface DomainSlot {
  id: string;
  domain: string | null;
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
  email: string;
  elevated: boolean;
}
