import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { ConfigSchema } from '../../src/config';

test('docs/configuration.md documents every setting of the config schema', () => {
  const configuration = fs.readFileSync(new URL('../../../docs/configuration.md', import.meta.url), 'utf8');
  for (const name of Object.keys(ConfigSchema.properties)) {
    assert.ok(configuration.includes(`| \`${name}\` |`), `docs/configuration.md settings table lists ${name}`);
  }
});

test('the README points to the settings table', () => {
  const readme = fs.readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
  assert.ok(readme.includes('(docs/configuration.md)'), 'README links docs/configuration.md');
});
