/**
 * The Breach API v3's stealer-log calls (v3-account-service.ts): records of wells whose
 * breach model is IsStealerLog, for domains the key account verified only (the address's
 * domain, the website's, the email domain). Website host names come from the records' `url`.
 */
import {
  ACCOUNT_MAX_RECORDS, DOMAIN_MAX_RECORDS, addTo, domainAddressesQuery, domainName, emailQuery, entryAliases, entryHosts,
  readEntries, sortedObject, websiteQuery,
} from './v3-account-reads';
import { liveModels, type KeyedContext, type Reads } from './v3-keyed-context';

/** The first `max` records matching the query that are in stealer-log wells. */
async function stealerEntries(reads: Reads, query: string, mode: 'exact' | 'wildcard', max: number) {
  const entries = await readEntries(reads.run, query, mode, max);
  const models = await liveModels(reads.db, entries);
  return entries.filter((e) => models.get(e.database_name)?.IsStealerLog === true);
}

export function stealerLogCalls({ reads, counted, requireVerified }: KeyedContext) {
  return {
    /** The website hosts where the address's credentials were captured (its domain verified), or null (404). */
    async stealerLogsByEmail(userId: string, rawEmail: string): Promise<string[] | null> {
      const { query, domain } = emailQuery(rawEmail);
      await requireVerified(userId, domain);
      const entries = await counted(userId, () => stealerEntries(reads, query, 'exact', ACCOUNT_MAX_RECORDS));
      const hosts = [...new Set(entries.flatMap((e) => entryHosts(e)))].sort();
      return hosts.length ? hosts : null;
    },

    /** The addresses captured on a verified website domain (or under it), lower case, sorted; or null (404). */
    async stealerLogsByWebsiteDomain(userId: string, rawDomain: string): Promise<string[] | null> {
      const domain = domainName(rawDomain);
      await requireVerified(userId, domain);
      const entries = await counted(userId, () => stealerEntries(reads, websiteQuery(domain), 'wildcard', DOMAIN_MAX_RECORDS));
      const emails = new Set<string>();
      for (const entry of entries) {
        if (entryHosts(entry, domain).length) for (const email of entry.email ?? []) emails.add(email.trim().toLowerCase());
      }
      return emails.size ? [...emails].sort() : null;
    },

    /** `{alias: [website hosts]}` for the verified email domain's captured addresses, or null (404). */
    async stealerLogsByEmailDomain(userId: string, rawDomain: string): Promise<Record<string, string[]> | null> {
      const domain = domainName(rawDomain);
      await requireVerified(userId, domain);
      const entries = await counted(userId, () => stealerEntries(reads, domainAddressesQuery(domain), 'wildcard', DOMAIN_MAX_RECORDS));
      const hosts = new Map<string, Set<string>>();
      for (const entry of entries) for (const alias of entryAliases(entry, domain)) for (const host of entryHosts(entry)) addTo(hosts, alias, host);
      return hosts.size ? sortedObject(hosts) : null;
    },
  };
}
