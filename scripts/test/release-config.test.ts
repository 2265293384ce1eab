/**
 * One Node.js and one production path, told the same way everywhere: .nvmrc (the release CI
 * and developers run) inside package.json's engines range, the image on that major, the
 * README naming the range; the image and CI making the artifact with the same script, and
 * the image's command being `npm run serve`'s.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigSchema } from '../../server/src/config';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');
const pkg = JSON.parse(read('package.json')) as { engines: { node: string }; scripts: Record<string, string> };
const [major, minor, patch] = read('.nvmrc').trim().split('.').map(Number) as [number, number, number];
const range = /^\^(\d+)\.(\d+)\.(\d+)$/.exec(pkg.engines.node);

test('.nvmrc is a release inside engines (^MAJOR.MINOR.PATCH)', () => {
  assert.ok(range, `engines.node ${pkg.engines.node} is ^MAJOR.MINOR.PATCH`);
  const [wantMajor, wantMinor, wantPatch] = range.slice(1).map(Number) as [number, number, number];
  assert.equal(major, wantMajor);
  assert.ok(minor > wantMinor || (minor === wantMinor && patch >= wantPatch), `${read('.nvmrc').trim()} satisfies ${pkg.engines.node}`);
});

test('the test run itself is on that major (CI runs the .nvmrc release)', () => {
  assert.equal(Number(process.versions.node.split('.')[0]), major);
});

test('the Dockerfile: every Node stage on that major, the artifact from scripts/artifact.sh, CMD as npm run serve', () => {
  const dockerfile = read('Dockerfile');
  const nodeImages = [...dockerfile.matchAll(/^FROM node:(\S+)/gm)].map((m) => m[1]!);
  assert.equal(nodeImages.length, 2, 'the build stage and the runtime');
  for (const image of nodeImages) assert.match(image, new RegExp(`^${major}-`), image);
  assert.match(dockerfile, /^RUN .*\bsh scripts\/artifact\.sh \/artifact$/m);
  assert.match(dockerfile, /^COPY --from=build --chown=node:node \/artifact \/app$/m);
  assert.match(dockerfile, /^USER node$/m);
  const cmd = JSON.parse(/^CMD (.*)$/m.exec(dockerfile)![1]!) as string[];
  assert.equal(cmd.join(' '), pkg.scripts.serve);
});

test('.ci/run: the .nvmrc Node, npm ci, the same artifact script, the production smoke test', () => {
  const ci = read('.ci/run');
  for (const step of ['node scripts/node-runtime.mjs', 'npm ci ', 'sh scripts/artifact.sh ', 'scripts/test/production-artifact.smoke.ts']) assert.ok(ci.includes(step), step);
  assert.ok(ci.indexOf('npm run test:e2e') < ci.indexOf('sh scripts/artifact.sh'), 'the artifact is made after the tests');
});

test('the README and docs/deployment.md name the same range', () => {
  assert.match(read('README.md'), new RegExp(`Node\\.js ${major} LTS \\(\`${pkg.engines.node.replace(/[.^]/g, '\\$&')}\`, \`\\.nvmrc\`\\)`));
  assert.ok(read('docs/deployment.md').includes(`node:${major}-bookworm-slim`));
});

test('deploy.env.example and docker-compose.yml set only settings the server knows', () => {
  const known = new Set([...Object.keys(ConfigSchema.properties), 'POSTGRES_PASSWORD']);
  const example = read('deploy.env.example').split('\n').filter((line) => /^[A-Z_]+=/.test(line)).map((line) => line.split('=')[0]!);
  assert.ok(example.includes('SMTP_URL') && example.includes('CARD_PROVIDER'), 'the settings production requires');
  const app = read('docker-compose.yml').split(/^ {2}postgres:$/m)[0]!;
  const composed = [...app.matchAll(/^ {6}([A-Z_]+): /gm)].map((m) => m[1]!);
  assert.ok(composed.includes('DATABASE_URL') && composed.includes('REDIS_URL'));
  assert.deepEqual([...example, ...composed].filter((name) => !known.has(name)), []);
});
