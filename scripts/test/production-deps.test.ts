/**
 * Dependencies are classified by where they run: a package the built server or a built
 * operator command loads is a production dependency, and nothing else is. dist/build.json
 * (scripts/build.mjs) lists every package the bundles load; here the lock is installed
 * without the development dependencies (`npm ci --omit=dev`, as the artifact is pruned) into
 * a folder of its own, and every one of those packages is imported there. A dependency moved
 * to devDependencies by mistake (qrcode once was) fails this, as would a devDependency a
 * shipped module starts to import.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string>; devDependencies: Record<string, string> };

/** The packages the bundles load (import specifiers such as `typebox/value`). */
function shippedImports(): string[] {
  const stamp = JSON.parse(fs.readFileSync(path.join(ROOT, 'dist', 'build.json'), 'utf8')) as { packages: string[] };
  return stamp.packages;
}

/** `@scope/name/sub` → `@scope/name`; `name/sub` → `name`. */
const packageName = (specifier: string) => specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/');

let tree = '';
before(() => {
  tree = fs.mkdtempSync(path.join(os.tmpdir(), 'lw-prod-deps-'));
  for (const file of ['package.json', 'package-lock.json']) fs.copyFileSync(path.join(ROOT, file), path.join(tree, file));
  // Scripts off: installs run none that matter to resolving, and this stays quick.
  const installed = spawnSync('npm', ['ci', '--omit=dev', '--ignore-scripts', '--prefer-offline', '--no-audit', '--no-fund'], { cwd: tree, encoding: 'utf8', timeout: 300_000 });
  assert.equal(installed.status, 0, installed.stderr);
});
after(() => fs.rmSync(tree, { recursive: true, force: true }));

test('every package the shipped bundles load is a production dependency', () => {
  const imports = shippedImports();
  assert.ok(imports.includes('fastify') && imports.includes('pg'), `dist/build.json lists the bundles' packages: ${imports.join(', ')}`);
  const notDependencies = [...new Set(imports.map(packageName))].filter((name) => !(name in pkg.dependencies));
  assert.deepEqual(notDependencies, [], 'loaded by a shipped bundle but not in dependencies');
});

test('every production dependency is loaded by a shipped bundle (build and test tools are devDependencies)', () => {
  const loaded = new Set(shippedImports().map(packageName));
  assert.deepEqual(Object.keys(pkg.dependencies).filter((name) => !loaded.has(name)), []);
});

test('each of them imports in a tree installed with npm ci --omit=dev', () => {
  assert.ok(!fs.existsSync(path.join(tree, 'node_modules', 'typescript')), 'the tree has no development dependency');
  const script = 'const failed = []; for (const name of JSON.parse(process.argv[1])) { try { await import(name); } catch (e) { failed.push(`${name}: ${e.message.split("\\n")[0]}`); } } console.log(JSON.stringify(failed));';
  const imported = spawnSync(process.execPath, ['--input-type=module', '-e', script, JSON.stringify(shippedImports())], { cwd: tree, encoding: 'utf8', timeout: 120_000 });
  assert.equal(imported.status, 0, imported.stderr);
  assert.deepEqual(JSON.parse(imported.stdout.trim().split('\n').at(-1)!), []);
});
