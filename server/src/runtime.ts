/**
 * Starts everything a serving process needs on the configured infrastructure:
 * database (embedded or external), Redis when configured, queues and their workers,
 * mail, and the app. Used by server.ts and by the tests, so both run the same wiring.
 */
import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import { Redis } from 'ioredis';
import type { Config } from './config';
import type { Database } from './db/schema';
import { buildApp } from './app';
import { openDatabase } from './infra/database';
import { assertNamespace, createQueueSystem, type QueueSystem } from './infra/queues';
import { createMetrics, type Metrics } from './metrics/metrics';
import { createFailSafeRateLimiter, createMemoryRateLimiter, type RateLimiter } from './infra/rate-limiter';
import { MAIL_PURGE_EVERY_MS, createMailService, outboxRetentionMs, type MailService } from './mail/mail-service';
import { loadOrCreateSecret } from './infra/secrets';
import { webhookRetryDelays } from './delivery/deliver';
import { openEngine, type Engine } from '../../engine/index';
import { sharedBatchReserve } from './search/search-meter';

export interface Runtime {
  app: FastifyInstance;
  db: Kysely<Database>;
  engine: Engine;
  config: Config;
  connectionString: string;
  /** Graceful: not ready, drain HTTP, close workers and queues, then pools and the database. */
  close(): Promise<void>;
}

export interface RuntimeOptions {
  logStream?: NodeJS.WritableStream;
  /** Where the outbox prints links when there is no SMTP; null for silence. */
  mailConsole?: NodeJS.WritableStream | null;
  /** Separates queues and rate-limit keys of parallel test instances. */
  namespace?: string;
  webDistDir?: string;
  /** Tests only: the port of the domain verification's `.well-known` file (AppDeps.domainFilePort). */
  domainFilePort?: number;
}

/** Redis when configured. */
function connectRedis(config: Config): Redis | undefined {
  const redis = config.REDIS_URL ? new Redis(config.REDIS_URL, { maxRetriesPerRequest: 2, enableOfflineQueue: true }) : undefined;
  // ioredis reconnects by itself; without a listener it prints every failed attempt. The
  // limiter says once that it keeps limits in memory meanwhile.
  redis?.on('error', () => {});
  return redis;
}

/** Rate limits outlive a Redis outage: kept in memory meanwhile (said once in the log). */
function createRateLimiter(redis: Redis | undefined, namespace: string): RateLimiter {
  const limiterLog = (message: string) => process.stderr.write(`${message}\n`);
  return redis
    ? createFailSafeRateLimiter(redis, `${namespace}:rl:`, {
        onFallback: (reason) => limiterLog(`rate limits kept in memory while Redis is unavailable (${reason})`),
        onRecovered: () => limiterLog('rate limits back in Redis'),
      })
    : createMemoryRateLimiter();
}

function createOutbox(config: Config, db: Kysely<Database>, queues: QueueSystem, mailConsole: RuntimeOptions['mailConsole']): MailService {
  return createMailService({
    db,
    queues,
    smtpUrl: config.SMTP_URL,
    from: config.mailFrom,
    console: mailConsole,
    retentionMs: outboxRetentionMs(config),
  });
}

async function openServingEngine(config: Config): Promise<Engine> {
  const engine = await openEngine(config.indexDir, {
    ...(config.ENGINE_THREADS > 0 ? { threads: config.ENGINE_THREADS } : {}),
    storeCacheMb: config.ENGINE_STORE_CACHE_MB,
  });
  // Segments published by the ingest CLI (another process) are served without a restart.
  engine.autoRefresh(1000);
  return engine;
}

/**
 * With Redis, more instances may meter one account: below this reserve, searches on the
 * others could pass its credits or daily limit before this one sees them (search-meter.ts).
 */
function warnOnSharedBatchReserve(app: FastifyInstance, config: Config) {
  const reserveNeeded = sharedBatchReserve({ burst: config.API_RATE_BURST, ratePerSecond: config.API_RATE_PER_SECOND }, config.SEARCH_FLUSH_MS);
  if (config.REDIS_URL && config.SEARCH_BATCH_RESERVE < reserveNeeded) {
    app.log.warn(
      { SEARCH_BATCH_RESERVE: config.SEARCH_BATCH_RESERVE, needed: reserveNeeded },
      'SEARCH_BATCH_RESERVE is below API_RATE_BURST + API_RATE_PER_SECOND × (1 s + 2 × SEARCH_FLUSH_MS): with several instances an account may search past its credits',
    );
  }
}

function startJobWorkers(app: FastifyInstance, queues: QueueSystem, mail: MailService, metrics: Metrics | undefined) {
  app.jobs.every('mail-purge', MAIL_PURGE_EVERY_MS, () => mail.purgeExpired());
  queues.startWorkers({ mail: ({ outboxId }) => mail.deliver(outboxId), ...app.jobProcessors }, (name, error) => {
    metrics?.jobFailed(name);
    app.log.warn({ queue: name, err: { message: error.message } }, 'job failed');
  });
}

export async function startRuntime(config: Config, options: RuntimeOptions = {}): Promise<Runtime> {
  const namespace = options.namespace ?? 'leakwell';
  // Before the database starts: a bad name would otherwise leave it running.
  assertNamespace(namespace);
  const database = await openDatabase(config, (line) => process.stderr.write(`[postgres] ${line}\n`));
  const redis = connectRedis(config);
  const limiter = createRateLimiter(redis, namespace);
  const queues = createQueueSystem({
    connectionString: database.connectionString,
    redisUrl: config.REDIS_URL,
    namespace,
    retrySchedules: { deliver: { delaysMs: webhookRetryDelays(config) } },
  });
  const mail = createOutbox(config, database.db, queues, options.mailConsole);
  let shuttingDown = false;
  let engine: Engine | undefined;
  try {
    engine = await openServingEngine(config);
    const metrics = config.METRICS_TOKEN ? createMetrics({ queues, engine, indexDir: config.indexDir }) : undefined;
    const [jwtSecret, ipSecret] = [
      await loadOrCreateSecret(database.db, 'jwt', config.JWT_SECRET),
      await loadOrCreateSecret(database.db, 'ip-hmac'),
    ];
    const app = await buildApp({
      config,
      db: database.db,
      connectionString: database.connectionString,
      limiter,
      mail,
      queues,
      engine,
      jwtSecret,
      ipSecret,
      isShuttingDown: () => shuttingDown,
      logStream: options.logStream,
      webDistDir: options.webDistDir,
      namespace,
      domainFilePort: options.domainFilePort,
      metrics,
    });
    warnOnSharedBatchReserve(app, config);
    startJobWorkers(app, queues, mail, metrics);
    await queues.ready();
    await queues.schedule(app.jobs.schedules());
    return {
      app,
      db: database.db,
      engine,
      config,
      connectionString: database.connectionString,
      async close() {
        shuttingDown = true;
        await app.close();
        await queues.close();
        await engine?.close();
        mail.close();
        await redis?.quit().catch(() => redis.disconnect());
        await database.close();
      },
    };
  } catch (error) {
    await engine?.close().catch(() => {});
    await queues.close().catch(() => {});
    await redis?.quit().catch(() => {});
    await database.close();
    throw error;
  }
}
