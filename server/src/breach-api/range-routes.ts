/** Pwned Passwords range API: `GET /range/{prefix}` (docs/api-compatibility.md). */
import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../app-deps';

export function registerRangeRoutes(_app: FastifyInstance, _deps: AppDeps): void {}
