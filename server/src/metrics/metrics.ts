/**
 * Prometheus metrics (docs/operations.md): `GET /metrics` in the text exposition format,
 * only when METRICS_TOKEN is set (then with `Authorization: Bearer <token>`); without it
 * the route does not exist (404) and no hook runs, so nothing is measured.
 *
 * Labels never carry user data: routes are Fastify's route patterns (`/users/:id`, never the
 * URL), queries are reduced to their class (exact, wildcard, regex, password checks),
 * deliveries to their channel kind. Every instance reports its own counters; the gauges read
 * from the index and the queues describe what this instance sees.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Engine } from '../../../engine/index';
import { EngineQueryError, EngineTimeoutError } from '../../../engine/index';
import type { QueueSystem } from '../infra/queues';
import { treeBytes } from '../infra/tree-bytes';

export type DeliveryOutcome = 'sent' | 'retry' | 'failed' | 'skipped';

export interface Metrics {
  registry: Registry;
  /** The engine, its search calls timed by query class (every other member as it is). */
  instrumentEngine(engine: Engine): Engine;
  /** One answered request: its route pattern (never the URL), status and time. */
  request(method: string, route: string, status: number, seconds: number): void;
  jobFailed(queue: string): void;
  delivery(channel: string, outcome: DeliveryOutcome): void;
}

const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** Whether a published segment is a merge (it lists the ingests it holds) rather than one ingest. */
function isMerge(indexDir: string, segmentId: string): boolean {
  try {
    const meta = JSON.parse(fs.readFileSync(path.join(indexDir, `seg-${segmentId}`, 'segment.json'), 'utf8')) as { sources?: unknown[] };
    return Array.isArray(meta.sources);
  } catch {
    return false;
  }
}

