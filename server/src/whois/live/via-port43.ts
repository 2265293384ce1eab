/**
 * A live lookup over port-43 WHOIS: IANA's server names the TLD's server (`refer:`), whose
 * answer may name the registrar's (`Registrar WHOIS Server:`): at most two hops after IANA.
 * A registrar hop that fails leaves the registry's record.
 */
import type { WhoisRecord } from '../../common/whois-rules';
import type { Resolver } from '../../infra/ssrf';
import { ProviderError } from '../provider';
import { mergedRecord } from './merge-records';
import { queryPort43 } from './port43';
import { ianaReferral, parseWhoisText, registryDataOf } from './whois-text';

export interface ViaPort43Options {
  port43: number;
  ianaHost: string;
  allowPrivate: boolean;
  resolve?: Resolver;
  maxBytes: number;
}

/** The record, or null when IANA knows no WHOIS server for the TLD. */
export async function viaPort43(options: ViaPort43Options, domain: string, signal: AbortSignal, fetchedAt: Date): Promise<WhoisRecord | null> {
  const exchange = (host: string, query: string) =>
    queryPort43(host, query, { port: options.port43, allowPrivate: options.allowPrivate, resolve: options.resolve, maxBytes: options.maxBytes, signal });
  // IANA is the operator's setting: trusted, so asked even when it is a private address.
  const ianaAnswer = await queryPort43(options.ianaHost, domain.slice(domain.lastIndexOf('.') + 1), {
    port: options.port43,
    allowPrivate: true,
    maxBytes: options.maxBytes,
    signal,
  });
  const registryHost = ianaReferral(ianaAnswer);
  if (!registryHost) return null; // IANA knows no WHOIS server for this TLD

  const registry = parseWhoisText(await exchange(registryHost, domain), domain, fetchedAt);
  if (registry.record.dataError === 'MISSING_WHOIS_DATA') return registry.record;
  // Neither a record nor "no match" (a rate-limit notice, an empty answer): a failure, not an answer.
  if (registry.record.domainAvailability === 'UNDETERMINED') throw new ProviderError('live', 'unparseable', `WHOIS server ${registryHost}: no record in the answer`);
  const registryRecord = { ...registry.record, registryData: registryDataOf(registry.record, registryHost) };
  const registrarHost = registry.registrarWhoisServer;
  if (!registrarHost || registrarHost === registryHost) return registryRecord;
  try {
    const registrar = parseWhoisText(await exchange(registrarHost, domain), domain, fetchedAt);
    if (registrar.record.domainAvailability !== 'UNAVAILABLE') return registryRecord;
    return mergedRecord(registrar.record, registryRecord);
  } catch (error) {
    if (error instanceof ProviderError) return registryRecord; // a registrar hop that fails (refused, down, slow) leaves the registry's record
    throw error;
  }
}
