import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { ConfigSchema } from '../../src/config';

test('the README documents every setting of the config schema', () => {
  const readme = fs.readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
  for (const name of Object.keys(ConfigSchema.properties)) {
    assert.ok(readme.includes(`| \`${name}\` |`), `README settings table lists ${name}`);
  }
});
