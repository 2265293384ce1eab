// Builds the engine addon (engine/build/engine.node) when it is missing or stale.
//
// On our machines crates.io is unreachable: cargo is pointed at Debian's packaged crates
// (/usr/share/cargo/registry, installed from engine/debian-packages.txt) through a cargo
// config written outside the tree, so the committed Cargo.toml still builds from the
// registry on a connected machine. Cargo.lock is not committed: it is generated per
// machine (an offline lock carries placeholder checksums); versions are pinned with `=`.
//
// CLI: node --import tsx engine/build.ts [--force] [--quiet]   (build)
//      node --import tsx engine/build.ts --test                 (cargo test of every crate, same crate source)

import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { addonPath, addonState, engineDir } from './addon';

const targetDir = join(engineDir, 'target');
const debianRegistry = '/usr/share/cargo/registry';
const libName = 'libleakwell_engine.so';

export class EngineBuildError extends Error {
  override name = 'EngineBuildError';
}

/** The `name = "=x.y.z"` dependencies of the workspace (Cargo.toml's [workspace.dependencies]). */
function pinnedDependencies(): { name: string; version: string }[] {
  const toml = readFileSync(join(engineDir, 'Cargo.toml'), 'utf8');
  const deps = toml.split(/^\[workspace\.dependencies\]$/m)[1]?.split(/^\[/m)[0] ?? '';
  const out: { name: string; version: string }[] = [];
  for (const line of deps.split('\n')) {
    const m = /^([A-Za-z0-9_-]+)\s*=.*"=([0-9][^"]*)"/.exec(line.trim());
    if (m?.[1] && m[2]) out.push({ name: m[1], version: m[2] });
  }
  return out;
}

function missingDebianCrates(): string[] {
  return pinnedDependencies()
    .filter((d) => !existsSync(join(debianRegistry, `${d.name}-${d.version}`)))
    .map((d) => `${d.name}-${d.version}`);
}

function run(cmd: string, args: string[], quiet: boolean, env?: NodeJS.ProcessEnv): { ok: boolean; output: string } {
  const r = spawnSync(cmd, args, {
    cwd: engineDir,
    env: env ?? process.env,
    encoding: 'utf8',
    stdio: quiet ? ['ignore', 'pipe', 'pipe'] : ['ignore', 'inherit', 'inherit'],
    maxBuffer: 64 * 1024 * 1024,
  });
  if (r.error) return { ok: false, output: String(r.error) };
  return { ok: r.status === 0, output: `${r.stdout ?? ''}${r.stderr ?? ''}` };
}

function commandExists(cmd: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;
}

/** Cargo flags selecting Debian's packaged crates (offline), or none (registry). */
function cargoSourceFlags(quiet: boolean): string[] {
  if (process.env.ENGINE_CARGO_REGISTRY === 'crates-io') return [];
  let missing = missingDebianCrates();
  if (missing.length > 0 && process.getuid?.() === 0 && commandExists('apt-get')) {
    const pkgs = readFileSync(join(engineDir, 'debian-packages.txt'), 'utf8').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
    if (!quiet) console.error(`engine: installing Debian crates: ${pkgs.join(' ')}`);
    const r = run('apt-get', ['install', '-y', '--no-install-recommends', ...pkgs], quiet, { ...process.env, DEBIAN_FRONTEND: 'noninteractive' });
    if (!r.ok) throw new EngineBuildError(`apt-get install of engine/debian-packages.txt failed:\n${r.output.slice(-4000)}`);
    missing = missingDebianCrates();
  }
  if (missing.length === 0) {
    const config = join(tmpdir(), 'leakwell-engine-cargo-offline.toml');
    writeFileSync(config, [
      '[source.crates-io]', 'replace-with = "debian-packaged"',
      '[source.debian-packaged]', `directory = "${debianRegistry}"`,
      '[net]', 'offline = true', '',
    ].join('\n'));
    return ['--config', config];
  }
  if (existsSync(debianRegistry)) {
    throw new EngineBuildError(
      `engine: Debian crates missing from ${debianRegistry}: ${missing.join(', ')}. ` +
        'Install them with: apt-get install -y --no-install-recommends $(cat engine/debian-packages.txt), ' +
        'or set ENGINE_CARGO_REGISTRY=crates-io on a machine that reaches the crates registry.',
    );
  }
  return []; // no Debian registry at all: a connected machine, build from crates.io
}

let building: Promise<string> | undefined;

/** Build the addon if missing or stale; returns the path of the .node file. */
export async function ensureEngineBuilt(opts: { quiet?: boolean; force?: boolean } = {}): Promise<string> {
  if (!opts.force && addonState() === 'current') return addonPath;
  building ??= Promise.resolve().then(() => buildNow(opts.quiet ?? false));
  try {
    return await building;
  } finally {
    building = undefined;
  }
}

function buildNow(quiet: boolean): string {
  if (!commandExists('cargo')) throw new EngineBuildError('engine: cargo is not installed (Rust >= 1.63 is needed to build the search engine)');
  const flags = cargoSourceFlags(quiet);
  if (!quiet) console.error('engine: building the search engine (cargo build --release)…');
  // A lock made against another source (registry vs Debian) would not resolve here.
  const lock = join(engineDir, 'Cargo.lock');
  let r = run('cargo', ['build', '--release', '--lib', ...flags], quiet);
  if (!r.ok && existsSync(lock) && /checksum|lock file|failed to select a version|Cargo.lock/i.test(r.output)) {
    renameSync(lock, `${lock}.stale`);
    r = run('cargo', ['build', '--release', '--lib', ...flags], quiet);
  }
  if (!r.ok) throw new EngineBuildError(`engine: cargo build failed${quiet ? `:\n${r.output.slice(-6000)}` : ' (see above)'}`);
  const so = join(targetDir, 'release', libName);
  if (!existsSync(so)) throw new EngineBuildError(`engine: cargo did not produce ${so}`);
  mkdirSync(dirname(addonPath), { recursive: true });
  // Copy then rename: a process loading the addon never sees a half-written file.
  const tmp = `${addonPath}.tmp-${process.pid}`;
  copyFileSync(so, tmp);
  renameSync(tmp, addonPath);
  return addonPath;
}

/** Runs the Rust tests of every crate of the workspace with the same crate source as the build. */
export function runRustTests(): boolean {
  if (!commandExists('cargo')) throw new EngineBuildError('engine: cargo is not installed');
  return run('cargo', ['test', '--profile', 'release-tests', '--workspace', ...cargoSourceFlags(false)], false).ok;
}

const isMain = process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1];
if (isMain && process.argv.includes('--test')) {
  process.exit(runRustTests() ? 0 : 1);
} else if (isMain) {
  const force = process.argv.includes('--force');
  const quiet = process.argv.includes('--quiet');
  ensureEngineBuilt({ quiet, force })
    .then((p) => console.log(p))
    .catch((e: unknown) => {
      console.error(e instanceof Error ? e.message : e);
      process.exit(1);
    });
}
