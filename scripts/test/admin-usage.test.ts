/**
 * The admin CLI's usage text is generated from the features' command tables
 * (scripts/admin/commands.ts, scripts/admin/usage.ts): every command has its lines, and the
 * arguments its lines show are options it takes. `--help` prints the text before a command's
 * module loads (scripts/admin.ts loads the tables alone).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { USAGE } from '../admin/usage';
import { COMMAND_TABLES } from '../admin/commands';
import { cliArgs } from '../lib/cli-command';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const COMMANDS = COMMAND_TABLES.flatMap((table) => table.commands);

test('the commands, each once', () => {
  const names = COMMANDS.map((command) => command.name);
  assert.equal(new Set(names).size, names.length, `a name twice: ${names.join(' ')}`);
  assert.deepEqual(
    [...names].sort(),
    [
      'audit:list',
      'backup',
      'banner:clear',
      'banner:set',
      'domain:verify',
      'event-code:create',
      'index:upgrade',
      'notify:global',
      'outbox',
      'payment:refund',
      'payment:renew',
      'payment:simulate',
      'product:set',
      'restore',
      'user:create',
      'user:grant',
      'user:list',
      'user:reset-2fa',
      'user:set-le',
      'user:suspend',
      'user:unset-le',
      'user:unsuspend',
      'well:delete',
      'well:list',
      'well:update',
    ],
  );
});

test('every admin command has its lines in the usage text, naming only options it takes', () => {
  const synopses = new Set([...USAGE.matchAll(/^ {2}([a-z0-9:-]+)(?: |$)/gm)].map((m) => m[1]));
  const groups = new Map(COMMAND_TABLES.flatMap((table) => table.optionGroups ?? []).map((group) => [group.heading.toLowerCase(), group]));
  for (const command of COMMANDS) {
    assert.ok(synopses.has(command.name), `${command.name} has no lines in the usage text`);
    const shown = [...command.args.matchAll(/--([a-z0-9-]+)/g)].map((m) => m[1]!);
    for (const [, words] of command.args.matchAll(/\[([a-z ]+ options)\]/g)) {
      const group = groups.get(words!);
      assert.ok(group, `${command.name}: no option group "${words}"`);
      shown.push(...group.options.map(([flag]) => /^--([a-z0-9-]+)/.exec(flag)![1]!));
    }
    for (const option of shown) assert.ok(option in command.options, `${command.name} shows --${option} but does not take it`);
  }
});

test('--help and no command print the usage', () => {
  const run = spawnSync(process.execPath, cliArgs('admin', ['--help']), { cwd: ROOT, encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  assert.equal(run.stdout, USAGE);
  const none = spawnSync(process.execPath, cliArgs('admin', []), { cwd: ROOT, encoding: 'utf8' });
  assert.equal(none.status, 2);
  assert.equal(none.stdout, USAGE);
});
