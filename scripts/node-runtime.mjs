// The Node.js that LeakWell runs on: the release named in .nvmrc, inside package.json's
// `engines` range. Plain Node, no dependencies, any Node version from 18 on: it is what
// moves an older Node out of the way.
//
// When the running Node is outside the range, the launchers (`npm start`, `npm test`,
// `npm run serve|admin|ingest|whois-ingest`) run themselves again on the .nvmrc release,
// taken from the npm registry (the `node-<platform>-<arch>` package holds the official
// build, headers included) and kept in ~/.cache/leakwell/. Nothing is installed system-wide.
//
//   node scripts/node-runtime.mjs        prints the bin folder of a supported Node (fetching
//                                        the .nvmrc release when the running one is not):
//                                        export PATH="$(node scripts/node-runtime.mjs):$PATH"
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** `[major, minor, patch]` of a version such as `v24.11.0` or `24.11.0`. */
function parse(version) {
  return version.replace(/^v/, '').split('.').map((part) => Number.parseInt(part, 10));
}

/** The release CI, the image and a developer run: .nvmrc. */
export function pinnedVersion() {
  return fs.readFileSync(path.join(ROOT, '.nvmrc'), 'utf8').trim().replace(/^v/, '');
}

/** package.json's `engines.node`, which must be of the form `^MAJOR.MINOR.PATCH`. */
export function enginesRange() {
  const range = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).engines.node;
  if (!/^\^\d+\.\d+\.\d+$/.test(range)) throw new Error(`package.json engines.node must be ^MAJOR.MINOR.PATCH, not ${range}`);
  return range;
}

/** Whether `version` is inside the `^MAJOR.MINOR.PATCH` range. */
export function satisfies(version, range = enginesRange()) {
  const [major, minor, patch] = parse(version);
  const [wantMajor, wantMinor, wantPatch] = parse(range.slice(1));
  if (major !== wantMajor) return false;
  return minor > wantMinor || (minor === wantMinor && patch >= wantPatch);
}

function cacheRoot() {
  return process.env.LEAKWELL_CACHE_DIR ?? path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), 'leakwell');
}

/** The install folder of the .nvmrc release in the cache (fetched when missing): its bin/ holds node. */
export function installPinned({ quiet = false } = {}) {
  const version = pinnedVersion();
  const pkg = `node-${process.platform}-${process.arch}`;
  const dir = path.join(cacheRoot(), `${pkg}-${version}`);
  if (fs.existsSync(path.join(dir, 'bin', 'node'))) return dir;
  if (!quiet) process.stderr.write(`Fetching Node.js ${version} (${pkg} from the npm registry) into ${dir}…\n`);
  fs.mkdirSync(cacheRoot(), { recursive: true });
  const work = fs.mkdtempSync(path.join(cacheRoot(), 'fetch-'));
  try {
    const packed = spawnSync('npm', ['pack', '--silent', `${pkg}@${version}`], { cwd: work, encoding: 'utf8' });
    if (packed.status !== 0) throw new Error(`npm pack ${pkg}@${version} failed: ${packed.stderr.trim()}`);
    const tarball = path.join(work, packed.stdout.trim().split('\n').at(-1));
    const unpacked = path.join(work, 'node');
    fs.mkdirSync(unpacked);
    const untar = spawnSync('tar', ['-xzf', tarball, '-C', unpacked, '--strip-components=1'], { encoding: 'utf8' });
    if (untar.status !== 0) throw new Error(`unpacking ${tarball} failed: ${untar.stderr.trim()}`);
    // A rename: a concurrent fetch never sees half a Node.
    try {
      fs.renameSync(unpacked, dir);
    } catch (error) {
      if (!fs.existsSync(path.join(dir, 'bin', 'node'))) throw error;
    }
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
  return dir;
}

/**
 * The environment of a process run on the Node of `dir`: its bin/ first on PATH (npm and
 * every `node` a script spawns), and native addons built against its headers.
 */
export function environmentFor(dir, env = process.env) {
  return { ...env, PATH: `${path.join(dir, 'bin')}${path.delimiter}${env.PATH ?? ''}`, npm_config_nodedir: dir };
}

/**
 * Called first by each launcher: returns on a supported Node; otherwise runs the same
 * command again on the .nvmrc release (fetched once) and exits with its status.
 */
export async function runOnSupportedNode() {
  const range = enginesRange();
  if (satisfies(process.versions.node, range)) return;
  const dir = installPinned();
  process.stderr.write(`Node.js ${process.versions.node} is outside LeakWell's range (${range}): running on Node.js ${pinnedVersion()} (${dir}).\n`);
  const child = spawn(path.join(dir, 'bin', 'node'), [...process.execArgv, ...process.argv.slice(1)], { stdio: 'inherit', env: environmentFor(dir) });
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
  const code = await new Promise((resolve) => child.on('exit', (status, signal) => resolve(status ?? (signal ? 1 : 0))));
  process.exit(code);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    const dir = satisfies(process.versions.node) ? path.dirname(process.execPath) : path.join(installPinned(), 'bin');
    process.stdout.write(`${dir}\n`);
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  }
}
