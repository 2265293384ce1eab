/**
 * WHOIS: the dashboard's lookups and /v2/whois, one service over the configured providers
 * (`app.whois`). Its sweep gives back the credits of requests that died mid-way and drops
 * old holds and cache rows (the `whois-sweep` task, every minute on one instance).
 */
import fp from 'fastify-plugin';
import type { AppDeps } from '../app-deps';
import { createWhoisService, parseProviderOrder } from './whois-service';
import { createWhoisProviders } from './providers';
import { registerWhois } from './whois-routes';
import { registerWhoisV2Routes } from './whois-v2-routes';

const WHOIS_SWEEP_MS = 60_000;

export const whoisPlugin = fp<AppDeps>(
  async (app, { db, config }) => {
    const whoisProviders = createWhoisProviders(config, db);
    app.addHook('onClose', () => whoisProviders.close());
    const whois = createWhoisService({
      db,
      providers: whoisProviders.providers,
      lookupOrder: parseProviderOrder(config.WHOIS_LOOKUP_PROVIDERS),
      dataOrder: parseProviderOrder(config.WHOIS_DATA_PROVIDERS),
      // Every provider of a request together; each live exchange has WHOIS_TIMEOUT_MS of its own.
      timeoutMs: config.WHOIS_TIMEOUT_MS * 2,
      log: app.log,
    });
    registerWhois(app, { whois });
    app.v2Routes((v2) => registerWhoisV2Routes(v2));
    app.jobs.every('whois-sweep', WHOIS_SWEEP_MS, () => whois.sweep());
  },
  { name: 'whois', fastify: '5.x', dependencies: ['auth', 'api-v2', 'jobs'] },
);
