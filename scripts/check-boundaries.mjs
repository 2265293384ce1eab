// The import boundaries of .dependency-cruiser.mjs, as the second step of `npm run lint`:
// fails on a new violation and on a known one that no longer happens (the list only shrinks).
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { cruise } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// --root checks another tree with these rules (the test's deliberately broken copy).
const { values: args } = parseArgs({ options: { root: { type: 'string' }, config: { type: 'string' } } });
const ROOT = path.resolve(args.root ?? REPO);
/** Everything written in TypeScript or JavaScript, server to dashboard. */
const SOURCES = ['server', 'scripts', 'migrations', 'loadtest', 'engine/index.ts', 'engine/addon.ts', 'engine/build.ts', 'engine/test', 'web/src', 'web/e2e', 'web/vite.config.ts'];

const configFile = path.resolve(args.config ?? path.join(REPO, '.dependency-cruiser.mjs'));
process.chdir(ROOT);
const options = await extractDepcruiseOptions(configFile);
// The dashboard's path aliases, read from the checked tree's own web/tsconfig.json.
options.tsConfig.fileName = path.join(ROOT, path.relative(REPO, options.tsConfig.fileName));
const tsConfig = extractTSConfig(options.tsConfig.fileName);
const { output } = await cruise(SOURCES.filter((source) => fs.existsSync(source)), { ...options, validate: true }, {}, { tsConfig });

const known = options.knownViolations ?? [];
const seen = new Set();
const failures = [];
for (const v of output.summary.violations) {
  const key = `${v.rule.name} ${v.from} -> ${v.to}`;
  if (known.some((k) => k.rule.name === v.rule.name && k.from === v.from && k.to === v.to)) seen.add(key);
  else if (v.rule.severity !== 'ignore') failures.push(v.cycle?.length ? `${key} (cycle: ${[v.from, ...v.cycle.map((c) => c.name ?? c)].join(' -> ')})` : key);
}
const stale = known.map((k) => `${k.rule.name} ${k.from} -> ${k.to}`).filter((key) => !seen.has(key));

console.log(`boundaries: ${output.summary.totalCruised} modules, ${output.summary.totalDependenciesCruised} imports, ${seen.size} known violations (listed in ${path.relative(REPO, configFile)})`);
for (const f of failures) console.error(`  error ${f}`);
for (const s of stale) console.error(`  stale known violation, remove it from ${configFile}: ${s}`);
if (failures.length || stale.length) process.exit(1);
