/**
 * The WHOIS providers of this deployment, from the settings (docs/whois.md
 * "Providers"): the local store always, the live registries, and WhoisXML API with a key.
 */
import type { Kysely } from 'kysely';
import type { Config } from '../config';
import type { Database } from '../db/schema';
import type { ProviderName, WhoisProvider } from './provider';
import { createLocalProvider } from './local-provider';
import { createLiveProvider } from './live/live-provider';
import { createWhoisXmlProvider } from './whoisxml-provider';

export interface WhoisProviders {
  providers: Partial<Record<ProviderName, WhoisProvider>>;
  /** Closes the providers' connection pools (at shutdown). */
  close(): Promise<void>;
}

export function createWhoisProviders(config: Config, db: Kysely<Database>): WhoisProviders {
  const limits = { timeoutMs: config.WHOIS_TIMEOUT_MS, maxBytes: config.WHOIS_MAX_BYTES };
  const live = createLiveProvider({ ...limits, port43: config.WHOIS_PORT43, ianaHost: config.WHOIS_IANA_HOST, allowPrivate: config.WHOIS_ALLOW_PRIVATE });
  const whoisxml = config.WHOISXML_API_KEY ? createWhoisXmlProvider({ ...limits, apiKey: config.WHOISXML_API_KEY, baseUrl: config.WHOISXML_BASE_URL }) : undefined;
  return {
    providers: { local: createLocalProvider(db), live, ...(whoisxml ? { whoisxml } : {}) },
    async close() {
      await Promise.all([live.close(), whoisxml?.close()]);
    },
  };
}
