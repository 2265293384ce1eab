// `npm run build`: compiles what ships, once, into dist/:
//   dist/server.mjs, dist/admin.mjs, dist/ingest.mjs, dist/whois-ingest.mjs   the server and
//       the operator commands, our own code only (esbuild; what an entry imports lazily in
//       dist/chunk-*.mjs), loading their packages from node_modules: what they import is a
//       production dependency (scripts/test/production-deps.test.ts proves it in a tree
//       without the others);
//   dist/web/                the dashboard (vite);
//   dist/build.json          what the bundles were built from and the packages they load;
// and builds the engine addon (engine/build/engine.node) when it is missing or stale.
// Run by plain `node`; what it uses (esbuild, vite, tsx, cargo) is for building only.
//
//   node scripts/build.mjs [--force]               everything (only what is stale, unless --force)
//   node scripts/build.mjs bundles|web|engine …   only those parts
//
// The bundles find files relative to their sources as they do unbuilt: `import.meta.url`
// in a source becomes its source's location relative to the bundle, so the built server
// looks for dist/web, engine/build and samples/ where the repository (and the artifact,
// scripts/artifact.sh) holds them, wherever the tree is.
//
// Each bundle is written to a temporary file and renamed over the old one: a process
// starting while a build runs loads a whole old or a whole new bundle.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const DIST = path.join(ROOT, 'dist');
const STAMP = path.join(DIST, 'build.json');

/** What ships: name → TypeScript entry; `dist/NAME.mjs` is its bundle. */
export const ENTRIES = {
  server: 'server/src/server.ts',
  admin: 'scripts/admin.ts',
  ingest: 'scripts/lib/ingest-launch.ts',
  'whois-ingest': 'scripts/lib/whois-ingest-launch.ts',
};

/** Packages the bundles load by a name in a string rather than an import (pino's transport). */
const LOADED_BY_NAME = ['pino-pretty'];

/** Files outside the bundles' inputs whose change calls for a build. */
const BUILD_INPUTS = ['scripts/build.mjs', 'package.json', 'tsconfig.json'];

function mtime(file) {
  try {
    return fs.statSync(file).mtimeMs;
  } catch {
    return Infinity; // gone: whatever was built from it is stale
  }
}

/** The bundles' stamp, or null when they are missing or older than a source they were built from. */
export function currentBundles() {
  let stamp;
  try {
    stamp = JSON.parse(fs.readFileSync(STAMP, 'utf8'));
  } catch {
    return null;
  }
  if (!Array.isArray(stamp.inputs) || !Array.isArray(stamp.directories)) return null;
  for (const name of Object.keys(ENTRIES)) if (!fs.existsSync(path.join(DIST, `${name}.mjs`))) return null;
  // A directory changes when a file is added to it: a module a later build would pick up.
  const prefix = ROOT + path.sep;
  for (const file of [...BUILD_INPUTS, ...stamp.inputs, ...stamp.directories]) {
    if (mtime(prefix + file) > stamp.startedAt) return null;
  }
  return stamp;
}

