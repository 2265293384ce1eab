import type { FastifyInstance } from 'fastify';
import { sql, type Kysely } from 'kysely';
import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Database } from '../db/schema';

/** Liveness is shallow; readiness checks the database and whether we are shutting down. */
export function registerHealthRoutes(app: FastifyInstance, deps: { db: Kysely<Database>; isShuttingDown: () => boolean }) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const Status = Type.Object({ status: Type.String() });
  r.get('/livez', { schema: { operationId: 'livez', tags: ['health'], response: { 200: Status } } }, async () => ({ status: 'ok' }));
  r.get(
    '/readyz',
    { schema: { operationId: 'readyz', tags: ['health'], response: { 200: Status, 503: Status } } },
    async (_request, reply) => {
      if (deps.isShuttingDown()) return reply.code(503).send({ status: 'shutting down' });
      try {
        await sql`select 1`.execute(deps.db);
        return { status: 'ready' };
      } catch {
        return reply.code(503).send({ status: 'database unavailable' });
      }
    },
  );
  // GET /misc/check (the database and the card provider) is in payments/checkout-routes.ts.
}
