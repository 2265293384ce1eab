/**
 * migrations/index.ts lists every migration of the folder under its file name: the built
 * server carries the list, not the folder, so a migration missing from it would never run.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { MIGRATIONS } from '../../../migrations/index';

const DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../migrations');

test('migrations/index.ts lists every migration file, each with its up()', () => {
  const files = fs
    .readdirSync(DIR)
    .filter((file) => file.endsWith('.ts') && file !== 'index.ts')
    .map((file) => file.slice(0, -'.ts'.length))
    .sort();
  assert.deepEqual(Object.keys(MIGRATIONS), files);
  for (const [name, migration] of Object.entries(MIGRATIONS)) assert.equal(typeof migration.up, 'function', name);
});
