/**
 * The launcher of the built server and commands (scripts/run.mjs) and the build it runs
 * (scripts/build.mjs): in a development checkout a build is reused while its sources are
 * unchanged, and an edited source or a file added to a source folder is picked up by the next
 * run, which rebuilds first; in a tree without the build tools (a fresh clone, the artifact)
 * it builds nothing and says in one line what to run when nothing is built.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cliArgs } from '../lib/cli-command';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const STAMP = path.join(ROOT, 'dist', 'build.json');
const COMPILING = /^Compiling the server and the operator commands \(esbuild\)…$/m;

function node(args: string[], cwd = ROOT) {
  const r = spawnSync(process.execPath, args, { cwd, encoding: 'utf8', timeout: 120_000 });
  return { status: r.status, out: r.stdout, err: r.stderr };
}

/** The build's start time, from its stamp. */
const builtAt = () => (JSON.parse(fs.readFileSync(STAMP, 'utf8')) as { startedAt: number }).startedAt;

function adminHelp() {
  const run = node(cliArgs('admin', ['--help']));
  assert.equal(run.status, 0, run.err);
  assert.match(run.out, /^Usage: npm run admin -- <command> \[options\]$/m);
  return run;
}

test('a build is reused while its sources are unchanged', () => {
  adminHelp();
  const first = builtAt();
  assert.doesNotMatch(adminHelp().err, COMPILING);
  assert.equal(builtAt(), first);
});

test('an edited source is compiled again by the next run, once', () => {
  adminHelp();
  const before = builtAt();
  // Edited: newer than the build (mtime only, the content is unchanged).
  const now = new Date();
  fs.utimesSync(path.join(ROOT, 'scripts', 'lib', 'cli.ts'), now, now);
  assert.match(adminHelp().err, COMPILING, 'the run rebuilt first');
  assert.ok(builtAt() > before);
  assert.doesNotMatch(adminHelp().err, COMPILING, 'and only once');
});

test('a file added to a source folder (a new migration, say) makes the build stale', () => {
  adminHelp();
  const added = path.join(ROOT, 'scripts', 'lib', `cli-build-test-${process.pid}.ts`);
  fs.writeFileSync(added, 'export {};\n');
  try {
    assert.match(adminHelp().err, COMPILING);
  } finally {
    fs.rmSync(added, { force: true });
  }
  adminHelp();
});

test('every shipped command answers --help on stdout with exit 0', () => {
  for (const [command, usage] of [['admin', /^Usage: npm run admin -- <command>/m], ['ingest', /^usage: npm run ingest -- --well NAME/m], ['whois-ingest', /^usage: npm run whois-ingest -- --format/m]] as const) {
    const run = node(cliArgs(command, ['--help']));
    assert.equal(run.status, 0, `${command}: ${run.err}`);
    assert.match(run.out, usage, command);
  }
});

test('an unknown command is refused with the list', () => {
  const unknown = node([path.join(ROOT, 'scripts', 'run.mjs'), 'nope']);
  assert.equal(unknown.status, 2);
  assert.match(unknown.err, /^usage: node scripts\/run\.mjs server\|admin\|ingest\|whois-ingest \[args…\]$/m);
});

test('a fresh clone, nothing installed or built: npm run admin -- --help says in one line what to run', () => {
  const clone = fs.mkdtempSync(path.join(os.tmpdir(), 'lw-fresh-'));
  try {
    fs.mkdirSync(path.join(clone, 'scripts'));
    for (const file of ['package.json', '.nvmrc', 'scripts/run.mjs', 'scripts/node-runtime.mjs']) fs.copyFileSync(path.join(ROOT, file), path.join(clone, file));
    const r = spawnSync('npm', ['run', '--silent', 'admin', '--', '--help'], { cwd: clone, encoding: 'utf8', timeout: 60_000 });
    assert.equal(r.status, 1);
    assert.equal(r.stdout, '');
    assert.equal(r.stderr, 'dist/admin.mjs is not built: run npm ci, then npm run build (or npm start, which does both).\n');
  } finally {
    fs.rmSync(clone, { recursive: true, force: true });
  }
});
