/** Builds what is missing or stale: the engine addon and the dashboard. */
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function newest(target: string): number {
  if (!fs.existsSync(target)) return 0;
  const stat = fs.statSync(target);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let latest = 0;
  for (const entry of fs.readdirSync(target)) {
    if (entry === 'node_modules' || entry === 'dist' || entry === 'e2e') continue;
    latest = Math.max(latest, newest(path.join(target, entry)));
  }
  return latest;
}

export function webIsStale(): boolean {
  const built = newest(path.join(ROOT, 'dist', 'web', 'index.html'));
  const sources = Math.max(
    newest(path.join(ROOT, 'web')),
    newest(path.join(ROOT, 'server', 'src', 'common')),
    newest(path.join(ROOT, 'package-lock.json')),
  );
  return built === 0 || sources > built;
}

export async function ensureWebBuilt(): Promise<void> {
  if (!webIsStale()) return;
  process.stdout.write('Building the dashboard (vite)…\n');
  const result = spawnSync('npm', ['run', '--silent', 'build:web'], { cwd: ROOT, stdio: 'inherit' });
  if (result.status !== 0) throw new Error('dashboard build failed');
}

export async function ensureEngine(): Promise<void> {
  const buildModule = path.join(ROOT, 'engine', 'build.ts');
  if (!fs.existsSync(buildModule)) return;
  const { ensureEngineBuilt } = (await import(buildModule)) as { ensureEngineBuilt: (o?: { quiet?: boolean }) => Promise<string> };
  await ensureEngineBuilt();
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const only = process.argv[2];
  (async () => {
    if (only !== 'web') await ensureEngine();
    if (only !== 'engine') await ensureWebBuilt();
  })().catch((error) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
