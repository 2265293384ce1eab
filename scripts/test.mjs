// `npm test`: installs and builds what is missing (scripts/bootstrap.mjs, scripts/build.mjs:
// the suites run the built server and commands), then runs every suite with Node's
// test runner against real servers: PostgreSQL from TEST_DATABASE_URL or embedded,
// Redis when TEST_REDIS_URL is set. Browser tests are `npm run test:e2e`.
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { ROOT, prepareCheckout } from './bootstrap.mjs';

await prepareCheckout();
// The suites spawn the built server and operator commands (scripts/lib/cli-command.ts).
const { ensureBuilt } = await import('./build.mjs');
await ensureBuilt({ parts: ['engine', 'bundles'] }).catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});

function findTests(dir) {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : findTests(full);
    return entry.name.endsWith('.test.ts') ? [full] : [];
  });
}

const only = process.argv.slice(2);
const files = only.length
  ? only.map((f) => path.resolve(f))
  : ['server/test', 'engine/test', 'scripts/test', 'loadtest'].flatMap((d) => findTests(path.join(ROOT, d))).sort();
const child = spawn(
  process.execPath,
  ['--import', 'tsx', '--import', './server/test/setup.ts', '--test', '--test-concurrency=1', '--test-reporter=spec', ...files],
  { cwd: ROOT, stdio: 'inherit' },
);
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
