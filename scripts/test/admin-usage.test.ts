/**
 * The admin CLI's usage text (scripts/admin/usage.ts) is kept apart from the commands so that
 * `--help` loads none of their modules (scripts/admin/launch.ts): every command must have its
 * lines there.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { USAGE } from '../admin/usage';
import { MODULE_COMMANDS } from '../admin/commands';
import { cliArgs } from '../lib/cli-command';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

test('every admin command has its lines in the usage text', () => {
  const synopses = new Set([...USAGE.matchAll(/^ {2}([a-z0-9:-]+)(?: |$)/gm)].map((m) => m[1]));
  // The commands of admin.ts itself: its `case '…':` labels.
  const own = [...fs.readFileSync(path.join(ROOT, 'scripts', 'admin.ts'), 'utf8').matchAll(/^ {4}case '([a-z0-9:-]+)':/gm)].map((m) => m[1]!);
  assert.ok(own.length > 5, 'admin.ts dispatches its commands with case labels');
  for (const name of [...own, ...Object.keys(MODULE_COMMANDS)]) assert.ok(synopses.has(name), `${name} has no lines in scripts/admin/usage.ts`);
});

test('--help and no command print the usage (the launcher, before the commands load)', () => {
  const run = spawnSync(process.execPath, cliArgs('admin', ['--help']), { cwd: ROOT, encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  assert.equal(run.stdout, USAGE);
  const none = spawnSync(process.execPath, cliArgs('admin', []), { cwd: ROOT, encoding: 'utf8' });
  assert.equal(none.status, 2);
  assert.equal(none.stdout, USAGE);
});
