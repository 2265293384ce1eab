/**
 * The app factory: builds Fastify, registers the infrastructure, then one plugin per
 * feature (each owns its routes on every surface, its services, jobs and timers, and names
 * the plugins it needs; docs/architecture.md). It never listens; server.ts (and the tests) do.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import type { AppDeps } from './app-deps';
import { loggerOptions } from './infra/logger';
import { registerErrorAnswers, registerHttpInfrastructure } from './infra/http';
import { jobsPlugin, type AppProcessors } from './infra/jobs';
import { metricsPlugin } from './metrics/metrics-plugin';
import { searchMeterPlugin } from './search/search-meter-plugin';
import { apiV2Plugin } from './api-v2/api-v2-plugin';
import { monitorV1Plugin } from './monitor-api-v1/monitor-v1-plugin';
import { authPlugin } from './auth/auth-plugin';
import { usersPlugin } from './users/users-plugin';
import { healthPlugin } from './health/health-plugin';
import { searchPlugin } from './search/search-plugin';
import { removalPlugin } from './removal/removal-plugin';
import { monitoringPlugin } from './monitoring/monitoring-plugin';
import { whoisPlugin } from './whois/whois-plugin';
import { dataWellsPlugin } from './datawells/datawells-plugin';
import { subscriptionsPlugin } from './subscriptions/subscriptions-plugin';
import { billingPlugin } from './billing/billing-plugin';
import { marketingPlugin } from './marketing/marketing-plugin';
import { realtimePlugin } from './realtime/realtime-plugin';
import { paymentsPlugin } from './payments/payments-plugin';
import { deliveryPlugin } from './delivery/delivery-plugin';
import { webPlugin } from './web/web-plugin';
import { breachApiPlugin } from './breach-api/breach-api-plugin';
import { trustedProxyCheck } from './infra/trusted-proxies';

export type { AppDeps } from './app-deps';

declare module 'fastify' {
  interface FastifyInstance {
    /** The processors of the app's own queues (every queue but mail); the runtime starts them. */
    jobProcessors: AppProcessors;
  }
}

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config } = deps;
  const app = Fastify({
    logger: loggerOptions(config, deps.logStream),
    trustProxy: config.trustedProxies.length > 0 ? trustedProxyCheck(config.trustedProxies) : false,
    bodyLimit: 256 * 1024,
    requestTimeout: 60_000,
    return503OnClosing: true,
    // A path value as long as the Breach API v3 takes (an account of 255 characters,
    // percent-encoded) reaches its route and is refused there with the service's answer.
    routerOptions: { maxParamLength: 1024 },
    // Unknown body properties are refused (mass assignment), never coerced; /v2 and the
    // Monitor API drop them before validation instead (infra/unknown-properties.ts).
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false, useDefaults: true } },
  });
  registerErrorAnswers(app);
  // First, so every request is measured.
  await app.register(metricsPlugin, deps);
  await registerHttpInfrastructure(app, config);
  await app.register(jobsPlugin);

  // What several features stand on: the search meter (accounts and API keys in process) and
  // the public APIs' guards, into which features register their own routes.
  await app.register(searchMeterPlugin, deps);
  await app.register(apiV2Plugin, deps);
  await app.register(monitorV1Plugin, deps);

  // The features; each names the plugins it needs, so a wrong order fails at boot.
  for (const feature of [
    authPlugin,
    usersPlugin,
    searchPlugin,
    removalPlugin,
    monitoringPlugin,
    whoisPlugin,
    dataWellsPlugin,
    billingPlugin,
    marketingPlugin,
    realtimePlugin,
    paymentsPlugin,
    healthPlugin,
    subscriptionsPlugin,
    deliveryPlugin,
    breachApiPlugin,
  ]) {
    await app.register(feature, deps);
  }
  // Every queue has its processor, or the app is not built.
  app.decorate('jobProcessors', app.jobs.processors());
  await app.register(webPlugin, deps);
  return app;
}
