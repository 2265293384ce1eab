/**
 * Search metering in process (batched counts and charges, short-lived account snapshots;
 * search-meter.ts). Its own plugin, below auth and users, because those tell it when an
 * account or key changes (`forget`), and below the public APIs' guards, which resolve API
 * keys through its snapshots (`app.apiKeys`).
 */
import fp from 'fastify-plugin';
import type { AppDeps } from '../app-deps';
import { createSearchMeter, type SearchMeter } from './search-meter';

export interface ApiKeys {
  /** The account behind an API key's hash (undefined: no such key, or its account is closed). */
  userIdFor(keyHash: string): Promise<string | undefined>;
  /** The account behind a key's hash if known in process right now (no query). */
  known(keyHash: string): string | undefined;
}

declare module 'fastify' {
  interface FastifyInstance {
    searchMeter: SearchMeter;
    apiKeys: ApiKeys;
  }
}

export const searchMeterPlugin = fp<AppDeps>(
  async (app, { db, config }) => {
    const meter = createSearchMeter({
      db,
      flushMs: config.SEARCH_FLUSH_MS,
      reserve: config.SEARCH_BATCH_RESERVE,
      dailyLimit: config.SEARCH_DAILY_LIMIT,
      log: app.log,
    });
    // After the last request in flight: what was counted and charged in process is written.
    app.addHook('onClose', () => meter.close());
    app.decorate('searchMeter', meter);
    app.decorate('apiKeys', {
      userIdFor: async (keyHash: string) => (await meter.byApiKeyHash(keyHash))?.userId,
      known: (keyHash: string) => meter.knownKeyHash(keyHash),
    });
  },
  { name: 'search-meter', fastify: '5.x' },
);
