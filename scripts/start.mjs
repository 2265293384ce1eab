// `npm start`, for development: installs and builds whatever is missing or stale (the
// dependencies, the engine addon, the dashboard, the server's bundle), then runs the built
// server on its embedded defaults (or whatever the environment configures). Signals go to
// the server, which shuts down gracefully and stops the embedded PostgreSQL.
// A deployment runs `npm run build` once and `npm run serve` (docs/deployment.md).
import { spawn } from 'node:child_process';
import path from 'node:path';
import { ROOT, prepareCheckout } from './bootstrap.mjs';

await prepareCheckout();
const { ensureBuilt } = await import('./build.mjs');
await ensureBuilt().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
const child = spawn(process.execPath, [path.join(ROOT, 'dist', 'server.mjs')], { cwd: ROOT, stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => child.kill(signal));
}
// `npm start` runs this through `sh -c`, which dies of a SIGTERM sent to npm's pid without
// passing it on: this process and the server would run on, orphaned. A parent
// gone is taken as that SIGTERM.
const parent = process.ppid;
const orphaned = setInterval(() => {
  if (process.ppid === parent) return;
  clearInterval(orphaned);
  child.kill('SIGTERM');
}, 500).unref();
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
