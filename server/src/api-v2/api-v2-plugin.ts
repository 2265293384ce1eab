/**
 * The public API's key guard. Features put their `/v2` routes behind it with
 * `app.v2Routes(routes)`: each call is an encapsulated context under `/v2` whose `onRequest`
 * hook is the guard (API key and rate limits, auth/api-key-service.ts), so a route is guarded by
 * being registered there. Handlers read the caller from `request.apiKeyUserId`.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { AppDeps } from '../app-deps';
import { dropUnknownBodyProperties } from '../infra/unknown-properties';
import { createApiKeyGuard } from '../auth/api-key-service';

declare module 'fastify' {
  interface FastifyRequest {
    /** The account behind the request's API key; set by the /v2 guard before anything else runs. */
    apiKeyUserId: string;
  }
  interface FastifyInstance {
    /** Registers `routes` under /v2, behind the API key guard (paths relative to /v2). */
    v2Routes(routes: (v2: FastifyInstance) => void | Promise<void>): void;
  }
}

/** The guard as an `onRequest` hook of `v2`, and its body handling. */
function guard(v2: FastifyInstance, authenticateApiKey: (request: FastifyRequest) => string | Promise<string>) {
  // Before the body is read or validated: an unauthenticated request gets no further. A
  // callback hook, so that the guard's immediate answer (a known key, far from its limits)
  // costs no promise.
  v2.addHook('onRequest', (request, _reply, done) => {
    let answer: string | Promise<string>;
    try {
      answer = authenticateApiKey(request);
    } catch (error) {
      done(error as Error);
      return;
    }
    if (typeof answer === 'string') {
      request.apiKeyUserId = answer;
      done();
      return;
    }
    answer.then(
      (userId) => {
        request.apiKeyUserId = userId;
        done();
      },
      (error: Error) => done(error),
    );
  });
  // Undeclared body properties are dropped, not refused (infra/unknown-properties.ts).
  v2.addHook('preValidation', dropUnknownBodyProperties);
}

export const apiV2Plugin = fp<AppDeps>(
  async (app, { config, limiter }) => {
    const authenticateApiKey = createApiKeyGuard({
      resolveKeyHash: app.apiKeys.userIdFor,
      knownKeyHash: app.apiKeys.known,
      limiter,
      header: config.apiKeyHeader,
      bucket: { ratePerSecond: config.API_RATE_PER_SECOND, burst: config.API_RATE_BURST },
    });
    app.decorateRequest('apiKeyUserId', '');
    // On the calling plugin's instance, so the routes load with (and in the order of) their feature.
    app.decorate('v2Routes', function (this: FastifyInstance, routes: (v2: FastifyInstance) => void | Promise<void>) {
      void this.register(
        async (v2) => {
          guard(v2, authenticateApiKey);
          await routes(v2);
        },
        { prefix: '/v2' },
      );
    });
  },
  { name: 'api-v2', fastify: '5.x', dependencies: ['search-meter'] },
);
