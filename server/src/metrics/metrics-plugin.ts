/** Metrics: requests measured and GET /metrics answered, when METRICS_TOKEN is set. First, so every request is measured. */
import fp from 'fastify-plugin';
import type { AppDeps } from '../app-deps';
import { registerMetrics } from './metrics';

export const metricsPlugin = fp<AppDeps>(
  async (app, { metrics, config }) => {
    if (metrics && config.METRICS_TOKEN) registerMetrics(app, metrics, config.METRICS_TOKEN);
  },
  { name: 'metrics', fastify: '5.x' },
);
