/**
 * The app factory: builds Fastify and registers plugins and feature routes. It never
 * listens; server.ts (and the tests) do.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import fastifyCookie from '@fastify/cookie';
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import type { Kysely } from 'kysely';
import type { Config } from './config';
import type { Database } from './db/schema';
import type { RateLimiter } from './infra/rate-limiter';
import type { MailService } from './mail/mail-service';
import type { Processors, QueueSystem } from './infra/queues';
import { loggerOptions } from './infra/logger';
import { registerErrorHandler } from './infra/errors';
import { registerTextInputGuard } from './infra/text-input';
import { createAuthService, type SessionsEnded } from './auth/auth-service';
import { registerAuthentication } from './auth/authenticate';
import { registerAuthRoutes } from './auth/auth-routes';
import { registerSessionRoutes } from './auth/session-routes';
import { createSessionsService } from './auth/sessions';
import { registerTwoFactorRoutes } from './auth/two-factor-routes';
import { createUserService } from './users/user-service';
import { registerUserRoutes } from './users/user-routes';
import { createDataWellService } from './datawells/datawells-service';
import { registerDataWellRoutes } from './datawells/datawells-routes';
import { registerHealthRoutes } from './health/health-routes';
import { registerWebRoutes } from './web/web-routes';
import type { Engine } from '../../engine/index';
import { createSearchService } from './search/search-service';
import { createSearchMeter } from './search/search-meter';
import { registerSearchRoutes } from './search/search-routes';
import { createRemovalService } from './removal/removal-service';
import { registerRemovalRoutes } from './removal/removal-routes';
import { createOptOutService } from './removal/opt-out-service';
import { createApiKeyGuard } from './api-v2/api-key-auth';
import { v2Api } from './api-v2/v2-routes';
import { registerRealtimeRoutes } from './realtime/realtime-routes';
import { liveSessionIds } from './realtime/session-sweep';
import { createPaymentIngress } from './payments/ingress';
import { expireOverduePayments } from './payments/payments';
import { createWebhookProviders } from './payments/providers';
import { registerCheckoutRoutes } from './payments/checkout-routes';
import { createCryptoProvider } from './payments/crypto';
import { cryptoPaymentChannelRule, registerCryptoRoutes } from './payments/crypto-routes';
import { createSubscriptionsService } from './subscriptions/subscriptions-service';
import { registerSubscriptionsRoutes } from './subscriptions/subscriptions-routes';
import { createBillingService } from './billing/billing-service';
import { registerBillingRoutes } from './billing/billing-routes';
import { createEventCodeService } from './billing/event-code-service';
import { registerEventCodeRoutes } from './billing/event-code-routes';
import { createBannerService } from './marketing/banner-service';
import { registerBannerRoutes } from './marketing/banner-routes';
import { registerMonitoring } from './monitoring/monitoring-routes';
import { createDomainVerifier } from './monitoring/domain-verifier';
import { createDomainVerificationService } from './monitoring/domain-verification-service';
import { registerDomainVerificationRoutes } from './monitoring/domain-verification-routes';
import { monitorApiV1 } from './monitor-api-v1/monitor-v1-routes';
import { createReportsService } from './monitoring/reports-service';
import { registerReportsRoutes } from './monitoring/reports-routes';
import { createNotificationsService } from './monitoring/notifications-service';
import { registerNotificationsRoutes } from './monitoring/notifications-routes';
import { createMatcher } from './monitoring/matching';
import { startSegmentWatcher } from './monitoring/segment-watcher';
import { startDailyNotices, writeDailyNotices } from './monitoring/daily-notices';
import { setUpDelivery } from './delivery/delivery-setup';
import { registerClientAddress } from './infra/client-address';
import { createWhoisService, parseProviderOrder } from './whois/whois-service';
import { createWhoisProviders } from './whois/providers';
import { registerWhois } from './whois/whois-routes';
import { registerMetrics, type Metrics } from './metrics/metrics';

export interface AppDeps {
  config: Config;
  db: Kysely<Database>;
  /** The database's connection string (external or embedded): the segment watcher LISTENs on a connection of its own. */
  connectionString: string;
  limiter: RateLimiter;
  mail: MailService;
  queues: QueueSystem;
  engine: Engine;
  jwtSecret: string;
  ipSecret: string;
  isShuttingDown: () => boolean;
  /** Where pino writes (tests capture it to scan for secrets); default stdout. */
  logStream?: NodeJS.WritableStream;
  webDistDir?: string;
  /** Separates this deployment's (or test's) Redis pub/sub topic; default 'leakwell'. */
  namespace?: string;
  /** Set when METRICS_TOKEN is: requests, searches and deliveries are measured and GET /metrics answers. */
  metrics?: Metrics;
  /** Tests only: the port the domain verification fetches the `.well-known` file from (their local server's). */
  domainFilePort?: number;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The processors of the app's own queues (every queue but mail); the runtime starts them. */
    jobProcessors: Omit<Processors, 'mail'>;
  }
}

