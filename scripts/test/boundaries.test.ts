/**
 * The import boundaries of `npm run lint` (scripts/check-boundaries.mjs with
 * .dependency-cruiser.mjs): the repository passes, and a copy of it with one import cycle,
 * one cross-feature import on each side and a script reading a server repository fails,
 * naming each, as does a known violation listed that no longer happens (the test's own config
 * adds one, so it needs none in the real list).
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const SCRIPT = path.join(REPO, 'scripts', 'check-boundaries.mjs');
const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'leakwell-boundaries-'));
after(() => fs.rmSync(copy, { recursive: true, force: true }));

function check(root?: string, config?: string) {
  const args = [...(root ? ['--root', root] : []), ...(config ? ['--config', config] : [])];
  const result = spawnSync(process.execPath, [SCRIPT, ...args], { cwd: REPO, encoding: 'utf8' });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

/** The repository's config with one more known violation, `from` -> `to`, which must not happen. */
function configKnowing(from: string, to: string) {
  const file = path.join(copy, 'known-config.mjs');
  const base = pathToFileURL(path.join(REPO, '.dependency-cruiser.mjs')).href;
  const known = JSON.stringify({ from, to, rule: { name: 'server-feature-private', severity: 'error' } });
  fs.writeFileSync(
    file,
    `import base from ${JSON.stringify(base)};\n` +
      `export default { ...base, options: { ...base.options, knownViolations: [...(base.options.knownViolations ?? []), ${known}] } };\n`,
  );
  return file;
}

test('the repository keeps its boundaries', () => {
  const { status, output } = check();
  assert.equal(status, 0, output);
  assert.match(output, /boundaries: \d+ modules, \d+ imports, \d+ known violations/);
});

test('a cycle, a cross-feature import and a stale known violation fail the check', () => {
  for (const dir of ['server/src', 'web/src']) fs.cpSync(path.join(REPO, dir), path.join(copy, dir), { recursive: true });
  fs.copyFileSync(path.join(REPO, 'web', 'tsconfig.json'), path.join(copy, 'web', 'tsconfig.json'));
  // Unchanged, the copy passes: what fails below is what was added.
  const unchanged = check(copy);
  assert.equal(unchanged.status, 0, unchanged.output);

  // channels-routes imports monitoring-schemas: importing it back closes a cycle.
  fs.appendFileSync(path.join(copy, 'server/src/monitoring/monitoring-schemas.ts'), "import './channels-routes';\n");
  // A feature reading another feature's repository.
  fs.appendFileSync(path.join(copy, 'server/src/whois/whois-service.ts'), "import '../monitoring/monitoring-repository';\n");
  // A dashboard feature reaching past another feature's index, and into the server's infrastructure.
  fs.appendFileSync(path.join(copy, 'web/src/features/monitoring/lib/report-csv.ts'), "import '@/features/search/lib/csv';\n");
  fs.appendFileSync(path.join(copy, 'web/src/features/search/lib/csv.ts'), "import '../../../../../server/src/infra/errors';\n");
  // A script past a feature's public entry (its service, its commands) to its repository.
  fs.mkdirSync(path.join(copy, 'scripts'));
  fs.writeFileSync(path.join(copy, 'scripts/tool.ts'), "import '../server/src/users/users-commands';\nimport '../server/src/users/user-repository';\n");
  // A known violation that no longer happens must leave the list.
  const config = configKnowing('server/src/delivery/deliver.ts', 'server/src/monitoring/channels-repository.ts');

  const { status, output } = check(copy, config);
  assert.equal(status, 1, output);
  assert.match(output, /error no-circular server\/src\/monitoring\/(monitoring-schemas|channels-routes)\.ts/);
  assert.match(output, /error server-feature-private server\/src\/whois\/whois-service\.ts -> server\/src\/monitoring\/monitoring-repository\.ts/);
  assert.match(output, /error web-feature-private web\/src\/features\/monitoring\/lib\/report-csv\.ts -> web\/src\/features\/search\/lib\/csv\.ts/);
  assert.match(output, /error web-server-common-only web\/src\/features\/search\/lib\/csv\.ts -> server\/src\/infra\/errors\.ts/);
  assert.match(output, /error tools-server-public scripts\/tool\.ts -> server\/src\/users\/user-repository\.ts/);
  assert.doesNotMatch(output, /users-commands/);
  assert.match(output, /stale known violation.*server\/src\/delivery\/deliver\.ts -> server\/src\/monitoring\/channels-repository\.ts/);
});
