/**
 * The floor: a bare Fastify server answering a 20-row JSON reply (benchmark.md calibration);
 * and for the sequential client, the framework's own share of a search: `GET /livez` and a
 * `POST /v2/search` taking the same JSON body under the same schema as the product's, with no
 * application code behind it (a constant one-hit reply naming `argv[3]`).
 */
import Fastify from 'fastify';

const rows = Array.from({ length: 20 }, (_, i) => ({ id: String(i), database_name: 'Floor', email: [`user${i}@example.com`], username: [`user${i}`] }));
const app = Fastify({ logger: false });
app.get('/hello', async () => ({ hello: 'world' }));
app.post('/rows', async () => ({ balance: 1, entries: rows, took: '1µs', total: 20 }));
app.get('/livez', async () => ({ status: 'ok' }));
const oneHit = Buffer.from(JSON.stringify({ balance: 1, entries: [{ id: '1', database_name: 'Floor', email: [process.argv[3] ?? 'floor@example.com'] }], took: '1µs', total: 1 }));
app.post(
  '/v2/search',
  {
    schema: {
      body: {
        type: 'object',
        properties: {
          query: { type: 'string', minLength: 1, maxLength: 1000 },
          page: { type: 'integer', minimum: 1, maximum: 50_000, default: 1 },
          size: { type: 'integer', minimum: 1, maximum: 10_000, default: 100 },
          regex: { type: 'boolean', default: false },
          wildcard: { type: 'boolean', default: false },
          de_dupe: { type: 'boolean', default: false },
        },
        required: ['query'],
        additionalProperties: false,
      },
    },
  },
  (_request, reply) => {
    void reply.type('application/json; charset=utf-8').send(oneHit);
  },
);
await app.listen({ port: Number(process.argv[2] ?? 0), host: '127.0.0.1' });
process.stdout.write(`ready ${(app.server.address() as { port: number }).port}\n`);
