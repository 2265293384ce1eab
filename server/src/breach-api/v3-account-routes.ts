/**
 * Breach API v3, the keyed searches (`hibp-api-key`): breachedaccount, breacheddomain,
 * subscribeddomains, stealerlogs*, pasteaccount, subscription/status.
 */
import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../app-deps';

export function registerAccountRoutes(_v3: FastifyInstance, _deps: AppDeps): void {}
