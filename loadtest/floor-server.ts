/** The floor: a bare Fastify server answering a 20-row JSON reply (benchmark.md calibration). */
import Fastify from 'fastify';

const rows = Array.from({ length: 20 }, (_, i) => ({ id: String(i), database_name: 'Floor', email: [`user${i}@example.com`], username: [`user${i}`] }));
const app = Fastify({ logger: false });
app.get('/hello', async () => ({ hello: 'world' }));
app.post('/rows', async () => ({ balance: 1, entries: rows, took: '1µs', total: 20 }));
await app.listen({ port: Number(process.argv[2] ?? 0), host: '127.0.0.1' });
process.stdout.write(`ready ${(app.server.address() as { port: number }).port}\n`);
