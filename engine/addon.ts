// Where the engine addon lives and whether it is current. Shared by the runtime loader
// (index.ts), which only loads it, and the build step (build.ts), which builds it.

import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const engineDir = dirname(fileURLToPath(import.meta.url));
export const addonPath = join(engineDir, 'build', 'engine.node');
export const BUILD_COMMAND = 'npm run build:engine';

function newestMtime(path: string): number {
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  let newest = st.mtimeMs;
  // Entry names joined as they are (path.join normalises each: dearer than the stat).
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestMtime(`${path}/${entry}`));
  return newest;
}

/** 'missing', 'stale' (older than a source it was built from), or 'current'. */
export function addonState(): 'missing' | 'stale' | 'current' {
  if (!existsSync(addonPath)) return 'missing';
  // Every crate of the workspace: its Cargo.toml and its sources.
  const crates = join(engineDir, 'crates');
  if (!existsSync(crates)) return 'current'; // an image shipped without the sources
  const built = statSync(addonPath).mtimeMs;
  const sources = Math.max(newestMtime(crates), statSync(join(engineDir, 'Cargo.toml')).mtimeMs);
  return sources > built ? 'stale' : 'current';
}
