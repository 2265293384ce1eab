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
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { Registry, collectDefaultMetrics } from 'prom-client';
import type { Engine } from '../../../engine/index';
import type { QueueSystem } from '../infra/queues';
import { createMetricFamilies } from './metric-families';
import { registerIndexGauges, registerQueueGauge } from './gauges';
import { instrumentEngine } from './engine-timing';

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

export function createMetrics(sources: { queues: QueueSystem; engine?: Engine; indexDir: string }): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'leakwell_' });
  const { requests, rateLimited, searches, jobFailures, deliveries, published } = createMetricFamilies(registry);
  registerQueueGauge(registry, sources.queues);
  registerIndexGauges(registry, sources, published);

  return {
    registry,
    instrumentEngine: (target) => instrumentEngine(target, searches),
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
