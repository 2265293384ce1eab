// The runtime only loads the addon: a missing or stale build is refused with one line that
// names the command that builds it, and nothing the wrapper imports can run cargo or apt-get.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempDir } from './helpers';

const engineDir = join(dirname(fileURLToPath(import.meta.url)), '..');

/** A copy of the wrapper in a folder of its own, so its addon can be missing or stale. */
function wrapperCopy(dir: string): string {
  const copy = join(dir, 'engine');
  mkdirSync(join(copy, 'crates', 'napi', 'src'), { recursive: true });
  for (const file of ['index.ts', 'addon.ts', 'contract.generated.ts', 'Cargo.toml']) copyFileSync(join(engineDir, file), join(copy, file));
  writeFileSync(join(copy, 'crates', 'napi', 'src', 'lib.rs'), '');
  writeFileSync(join(dir, 'package.json'), '{"type":"module"}');
  return copy;
}

function openIn(copy: string, indexDir: string): { status: number | null; stdout: string; stderr: string } {
  const script = `import(${JSON.stringify(join(copy, 'index.ts'))}).then((m) => m.openEngine(${JSON.stringify(indexDir)})).then(() => console.log('opened'), (e) => console.log(e.message))`;
  const r = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], { encoding: 'utf8', env: { ...process.env, PATH: '/nonexistent' } });
  return { status: r.status, stdout: r.stdout.trim(), stderr: r.stderr };
}

test('a missing addon is refused with the command that builds it; nothing is built', () => {
  const { dir, cleanup } = tempDir();
  try {
    const copy = wrapperCopy(dir);
    const r = openIn(copy, join(dir, 'index'));
    assert.equal(r.stdout.split('\n').length, 1, r.stdout);
    assert.match(r.stdout, /not built.*run npm run build:engine$/);
  } finally {
    cleanup();
  }
});

test('an addon older than its sources is refused with the same command', () => {
  const { dir, cleanup } = tempDir();
  try {
    const copy = wrapperCopy(dir);
    mkdirSync(join(copy, 'build'));
    const addon = join(copy, 'build', 'engine.node');
    copyFileSync(join(engineDir, 'build', 'engine.node'), addon);
    const past = new Date(Date.now() - 60_000);
    utimesSync(addon, past, past);
    const r = openIn(copy, join(dir, 'index'));
    assert.match(r.stdout, /older than its sources.*run npm run build:engine$/);
    const now = new Date(Date.now() + 60_000);
    utimesSync(addon, now, now);
    assert.equal(openIn(copy, join(dir, 'index')).stdout, 'opened');
  } finally {
    cleanup();
  }
});

test('the wrapper imports neither the build step nor anything that starts processes', () => {
  for (const file of ['index.ts', 'addon.ts']) {
    const imports = [...readFileSync(join(engineDir, file), 'utf8').matchAll(/^import .* from '([^']+)';$/gm)].map((m) => m[1]);
    assert.ok(!imports.some((name) => /build|child_process/.test(name ?? '')), `${file} imports ${imports.join(', ')}`);
  }
});
