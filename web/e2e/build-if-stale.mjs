// Builds web/dist before the browser tests when any dashboard input is newer than it:
// the tests must run against the build that ships, never a stale one.
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const built = path.join(root, 'web/dist/index.html');
const inputs = ['web/src', 'web/public', 'web/index.html', 'web/vite.config.ts', 'server/src/common', 'package-lock.json'];

function newest(target) {
  if (!fs.existsSync(target)) return 0;
  const stat = fs.statSync(target);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(0, ...fs.readdirSync(target).map((name) => newest(path.join(target, name))));
}

const builtAt = fs.existsSync(built) ? fs.statSync(built).mtimeMs : 0;
const changedAt = Math.max(...inputs.map((input) => newest(path.join(root, input))));
if (changedAt > builtAt) {
  console.log('web/dist is stale: building the dashboard');
  const result = spawnSync('npm', ['run', 'build:web'], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}
