/**
 * What the runtime (runtime.ts, or a test) hands the app: the infrastructure it started.
 * Every feature plugin is registered with these as its options and takes what it needs.
 */
import type { Kysely } from 'kysely';
import type { Config } from './config';
import type { Database } from './db/schema';
import type { RateLimiter } from './infra/rate-limiter';
import type { QueueSystem } from './infra/queues';
import type { MailService } from './mail/mail-service';
import type { Metrics } from './metrics/metrics';
import type { Engine } from '../../engine/index';

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
