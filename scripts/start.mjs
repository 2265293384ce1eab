// `npm start`: installs and builds whatever is missing, then runs the server on its
// embedded defaults (or whatever the environment configures). Signals go to the server,
// which shuts down gracefully and stops the embedded PostgreSQL.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { ROOT, ensureBuilt, ensureInstalled } from './bootstrap.mjs';

ensureInstalled();
ensureBuilt();
// Compiled (scripts/cli.mjs): rebuilt first when a source changed.
const child = spawn(process.execPath, [path.join(ROOT, 'scripts', 'cli.mjs'), 'server'], {
  cwd: ROOT,
  stdio: 'inherit',
});
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => child.kill(signal));
}
// `npm start` runs this through `sh -c`, which dies of a SIGTERM sent to npm's pid without
// passing it on: this process and the server would run on, orphaned (issue 33). A parent
// gone is taken as that SIGTERM.
const parent = process.ppid;
const orphaned = setInterval(() => {
  if (process.ppid === parent) return;
  clearInterval(orphaned);
  child.kill('SIGTERM');
}, 500).unref();
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