const PAYMENT_EXPIRY_SWEEP_MS = 30_000;
const WHOIS_SWEEP_MS = 60_000;

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config, db } = deps;
  const app = Fastify({
    logger: loggerOptions(config, deps.logStream),
    trustProxy: config.trustedProxies.length > 0 ? config.trustedProxies : false,
    bodyLimit: 256 * 1024,
    requestTimeout: 60_000,
    return503OnClosing: true,
    // Unknown body properties are refused (mass assignment), never coerced or dropped.
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false, useDefaults: true } },
  });
  registerErrorHandler(app);
  // Before any route: NUL and unpaired surrogates in any request text are a 400, not a 500.
  registerTextInputGuard(app);
  if (deps.metrics && config.METRICS_TOKEN) registerMetrics(app, deps.metrics, config.METRICS_TOKEN);
  registerClientAddress(app, { ipv6PrefixBits: config.IPV6_PREFIX_BITS, trustedProxies: config.trustedProxies });
  await app.register(fastifyCookie);
  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: `${config.BRAND} API`,
        version: '2.0.0',
        description: `Dashboard routes (bearer token) and the public API (header ${config.apiKeyHeader}). Errors are {"error": message}.`,
      },
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
          apiKey: { type: 'apiKey', in: 'header', name: config.apiKeyHeader },
        },
      },
    },
  });
  await app.register(fastifySwaggerUi, { routePrefix: '/api-reference', uiConfig: { docExpansion: 'list' } });

  // Search metering in process (batched counts and charges, short-lived account snapshots).
  const meter = createSearchMeter({
    db,
    flushMs: config.SEARCH_FLUSH_MS,
    reserve: config.SEARCH_BATCH_RESERVE,
    dailyLimit: config.SEARCH_DAILY_LIMIT,
    log: app.log,
  });
  // After the last request in flight: what was counted and charged in process is written.
  app.addHook('onClose', () => meter.close());

  // Closes the ended sessions' websockets on every instance. app.realtime is registered
  // below (registerRealtimeRoutes); a session ends after the app is built.
  const sessionsEnded = (ended: SessionsEnded) => {
    app.realtime.endSessions(ended).catch((error: Error) => app.log.warn({ err: { message: error.message } }, 'realtime: ended sessions not told'));
  };
  const auth = createAuthService({
    db,
    config,
    limiter: deps.limiter,
    mail: deps.mail,
    ipSecret: deps.ipSecret,
    signAccessToken: (payload) => app.jwt.sign(payload),
    onAccountChanged: meter.forget,
    onSessionsEnded: sessionsEnded,
    onBackgroundError: (error) => app.log.warn({ err: { message: error.message } }, 'auth: work after the answer failed'),
  });
  const users = createUserService(db, { onApiKeyChanged: meter.forget });
  await registerAuthentication(app, { secret: deps.jwtSecret, ttlSeconds: config.ACCESS_TOKEN_TTL_SECONDS, auth: () => auth });

  registerHealthRoutes(app, { db, isShuttingDown: deps.isShuttingDown });
  registerAuthRoutes(app, { auth, secureCookies: config.publicUrl.startsWith('https://') });
  registerTwoFactorRoutes(app, { twoFactor: auth.twoFactor });
  registerUserRoutes(app, { users, auth, apiKeyHeader: config.apiKeyHeader });
  registerSessionRoutes(app, { sessions: createSessionsService({ db, onSessionsEnded: sessionsEnded }) });
  const search = createSearchService({ db, engine: deps.metrics ? deps.metrics.instrumentEngine(deps.engine) : deps.engine, config, meter });
  registerSearchRoutes(app, { search });
  registerRemovalRoutes(app, {
    removal: createRemovalService({ db, engine: deps.engine, mail: deps.mail, config, limiter: deps.limiter }),
    optOut: createOptOutService({ db, engine: deps.engine, mail: deps.mail, config, limiter: deps.limiter }),
  });
  const reports = createReportsService({ db, engine: deps.engine });
  registerMonitoring(app, { db, allowPrivateWebhooks: config.WEBHOOK_ALLOW_PRIVATE, mail: deps.mail, config });
  // Domain verification: the file over https, but http where private targets are allowed
  // outside production (tests' local server); docs/monitoring.md "Domain verification".
  const domainVerification = createDomainVerificationService({
    db,
    verifier: createDomainVerifier({
      dnsServers: config.DNS_SERVERS,
      brand: config.BRAND,
      allowPrivate: config.WEBHOOK_ALLOW_PRIVATE,
      plainHttp: config.WEBHOOK_ALLOW_PRIVATE && config.NODE_ENV !== 'production',
      filePort: config.NODE_ENV === 'production' ? undefined : deps.domainFilePort,
    }),
    mail: deps.mail,
    limiter: deps.limiter,
    brand: config.BRAND,
    publicUrl: config.publicUrl,
  });
  app.addHook('onClose', () => domainVerification.close());
  registerDomainVerificationRoutes(app, { verification: domainVerification, brand: config.BRAND });
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
  // Credits of requests that died mid-way come back; old holds and cache rows go.
  const whoisSweep = setInterval(() => {
    whois.sweep().catch((error: Error) => app.log.warn({ err: { message: error.message } }, 'WHOIS sweep failed'));
  }, WHOIS_SWEEP_MS);
  whoisSweep.unref();
  app.addHook('onClose', async () => clearInterval(whoisSweep));
  // Everything under /v2 is one plugin whose onRequest hook is the API key guard.
  await app.register(v2Api, {
    prefix: '/v2',
    search,
    maxDepth: config.API_MAX_DEPTH,
    reports,
    authenticateApiKey: createApiKeyGuard({
      resolveKeyHash: search.userIdForApiKeyHash,
      knownKeyHash: search.knownApiKeyHash,
      limiter: deps.limiter,
      header: config.apiKeyHeader,
      bucket: { ratePerSecond: config.API_RATE_PER_SECOND, burst: config.API_RATE_BURST },
    }),
  });
  // The Monitor API V1: its own base path, bearer key guard and limits (monitor-api-v1/).
  await app.register(monitorApiV1, {
    prefix: '/monitor-api/v1',
    reports,
    limiter: deps.limiter,
    resolveKeyHash: search.userIdForApiKeyHash,
    bucket: { ratePerSecond: config.MONITOR_V1_RATE_PER_SECOND, burst: config.MONITOR_V1_BURST },
    blockSeconds: config.MONITOR_V1_BLOCK_SECONDS,
  });
  registerDataWellRoutes(app, { datawells: createDataWellService(db), limiter: deps.limiter });
  registerSubscriptionsRoutes(app, { subscriptions: createSubscriptionsService(db) });
  registerBillingRoutes(app, { billing: createBillingService(db) });
  registerEventCodeRoutes(app, { eventCodes: createEventCodeService({ db, limiter: deps.limiter }) });
  registerBannerRoutes(app, { banners: createBannerService(db) });
  registerReportsRoutes(app, { reports });
  registerNotificationsRoutes(app, { notifications: createNotificationsService(db) });
  // Monitoring: new segments into the match queue (LISTEN + sweep), the daily notices.
  const matcher = createMatcher({ db, engine: deps.engine, queues: deps.queues, log: app.log });
  app.addHook('onReady', async () => {
    const watcher = startSegmentWatcher({
      connectionString: deps.connectionString,
      db,
      queues: deps.queues,
      sweepMs: config.MONITOR_SWEEP_MS,
      log: app.log,
    });
    const daily = startDailyNotices({ queues: deps.queues, log: app.log });
    app.addHook('onClose', async () => {
      daily.close();
      await watcher.close();
    });
  });
  await registerRealtimeRoutes(app, {
    auth,
    rules: [cryptoPaymentChannelRule(db)],
    liveSessions: (sessionIds) => liveSessionIds(db, sessionIds),
    redisUrl: config.REDIS_URL,
    namespace: deps.namespace ?? 'leakwell',
  });
  const crypto = await createCryptoProvider({ config, db, publish: app.realtime.publish });
  registerCryptoRoutes(app, { db, provider: crypto, limiter: deps.limiter, invoiceMinutes: config.CRYPTO_INVOICE_MINUTES });
  const payments = createPaymentIngress({
    db,
    queues: deps.queues,
    // The crypto provider's webhook publishes to the realtime hub, hence added here.
    providers: [...createWebhookProviders({ config, db, queues: deps.queues }), crypto.webhook],
  });
  payments.register(app);
  registerCheckoutRoutes(app, { config, db, queues: deps.queues });
  // Invoices whose time ran out are expired (and their open pages told) even when the
  // provider never says so, as the sandbox does not.
  const expiry = setInterval(() => {
    expireOverduePayments(db)
      .then((expired) => expired.forEach(({ id }) => app.realtime.publish(`crypto-payment-${id}`, { status: 'expired' })))
      .catch((error: Error) => app.log.warn({ err: { message: error.message } }, 'expiring overdue payments failed'));
  }, PAYMENT_EXPIRY_SWEEP_MS);
  expiry.unref();
  app.addHook('onClose', async () => clearInterval(expiry));
  const delivery = setUpDelivery(app, { db, config, mail: deps.mail, serverSecret: deps.jwtSecret, onOutcome: deps.metrics?.delivery });
  app.decorate('jobProcessors', {
    deliver: ({ deliveryId }, attempt) => delivery.process(deliveryId, attempt),
    'monitor-match': async ({ segmentId }) => void (await matcher.matchSegment(segmentId)),
    'monitor-daily': async ({ day }) => {
      const written = await writeDailyNotices(db, day, { expiryDays: config.EXPIRY_NOTICE_DAYS, lowCredits: config.LOW_CREDITS_THRESHOLD });
      app.log.info({ day, written }, 'daily notices written');
    },
    'payment-event': ({ eventRowId }) => payments.processEvent(eventRowId),
    // Through the same route as a real provider's delivery (inject: no need to know our own address).
    'sandbox-webhook': async ({ body, headers }) => {
      const reply = await app.inject({ method: 'POST', url: '/webhooks/sandbox', payload: body, headers });
      if (reply.statusCode !== 200) throw new Error(`sandbox webhook answered ${reply.statusCode}`);
    },
  });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  await registerWebRoutes(app, {
    brand: config.BRAND,
    supportUrl: config.SUPPORT_URL,
    distDir: deps.webDistDir,
    serveSourceMaps: config.NODE_ENV !== 'production',
    // Paddle's overlay: its script from its CDN, its checkout in a frame of its own, its API.
    thirdParty: config.CARD_PROVIDER === 'paddle' ? { script: ['https://cdn.paddle.com'], frame: ['https://*.paddle.com'], connect: ['https://*.paddle.com'] } : undefined,
  });
  return app;
}
