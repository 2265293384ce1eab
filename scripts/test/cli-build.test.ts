/**
 * The compiled operator commands (scripts/cli.mjs): a build is reused while its sources are
 * unchanged, and a source edited or a file added to a source folder is picked up by the next
 * run, which rebuilds before it starts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cliArgs } from '../lib/cli-command';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const LAUNCHER = path.join(ROOT, 'scripts', 'cli.mjs');
const COMPILING = /^Compiling the operator commands \(esbuild\)…$/m;

function node(args: string[]) {
  const r = spawnSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
  assert.equal(r.status, 0, `node ${args.join(' ')}: ${r.stderr}`);
  return { out: r.stdout, err: r.stderr };
}

/** The directory of the current build (building it if stale). */
const currentBuild = () => node([LAUNCHER, '--build']).out.trim();

test('a build is reused while its sources are unchanged', () => {
  const first = currentBuild();
  const run = node(cliArgs('admin', ['--help']));
  assert.match(run.out, /^Usage: npm run admin -- <command> \[options\]$/m);
  assert.doesNotMatch(run.err, COMPILING);
  assert.equal(currentBuild(), first);
});

test('an edited source is compiled again by the next run', () => {
  const before = currentBuild();
  // Edited: newer than the build (mtime only, the content is unchanged).
  const source = path.join(ROOT, 'scripts', 'lib', 'cli.ts');
  const now = new Date();
  fs.utimesSync(source, now, now);
  const run = node(cliArgs('admin', ['--help']));
  assert.match(run.err, COMPILING, 'the run rebuilt first');
  assert.match(run.out, /^Usage: npm run admin/m);
  const after = currentBuild();
  assert.notEqual(after, before);
  assert.ok(fs.existsSync(path.join(after, 'admin.mjs')));
  assert.doesNotMatch(node(cliArgs('admin', ['--help'])).err, COMPILING, 'and only once');
});

test('a file added to a source folder (a new migration, say) makes the build stale', () => {
  const before = currentBuild();
  const added = path.join(ROOT, 'scripts', 'lib', `cli-build-test-${process.pid}.ts`);
  fs.writeFileSync(added, 'export {};\n');
  try {
    assert.notEqual(currentBuild(), before);
  } finally {
    fs.rmSync(added, { force: true });
  }
  currentBuild();
});

test('--force rebuilds; an unknown command is refused with the list', () => {
  const before = currentBuild();
  const forced = node([LAUNCHER, '--build', '--force']).out.trim();
  assert.notEqual(forced, before);
  assert.equal(fs.realpathSync(path.join(ROOT, 'dist', 'cli', 'current')), forced);
  const unknown = spawnSync(process.execPath, [LAUNCHER, 'nope'], { cwd: ROOT, encoding: 'utf8' });
  assert.equal(unknown.status, 2);
  assert.match(unknown.stderr, /^usage: node scripts\/cli\.mjs admin\|ingest\|/m);
});
