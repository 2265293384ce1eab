/** The counters and histograms of metrics.ts, registered in the order the scrape lists them. */
import { Counter, Histogram, type Registry } from 'prom-client';

const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export function createMetricFamilies(registry: Registry) {
  return {
    requests: new Histogram({
      name: 'leakwell_http_request_duration_seconds',
      help: 'HTTP requests by method, route pattern and status, with their latency.',
      labelNames: ['method', 'route', 'status'] as const,
      buckets: LATENCY_BUCKETS,
      registers: [registry],
    }),
    rateLimited: new Counter({
      name: 'leakwell_rate_limited_total',
      help: 'Requests refused with 429 (rate limits, login throttles, search concurrency and daily limits), by route pattern.',
      labelNames: ['route'] as const,
      registers: [registry],
    }),
    searches: new Histogram({
      name: 'leakwell_search_engine_seconds',
      help: 'Searches and password checks by query class and outcome, with the engine time of each.',
      labelNames: ['class', 'outcome'] as const,
      buckets: LATENCY_BUCKETS,
      registers: [registry],
    }),
    jobFailures: new Counter({
      name: 'leakwell_job_failures_total',
      help: 'Background jobs that failed an attempt (retried unless it was the last), by queue.',
      labelNames: ['queue'] as const,
      registers: [registry],
    }),
    deliveries: new Counter({
      name: 'leakwell_deliveries_total',
      help: 'Monitoring alert delivery attempts by channel kind and outcome (sent, retry, failed: given up, skipped: channel removed or unconfirmed).',
      labelNames: ['channel', 'outcome'] as const,
      registers: [registry],
    }),
    published: new Counter({
      name: 'leakwell_index_segments_published_total',
      help: 'Segments this instance saw appear in the index since it started, by kind (ingest or merge).',
      labelNames: ['kind'] as const,
      registers: [registry],
    }),
  };
}

export type MetricFamilies = ReturnType<typeof createMetricFamilies>;
