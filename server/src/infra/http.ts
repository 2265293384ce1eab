/**
 * What every route relies on, registered before any feature: the error answers, the guard
 * against bad request text, the client's address, cookies and the OpenAPI document.
 */
import type { FastifyInstance } from 'fastify';
import fastifyCookie from '@fastify/cookie';
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import type { Config } from '../config';
import { registerErrorHandler } from './errors';
import { registerTextInputGuard } from './text-input';
import { registerClientAddress } from './client-address';

export function registerErrorAnswers(app: FastifyInstance): void {
  registerErrorHandler(app);
  // Before any route: NUL and unpaired surrogates in any request text are a 400, not a 500.
  registerTextInputGuard(app);
}

export async function registerHttpInfrastructure(app: FastifyInstance, config: Config): Promise<void> {
  registerClientAddress(app, { ipv6PrefixBits: config.IPV6_PREFIX_BITS, trustedProxies: config.trustedProxies });
  await app.register(fastifyCookie);
  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: `${config.BRAND} API`,
        version: '2.0.0',
        description: `Dashboard routes (bearer token) and the public API (header ${config.apiKeyHeader}). Errors are {"error": message}.`,
      },
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
          apiKey: { type: 'apiKey', in: 'header', name: config.apiKeyHeader },
          hibpApiKey: { type: 'apiKey', in: 'header', name: 'hibp-api-key' },
        },
      },
    },
  });
  await app.register(fastifySwaggerUi, { routePrefix: '/api-reference', uiConfig: { docExpansion: 'list' } });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
