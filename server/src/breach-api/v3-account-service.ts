/**
 * The Breach API v3's keyed searches (docs/api-compatibility.md, "Breach API v3"): which
 * wells hold an account, a verified domain's addresses, stealer-log websites and addresses
 * (v3-stealer-logs.ts), the account's domains and plan. Each call is counted as one search
 * of the key's account (v3-keyed-context.ts: no credit) once its input and domain are
 * accepted. Answers hold well names, addresses of a domain the account verified and website
 * host names: never another record value.
 */
import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import type { Config } from '../config';
import { verifiedDomainNames } from '../monitoring/domain-verification-service';
import type { SearchService } from '../search/search-service';
import { breachModelsByWellName, type BreachModel } from '../datawells/breach-model-service';
import { DOMAIN_MAX_RECORDS, accountQuery, addTo, domainAddressesQuery, domainName, entryAliases, readEntries, sortedObject, wellsHolding } from './v3-account-reads';
import { keyedContext, liveModels, type Reads } from './v3-keyed-context';
import { stealerLogCalls } from './v3-stealer-logs';

/** Verified domains whose addresses subscribeddomains counts (sorted by name); the rest answer null counts. */
export const SUBSCRIBED_DOMAINS_COUNTED = 20;

export interface BreachFilter {
  /** Only wells whose Domain is this one (any case). */
  domain?: string;
  includeUnverified: boolean;
}

/**
 * The wells breachedaccount answers, sorted by Name: never a sensitive or retired one (a
 * retired well's data is gone, as the service drops it), unverified ones only when asked,
 * and with `domain` only that domain's.
 */
export function selectBreaches(models: Iterable<BreachModel>, filter: BreachFilter): BreachModel[] {
  const domain = filter.domain?.trim().toLowerCase();
  return [...models]
    .filter((m) => !m.IsSensitive && !m.IsRetired)
    .filter((m) => filter.includeUnverified || m.IsVerified)
    .filter((m) => !domain || m.Domain.toLowerCase() === domain)
    .sort((a, b) => a.Name.localeCompare(b.Name));
}

/** Each alias of `domain` to the Names of the wells holding it (sensitive ones included), and each alias's spam-list-only state. */
async function domainBreaches(reads: Reads, domain: string) {
  const entries = await readEntries(reads.run, domainAddressesQuery(domain), 'wildcard', DOMAIN_MAX_RECORDS);
  const models = await liveModels(reads.db, entries);
  const names = new Map<string, Set<string>>();
  const beyondSpam = new Set<string>();
  for (const entry of entries) {
    const model = models.get(entry.database_name);
    if (!model) continue;
    for (const alias of entryAliases(entry, domain)) {
      addTo(names, alias, model.Name);
      if (!model.IsSpamList) beyondSpam.add(alias);
    }
  }
  return { names, beyondSpam };
}

export function createV3AccountService(deps: { db: Kysely<Database>; search: SearchService; meter: FastifyInstance['searchMeter']; config: Config }) {
  const { db, search } = deps;
  const context = keyedContext(db, search);
  const { reads, counted, requireVerified } = context;

  return {
    ...stealerLogCalls(context),

    /** The breaches holding the account, or null (404). */
    async breachedAccount(userId: string, account: string, filter: BreachFilter): Promise<BreachModel[] | null> {
      const query = accountQuery(account);
      const found = await counted(userId, async () => {
        const models = await breachModelsByWellName(db, await wellsHolding(reads.wellCounts, query), { publicUrl: deps.config.publicUrl });
        return selectBreaches(models.values(), filter);
      });
      return found.length ? found : null;
    },

    /** `{alias: [Name, ...]}` for every address of a verified domain, or null (404). */
    async breachedDomain(userId: string, rawDomain: string): Promise<Record<string, string[]> | null> {
      const domain = domainName(rawDomain);
      await requireVerified(userId, domain);
      const { names } = await counted(userId, () => domainBreaches(reads, domain));
      return names.size ? sortedObject(names) : null;
    },

    /**
     * The account's verified domains with their breached addresses counted, each read as
     * breacheddomain reads it, for the first SUBSCRIBED_DOMAINS_COUNTED domains.
     */
    async subscribedDomains(userId: string) {
      const domains = await verifiedDomainNames(db, userId);
      const until = (await deps.meter.account(userId))?.snapshot.search_subscribed_until ?? null;
      return counted(userId, async () => {
        const out = [];
        for (const [i, domain] of domains.entries()) {
          const found = i < SUBSCRIBED_DOMAINS_COUNTED ? await domainBreaches(reads, domain) : undefined;
          out.push({
            DomainName: domain,
            PwnCount: found ? found.names.size : null,
            PwnCountExcludingSpamLists: found ? found.beyondSpam.size : null,
            PwnCountExcludingSpamListsAtLastSubscriptionRenewal: null,
            NextSubscriptionRenewal: until ? isoSeconds(until) : null,
          });
        }
        return out;
      });
    },

    /** We hold no pastes: counted like any call, always none (404). */
    async pasteAccount(userId: string, account: string): Promise<null> {
      accountQuery(account);
      return counted(userId, async () => null);
    },

    /** The key account's plan in the service's shape. */
    async subscriptionStatus(userId: string) {
      const account = await counted(userId, () => deps.meter.account(userId));
      const snapshot = account?.snapshot;
      const until = snapshot?.search_subscribed_until ?? null;
      const rpm = Math.round(deps.config.API_RATE_PER_SECOND * 60);
      return {
        SubscriptionName: snapshot?.elevated ? 'Elevated' : 'Search',
        Description: `Keyed searches at up to ${rpm} requests a minute (bursts of ${deps.config.API_RATE_BURST}), counted as searches without credits; domain and stealer-log searches of the account's verified domains.`,
        SubscribedUntil: until ? isoSeconds(until) : null,
        Rpm: rpm,
        DomainSearchMaxBreachedAccounts: DOMAIN_MAX_RECORDS,
        IncludesStealerLogs: true,
      };
    },
  };
}

export type V3AccountService = ReturnType<typeof createV3AccountService>;

/** ISO 8601 to the second, `Z`. */
function isoSeconds(date: Date): string {
  return date.toISOString().replace(/\.\d+Z$/, 'Z');
}
