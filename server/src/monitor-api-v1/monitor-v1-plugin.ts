/**
 * Monitor API V1 (docs/monitoring.md "Monitor API V1"), served under its own base path
 * (`/monitor-api/v1`) so a client given a base URL works. Features put their V1 calls behind
 * it with `app.monitorV1Routes(routes)`: each call is an encapsulated context under the base
 * path whose `onRequest` hook is the guard (bearer API key, its own limits; one guard, so
 * one set of limits for every context) and whose error handler speaks V1's codes: 429
 * 'Too Many Requests.', 401 'Invalid API credentials.', 404 'Method not allowed.' for an
 * unknown method and for an id that is not the caller's (V1's table has that one 404), 302
 * for a missing or invalid field (every refusal of a value or a limit, with its message).
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { AppDeps } from '../app-deps';
import { AppError } from '../infra/errors';
import { dropUnknownBodyProperties } from '../infra/unknown-properties';
import { plainValidationMessage } from '../infra/validation-messages';
import { createMonitorV1Guard } from './monitor-v1-guard';
import { V1_METHOD_NOT_ALLOWED } from './monitor-v1-schemas';

declare module 'fastify' {
  interface FastifyRequest {
    /** The account behind the Monitor API V1 bearer key; set by the V1 guard. */
    monitorV1UserId: string;
  }
  interface FastifyInstance {
    /** Registers `routes` under /monitor-api/v1, behind V1's guard and error handling (paths relative to it). */
    monitorV1Routes(routes: (v1: FastifyInstance) => void | Promise<void>): void;
  }
}

const PREFIX = '/monitor-api/v1';

function sendError(reply: FastifyReply, status: number, message: string, headers: Record<string, string> = {}) {
  return reply.code(status).headers(headers).send({ error: message });
}

function v1ErrorHandler(error: FastifyError | AppError, request: FastifyRequest, reply: FastifyReply) {
  if (error instanceof AppError) {
    // V1 has one 404 and one text for it: an id that is not the caller's answers it too.
    if (error.statusCode === 404) return sendError(reply, 404, V1_METHOD_NOT_ALLOWED);
    // Every refusal of a value or a limit is a field V1 calls invalid.
    const code = error.statusCode === 400 ? 302 : error.statusCode;
    if (code >= 500) request.log.error({ err: error }, 'request failed');
    return sendError(reply, code, error.message, error.headers);
  }
  const invalid = plainValidationMessage(error as FastifyError);
  if (invalid) return sendError(reply, 302, invalid.replace(/^Invalid request: /, 'Invalid or missing field: '));
  const status = (error as FastifyError).statusCode;
  if (status && status >= 400 && status < 500 && status !== 429) {
    return sendError(reply, 302, `Invalid or missing field: ${error.message}`);
  }
  request.log.error({ err: error }, 'request failed');
  return sendError(reply, 500, 'Internal Server Error');
}

export const monitorV1Plugin = fp<AppDeps>(
  async (app, { config, limiter }) => {
    const authenticate = createMonitorV1Guard({
      limiter,
      resolveKeyHash: app.apiKeys.userIdFor,
      bucket: { ratePerSecond: config.MONITOR_V1_RATE_PER_SECOND, burst: config.MONITOR_V1_BURST },
      blockSeconds: config.MONITOR_V1_BLOCK_SECONDS,
    });
    app.decorateRequest('monitorV1UserId', '');
    /** The guard, body handling and error answers of every V1 context. */
    const asV1 = (v1: FastifyInstance) => {
      v1.addHook('onRequest', async (request) => {
        request.monitorV1UserId = await authenticate(request);
      });
      // A call without a body is a call with every optional field left out.
      v1.addHook('preValidation', async (request) => {
        if (request.body === undefined || request.body === null) request.body = {};
      });
      // Undeclared body properties are dropped, not refused (infra/unknown-properties.ts).
      v1.addHook('preValidation', dropUnknownBodyProperties);
      v1.setErrorHandler(v1ErrorHandler);
    };
    // The base context holds the answer to an unknown method (after the guard, as every call).
    await app.register(
      async (v1) => {
        asV1(v1);
        v1.setNotFoundHandler((_request, reply) => sendError(reply, 404, V1_METHOD_NOT_ALLOWED));
      },
      { prefix: PREFIX },
    );
    // On the calling plugin's instance, so the routes load with (and in the order of) their feature.
    app.decorate('monitorV1Routes', function (this: FastifyInstance, routes: (v1: FastifyInstance) => void | Promise<void>) {
      void this.register(
        async (v1) => {
          asV1(v1);
          await routes(v1);
        },
        { prefix: PREFIX },
      );
    });
  },
  { name: 'monitor-api-v1', fastify: '5.x', dependencies: ['search-meter'] },
);