/** Rewrites a source's import.meta.url / dirname / filename to its location relative to dist/. */
const sourceLocation = {
  name: 'source-location',
  setup(build) {
    build.onLoad({ filter: /\.[cm]?ts$/ }, async (args) => {
      if (args.path.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
      const relative = path.relative(DIST, args.path).split(path.sep).join('/');
      const url = `new URL(${JSON.stringify(relative)}, import.meta.url)`;
      const source = await fs.promises.readFile(args.path, 'utf8');
      const contents = source
        .replaceAll('import.meta.url', `${url}.href`)
        .replaceAll('import.meta.dirname', `__leakwellPath(new URL('.', ${url})).replace(/[\\\\/]$/, '')`)
        .replaceAll('import.meta.filename', `__leakwellPath(${url})`);
      return { contents, loader: 'ts' };
    });
  },
};

/** Bundles the server and the operator commands into dist/ (see the top of this file). */
export async function buildBundles({ quiet = false } = {}) {
  const startedAt = Date.now();
  const { build } = await import('esbuild');
  if (!quiet) process.stderr.write('Compiling the server and the operator commands (esbuild)…\n');
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: Object.fromEntries(Object.entries(ENTRIES).map(([name, entry]) => [name, path.join(ROOT, entry)])),
    outdir: DIST,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    packages: 'external',
    // What an entry imports lazily (a command's modules behind its `--help`) goes to chunks
    // of its own, so that their packages load only when that code runs: in one file, every
    // package an entry bundles would load before its first line.
    splitting: true,
    // Beside the entries: a source's location is relative to dist/ (sourceLocation).
    chunkNames: 'chunk-[hash]',
    format: 'esm',
    platform: 'node',
    target: 'node24',
    sourcemap: 'linked',
    sourcesContent: false,
    banner: { js: "import { fileURLToPath as __leakwellPath } from 'node:url';" },
    metafile: true,
    write: false,
    logLevel: 'error',
    plugins: [sourceLocation],
  });
  // Chunks first (named by their content: a new one never replaces an old one), then the
  // entries that name them; the chunks no entry names any more go ten minutes later, once
  // a process started from an older entry has loaded what it loads lazily.
  fs.mkdirSync(DIST, { recursive: true });
  const isChunk = (file) => path.basename(file.path).startsWith('chunk-');
  for (const file of [...result.outputFiles.filter(isChunk), ...result.outputFiles.filter((f) => !isChunk(f))]) {
    const temporary = `${file.path}.tmp-${process.pid}`;
    fs.writeFileSync(temporary, file.contents);
    fs.renameSync(temporary, file.path);
  }
  const current = new Set(result.outputFiles.map((file) => path.basename(file.path)));
  for (const name of fs.readdirSync(DIST)) {
    const file = path.join(DIST, name);
    if (name.startsWith('chunk-') && !current.has(name) && Date.now() - mtime(file) > 600_000) fs.rmSync(file, { force: true });
  }
  const inputs = Object.keys(result.metafile.inputs).filter((file) => !file.includes('node_modules/'));
  const directories = [...new Set(inputs.map((file) => path.dirname(file)))];
  const imported = Object.values(result.metafile.outputs).flatMap((output) => output.imports.filter((i) => i.external).map((i) => i.path));
  const packages = [...new Set([...imported.filter((name) => !name.startsWith('node:')), ...LOADED_BY_NAME])].sort();
  const temporary = `${STAMP}.tmp-${process.pid}`;
  fs.writeFileSync(temporary, `${JSON.stringify({ startedAt, entries: ENTRIES, packages, inputs, directories }, null, 1)}\n`);
  fs.renameSync(temporary, STAMP);
}

function runStep(args, what) {
  const result = spawnSync(process.execPath, args, { cwd: ROOT, stdio: 'inherit' });
  if (result.status !== 0) throw new Error(`${what} failed (exit ${result.status ?? result.signal})`);
}

/** The engine addon and the dashboard, each built when missing or stale (scripts/prepare.ts). */
function buildPrepared(parts) {
  const only = parts.length === 1 ? [parts[0]] : [];
  runStep(['--import', 'tsx', path.join(ROOT, 'scripts', 'prepare.ts'), ...only], `building the ${parts.join(' and ')}`);
}

function newest(file) {
  const stat = fs.statSync(file);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(stat.mtimeMs, ...fs.readdirSync(file).map((entry) => newest(path.join(file, entry))));
}

/**
 * Whether the engine addon is newer than its sources: engine/addon.ts's addonState() in
 * plain JavaScript, so a launcher knows without starting tsx that there is nothing to build.
 */
function engineIsCurrent() {
  const addon = path.join(ROOT, 'engine', 'build', 'engine.node');
  if (!fs.existsSync(addon)) return false;
  return fs.statSync(addon).mtimeMs >= Math.max(newest(path.join(ROOT, 'engine', 'crates')), newest(path.join(ROOT, 'engine', 'Cargo.toml')));
}

/** Builds the parts asked for (default: all) that are missing or stale; `force` rebuilds the bundles anyway. */
export async function ensureBuilt({ parts = ['engine', 'web', 'bundles'], force = false, quiet = false } = {}) {
  const prepared = parts.filter((part) => part === 'web' || (part === 'engine' && !engineIsCurrent()));
  if (prepared.length) buildPrepared(prepared);
  if (parts.includes('bundles') && (force || !currentBundles())) await buildBundles({ quiet });
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const parts = args.filter((arg) => !arg.startsWith('--'));
  const unknown = parts.filter((part) => !['engine', 'web', 'bundles'].includes(part));
  if (unknown.length) {
    process.stderr.write(`usage: node scripts/build.mjs [engine] [web] [bundles] [--force]\n`);
    process.exit(2);
  }
  const { runOnSupportedNode } = await import('./node-runtime.mjs');
  await runOnSupportedNode();
  await ensureBuilt({ parts: parts.length ? parts : undefined, force: args.includes('--force') }).catch((error) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
  if (!parts.length) process.stdout.write(`Built: dist/ (${Object.keys(ENTRIES).join(', ')}, web) and engine/build/engine.node\n`);
}