export function createMetrics(sources: { queues: QueueSystem; engine?: Engine; indexDir: string }): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'leakwell_' });

  const requests = new Histogram({
    name: 'leakwell_http_request_duration_seconds',
    help: 'HTTP requests by method, route pattern and status, with their latency.',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const rateLimited = new Counter({
    name: 'leakwell_rate_limited_total',
    help: 'Requests refused with 429 (rate limits, login throttles, search concurrency and daily limits), by route pattern.',
    labelNames: ['route'] as const,
    registers: [registry],
  });
  const searches = new Histogram({
    name: 'leakwell_search_engine_seconds',
    help: 'Searches and password checks by query class and outcome, with the engine time of each.',
    labelNames: ['class', 'outcome'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const jobFailures = new Counter({
    name: 'leakwell_job_failures_total',
    help: 'Background jobs that failed an attempt (retried unless it was the last), by queue.',
    labelNames: ['queue'] as const,
    registers: [registry],
  });
  const deliveries = new Counter({
    name: 'leakwell_deliveries_total',
    help: 'Monitoring alert delivery attempts by channel kind and outcome (sent, retry, failed: given up, skipped: channel removed or unconfirmed).',
    labelNames: ['channel', 'outcome'] as const,
    registers: [registry],
  });
  const published = new Counter({
    name: 'leakwell_index_segments_published_total',
    help: 'Segments this instance saw appear in the index since it started, by kind (ingest or merge).',
    labelNames: ['kind'] as const,
    registers: [registry],
  });
  new Gauge({
    name: 'leakwell_queue_jobs',
    help: 'Jobs in each queue by state (waiting, active, delayed, failed).',
    labelNames: ['queue', 'state'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      const counts = await sources.queues.counts().catch(() => undefined);
      for (const [queue, states] of Object.entries(counts ?? {})) {
        for (const [state, n] of Object.entries(states)) this.set({ queue, state }, n);
      }
    },
  });

  // The index: records, segments, removed records, generation and bytes, read at each scrape.
  const engine = sources.engine;
  let seen: Set<string> | undefined;
  let bytes = { generation: -1, value: 0 };
  const indexStats = async () => {
    if (!engine) return undefined;
    const stats = await engine.stats().catch(() => undefined);
    if (!stats) return undefined;
    if (seen) {
      for (const id of stats.segmentIds) if (!seen.has(id)) published.inc({ kind: isMerge(sources.indexDir, id) ? 'merge' : 'ingest' });
    }
    seen = new Set(stats.segmentIds);
    if (bytes.generation !== stats.generation) bytes = { generation: stats.generation, value: treeBytes(sources.indexDir) };
    return stats;
  };
  void indexStats();
  // One read of the stats per scrape, shared by the gauges (collected concurrently).
  let pending: { at: number; stats: ReturnType<typeof indexStats> } | undefined;
  const scrapeStats = () => {
    if (!pending || Date.now() - pending.at > 500) pending = { at: Date.now(), stats: indexStats() };
    return pending.stats;
  };
  const indexGauge = (name: 'records' | 'segments' | 'removed' | 'generation' | 'bytes', help: string) =>
    new Gauge({
      name: `leakwell_index_${name}`,
      help,
      registers: [registry],
      async collect() {
        const stats = await scrapeStats();
        if (stats) this.set(name === 'bytes' ? bytes.value : stats[name]);
      },
    });
  indexGauge('records', 'Records in the index (removed ones included: they stay hidden until a merge drops them).');
  indexGauge('removed', 'Records removed (tombstoned) and not yet dropped by a merge.');
  indexGauge('segments', 'Published segments (many more than the ingest\'s merge threshold means merges are behind).');
  indexGauge('generation', 'Manifest generation: every ingest, merge or removal bumps it.');
  indexGauge('bytes', 'Bytes of the index folder on disk.');

  const classOf = (mode: string | undefined) => (mode === 'wildcard' || mode === 'regex' || mode === 'exact' ? mode : 'auto');
  const outcomeOf = (error: unknown) => (error instanceof EngineTimeoutError ? 'timeout' : error instanceof EngineQueryError ? 'refused' : 'error');
  const timed = <T extends { tookMicros?: number }>(cls: string, run: () => Promise<T>): Promise<T> => {
    const started = process.hrtime.bigint();
    return run().then(
      (result) => {
        const micros = typeof result.tookMicros === 'number' ? result.tookMicros : Number(process.hrtime.bigint() - started) / 1000;
        searches.observe({ class: cls, outcome: 'ok' }, micros / 1e6);
        return result;
      },
      (error: unknown) => {
        searches.observe({ class: cls, outcome: outcomeOf(error) }, Number(process.hrtime.bigint() - started) / 1e9);
        throw error;
      },
    );
  };

  return {
    registry,
    instrumentEngine(target) {
      const wrapped: Partial<Engine> = {
        search: (req) => timed(classOf(req.mode), () => target.search(req)),
        searchApiText: (req, le) => timed(classOf(req.mode), () => target.searchApiText(req, le)),
        // The reply's bytes carry no figure to read back: the call's own time is observed.
        searchApiReply: (req, le, balance) => timed(classOf(req.mode), () => target.searchApiReply(req, le, balance) as Promise<Buffer & { tookMicros?: number }>),
        passwordCount: (hash) => timed('password_check', () => target.passwordCount(hash)),
        passwordRange: (prefix) => timed('password_range', () => target.passwordRange(prefix) as Promise<Awaited<ReturnType<Engine['passwordRange']>> & { tookMicros?: number }>),
      };
      return new Proxy(target, {
        get(object, key) {
          if (Object.hasOwn(wrapped, key)) return wrapped[key as keyof Engine];
          const value = Reflect.get(object, key, object) as unknown;
          return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(object) : value;
        },
      });
    },
    request(method, route, status, seconds) {
      requests.observe({ method, route, status: String(status) }, seconds);
      if (status === 429) rateLimited.inc({ route });
    },
    jobFailed: (queue) => jobFailures.inc({ queue }),
    delivery: (channel, outcome) => deliveries.inc({ channel, outcome }),
  };
}

const digest = (value: string) => createHash('sha256').update(value).digest();

/**
 * The request hooks and `GET /metrics` (hidden from the API reference). The token is
 * compared in constant time (digests of equal length).
 */
export function registerMetrics(app: FastifyInstance, metrics: Metrics, token: string): void {
  app.addHook('onResponse', (request, reply, done) => {
    metrics.request(request.method, request.routeOptions.url ?? 'unmatched', reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
  const expected = digest(token);
  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    // The scheme is case-insensitive (RFC 9110 §11.1); the token is compared whole.
    const given = /^Bearer (.*)$/is.exec(request.headers.authorization ?? '')?.[1];
    if (given === undefined || !timingSafeEqual(digest(given), expected)) {
      return reply.code(401).header('www-authenticate', 'Bearer realm="metrics"').send({ error: 'unauthorized' });
    }
    return reply.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  });
}
