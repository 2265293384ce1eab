import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Database } from '../db/schema';
import { databaseAnswers } from './health-repository';

/**
 * Liveness is shallow; readiness checks the database and whether we are shutting down;
 * /misc/check (asked by the dashboard before a checkout opens) the database and the card provider.
 */
export function registerHealthRoutes(
  app: FastifyInstance,
  deps: { db: Kysely<Database>; isShuttingDown: () => boolean; cardProviderHealthy: () => Promise<boolean> },
) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const Status = Type.Object({ status: Type.String() });
  r.get('/livez', { schema: { operationId: 'livez', tags: ['health'], response: { 200: Status } } }, async () => ({ status: 'ok' }));
  r.get(
    '/readyz',
    { schema: { operationId: 'readyz', tags: ['health'], response: { 200: Status, 503: Status } } },
    async (_request, reply) => {
      if (deps.isShuttingDown()) return reply.code(503).send({ status: 'shutting down' });
      if (await databaseAnswers(deps.db)) return { status: 'ready' };
      return reply.code(503).send({ status: 'database unavailable' });
    },
  );

  const Success = Type.Object({ success: Type.Boolean() });
  r.get(
    '/misc/check',
    {
      schema: {
        operationId: 'healthCheck',
        tags: ['health'],
        summary: 'The database and the card provider answer (asked before a checkout opens)',
        response: { 200: Success, 503: Success },
      },
    },
    async (_request, reply) => {
      const [database, provider] = await Promise.all([databaseAnswers(deps.db), deps.cardProviderHealthy()]);
      if (database && provider) return { success: true };
      return reply.code(503).send({ success: false });
    },
  );
}
