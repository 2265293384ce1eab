/**
 * Monitoring: tasks, channels, domains and their verification, reports and notifications,
 * on every surface (dashboard, /v2/monitoring, the Monitor API V1), and the work behind them:
 * new segments into the match queue (LISTEN + sweep), the daily notices, their processors.
 * Exposes its services as `app.monitoring` (delivery reads channels' confirmations through it).
 */
import fp from 'fastify-plugin';
import type { AppDeps } from '../app-deps';
import { registerMonitoring } from './monitoring-routes';
import { createDomainVerifier } from './domain-verifier';
import { createDomainVerificationService } from './domain-verification-service';
import { registerDomainVerificationRoutes } from './domain-verification-routes';
import { createDomainOverview } from './domain-overview';
import { registerDomainOverviewRoutes } from './domain-overview-routes';
import { createReportsService } from './reports-service';
import { registerReportsRoutes } from './reports-routes';
import { createNotificationsService } from './notifications-service';
import { registerNotificationsRoutes } from './notifications-routes';
import { createMatcher } from './matching';
import { startSegmentWatcher, sweepPending } from './segment-watcher';
import { DAILY_NOTICES_EVERY_MS, enqueueDailyNotices, writeDailyNotices } from './daily-notices';
import { registerMonitoringV2Routes } from './monitoring-v2-routes';
import { registerReportsV2Routes } from './reports-v2-routes';
import { registerMonitoringV1Routes } from './monitoring-v1-routes';

export const monitoringPlugin = fp<AppDeps>(
  async (app, deps) => {
    const { db, config } = deps;
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
    registerDomainOverviewRoutes(app, { overview: createDomainOverview({ db, search: () => app.searchService }) });
    registerReportsRoutes(app, { reports });
    registerNotificationsRoutes(app, { notifications: createNotificationsService(db) });

    const { tasks, channels } = app.monitoring;
    app.v2Routes((v2) => {
      registerReportsV2Routes(v2, { reports });
      registerMonitoringV2Routes(v2);
    });
    app.monitorV1Routes((v1) => registerMonitoringV1Routes(v1, { tasks, channels, reports }));

    const matcher = createMatcher({ db, engine: deps.engine, queues: deps.queues, log: app.log });
    app.jobs.register('monitor-match', async ({ segmentId }) => void (await matcher.matchSegment(segmentId)));
    app.jobs.register('monitor-daily', async ({ day }) => {
      const written = await writeDailyNotices(db, day, { expiryDays: config.EXPIRY_NOTICE_DAYS, lowCredits: config.LOW_CREDITS_THRESHOLD });
      app.log.info({ day, written }, 'daily notices written');
    });
    app.jobs.every('monitor-daily', DAILY_NOTICES_EVERY_MS, () => enqueueDailyNotices(deps.queues));
    app.jobs.every('monitor-sweep', config.MONITOR_SWEEP_MS, () => sweepPending(db, deps.queues));
    // Once the app serves: new segments into the match queue (LISTEN, and a sweep once listening).
    app.addHook('onReady', async () => {
      const watcher = startSegmentWatcher({
        connectionString: deps.connectionString,
        db,
        queues: deps.queues,
        log: app.log,
      });
      app.addHook('onClose', () => watcher.close());
    });
  },
  { name: 'monitoring', fastify: '5.x', dependencies: ['auth', 'jobs', 'api-v2', 'monitor-api-v1', 'search'] },
);
