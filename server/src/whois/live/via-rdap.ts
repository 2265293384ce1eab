/**
 * A live lookup over RDAP: the TLD's base URL from the IANA bootstrap,
 * `GET {base}domain/{name}`, then at most one `related` link (a thin registry points at the
 * registrar's record). 404 is an answer: the domain is not registered (MISSING_WHOIS_DATA).
 */
import type { Dispatcher } from 'undici';
import type { WhoisRecord } from '../../common/whois-rules';
import { ProviderError } from '../provider';
import { RdapMapError, rdapToWhoisRecord } from '../rdap-map';
import type { RdapBaseFor } from './bootstrap';
import { mergedRecord } from './merge-records';
import { fetchRdap, relatedDomainLink } from './rdap-client';

/** The RDAP record, or null when the TLD has no RDAP server. */
export async function viaRdap(
  deps: { rdapBaseFor: RdapBaseFor; dispatcher: Dispatcher; maxBytes: number },
  domain: string,
  signal: AbortSignal,
  fetchedAt: Date,
): Promise<WhoisRecord | null> {
  const base = deps.rdapBaseFor(domain.slice(domain.lastIndexOf('.') + 1));
  if (!base || !URL.canParse(base)) return null;
  const url = new URL(`domain/${encodeURIComponent(domain)}`, base);
  const fetchOptions = { dispatcher: deps.dispatcher, maxBytes: deps.maxBytes, signal };
  const registry = await fetchRdap(url, fetchOptions);
  if (!registry.found) return { domainName: domain, domainAvailability: 'AVAILABLE', dataError: 'MISSING_WHOIS_DATA' };
  const registryRecord = mapped(registry.object, fetchedAt);

  const related = relatedDomainLink(registry.object, url);
  if (!related) return registryRecord;
  try {
    const registrar = await fetchRdap(related, fetchOptions);
    if (!registrar.found) return registryRecord;
    return mergedRecord(mapped(registrar.object, fetchedAt), registryRecord);
  } catch (error) {
    if (error instanceof ProviderError) return registryRecord; // the registry's record still stands
    throw error;
  }
}

/** An RDAP object mapped, or 'unparseable' when it is no domain object. */
function mapped(object: unknown, fetchedAt: Date): WhoisRecord {
  try {
    return rdapToWhoisRecord(object, fetchedAt);
  } catch (error) {
    if (error instanceof RdapMapError) throw new ProviderError('live', 'unparseable', `RDAP answer: ${error.message}`);
    throw error;
  }
}
