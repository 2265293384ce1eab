import type { WhoisRecord } from '../../common/whois-rules';

/**
 * A thin registry's two records as one: the registrar's values, the registry's where the
 * registrar has none, the registry's view as registryData. A registrar record about
 * another domain is ignored.
 */
export function mergedRecord(registrar: WhoisRecord, registry: WhoisRecord): WhoisRecord {
  if (registrar.domainName !== registry.domainName) return registry;
  const defined = Object.fromEntries(Object.entries(registrar).filter(([, v]) => v !== undefined));
  return { ...registry, ...defined, registryData: registry.registryData, domainAvailability: 'UNAVAILABLE' } as WhoisRecord;
}
