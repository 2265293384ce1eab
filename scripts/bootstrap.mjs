// Plain Node (no dependencies): what `npm start` and `npm test` do first on a development
// checkout, so both work on a fresh clone: run on a supported Node (scripts/node-runtime.mjs)
// and install the locked dependencies. Imported by scripts/start.mjs and scripts/test.mjs.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runOnSupportedNode } from './node-runtime.mjs';

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

/** Installs the lock's dependencies (`npm ci`) when node_modules is missing or older than the lock. */
function ensureInstalled() {
  const installed = mtime(path.join(ROOT, 'node_modules', '.package-lock.json'));
  const wanted = Math.max(mtime(path.join(ROOT, 'package-lock.json')), mtime(path.join(ROOT, 'package.json')));
  if (installed && installed >= wanted) return;
  process.stdout.write('Installing dependencies (npm ci)…\n');
  run('npm', ['ci', '--no-audit', '--no-fund']);
}

/** A supported Node and the dependencies installed: the start of `npm start` and `npm test`. */
export async function prepareCheckout() {
  await runOnSupportedNode();
  ensureInstalled();
}
