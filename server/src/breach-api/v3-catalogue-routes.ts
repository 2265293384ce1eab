/** Breach API v3, the public catalogue (no key): breaches, breach/{name}, latestbreach, dataclasses. */
import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../app-deps';

export function registerCatalogueRoutes(_v3: FastifyInstance, _deps: AppDeps): void {}
