/**
 * The best-known breach-notification service's two APIs over our corpus, so its clients
 * work against this server by changing their base URL (docs/api-compatibility.md, "Breach
 * API v3 and Pwned Passwords"): `GET /range/{prefix}` (no key) and `/api/v3/*` (the
 * catalogue without a key, the searches with `hibp-api-key`). Every error under /api/v3
 * answers the service's JSON, `{"statusCode": N, "message": "..."}`.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { AppDeps } from '../app-deps';
import { AppError } from '../infra/errors';
import { plainValidationMessage } from '../infra/validation-messages';
import { registerRangeRoutes } from './range-routes';
import { registerCatalogueRoutes } from './v3-catalogue-routes';
import { registerAccountRoutes } from './v3-account-routes';

export function v3Error(reply: FastifyReply, statusCode: number, message: string, headers: Record<string, string> = {}) {
  return reply.code(statusCode).headers(headers).send({ statusCode, message });
}

function v3ErrorHandler(error: FastifyError | AppError, request: FastifyRequest, reply: FastifyReply) {
  if (error instanceof AppError) {
    if (error.statusCode >= 500) request.log.error({ err: error }, 'request failed');
    return v3Error(reply, error.statusCode, error.message, error.headers);
  }
  const invalid = plainValidationMessage(error as FastifyError);
  if (invalid) return v3Error(reply, 400, invalid);
  const status = (error as FastifyError).statusCode;
  if (status && status >= 400 && status < 500) return v3Error(reply, status, error.message);
  request.log.error({ err: error }, 'request failed');
  return v3Error(reply, 500, 'Internal Server Error');
}

export const breachApiPlugin = fp<AppDeps>(
  async (app, deps) => {
    registerRangeRoutes(app, deps);
    await app.register(
      async (v3: FastifyInstance) => {
        v3.setErrorHandler(v3ErrorHandler);
        // A call the API does not have (or a keyed call without its value) in the same shape.
        v3.setNotFoundHandler((_request, reply) => v3Error(reply, 404, 'Not found'));
        registerCatalogueRoutes(v3, deps);
        registerAccountRoutes(v3, deps);
      },
      { prefix: '/api/v3' },
    );
  },
  { name: 'breach-api', fastify: '5.x', dependencies: ['search-meter', 'search'] },
);
