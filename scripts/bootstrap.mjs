// Plain Node (no dependencies): makes sure the dependencies are installed, so `npm start` and
// `npm test` work on a fresh clone. Imported by scripts/start.mjs and scripts/test.mjs.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function mtime(file) {
  try {
    return fs.statSync(file).mtimeMs;
  } catch {
    return 0;
  }
}

export function run(command, args, options = {}) {
  const result = spawnSync(command, args, { cwd: ROOT, stdio: 'inherit', ...options });
  if (result.status !== 0) {
    process.stderr.write(`\n${command} ${args.join(' ')} failed (exit ${result.status ?? result.signal}).\n`);
    process.exit(result.status ?? 1);
  }
}

export function ensureInstalled() {
  const installed = mtime(path.join(ROOT, 'node_modules', '.package-lock.json'));
  const wanted = Math.max(mtime(path.join(ROOT, 'package-lock.json')), mtime(path.join(ROOT, 'package.json')));
  if (installed && installed >= wanted) return;
  // `npm install`, not `npm ci`: the registry mirror we use lacks some other-platform
  // optional packages named in the lock (msgpackr-extract for darwin/win32), which makes
  // `npm ci` refuse the lock although `npm install` installs the locked versions.
  process.stdout.write('Installing dependencies (npm install)…\n');
  run('npm', ['install', '--no-audit', '--no-fund']);
}

/** Builds the engine addon and the dashboard when missing or stale. */
export function ensureBuilt() {
  run(process.execPath, ['--import', 'tsx', path.join(ROOT, 'scripts', 'prepare.ts')]);
}
