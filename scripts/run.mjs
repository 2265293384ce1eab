// Runs a built part of LeakWell with plain Node: `node scripts/run.mjs NAME [ARGS…]` runs
// dist/NAME.mjs (`npm run serve` is NAME=server; `npm run admin|ingest|whois-ingest`).
// No dependencies; part of the artifact (scripts/artifact.sh).
//
// In the artifact, and in any tree without the build tools, it runs what `npm run build`
// made and builds nothing. In a development checkout (the sources and esbuild present) it
// first rebuilds what is stale, so an edited source is what runs: the bundles, and the
// engine addon for the server and `ingest`.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { runOnSupportedNode } from './node-runtime.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const NAMES = ['server', 'admin', 'ingest', 'whois-ingest'];

const [name, ...args] = process.argv.slice(2);
if (!NAMES.includes(name)) {
  process.stderr.write(`usage: node scripts/run.mjs ${NAMES.join('|')} [args…]\n`);
  process.exit(2);
}
await runOnSupportedNode();

const entry = path.join(ROOT, 'dist', `${name}.mjs`);
const developing = fs.existsSync(path.join(ROOT, 'server', 'src')) && fs.existsSync(path.join(ROOT, 'node_modules', 'esbuild', 'package.json'));
if (developing) {
  const { ensureBuilt } = await import('./build.mjs');
  const help = args.length === 1 && (args[0] === '--help' || args[0] === '-h');
  const parts = (name === 'server' || name === 'ingest') && !help ? ['engine', 'bundles'] : ['bundles'];
  try {
    await ensureBuilt({ parts });
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  }
} else if (!fs.existsSync(entry)) {
  const install = fs.existsSync(path.join(ROOT, 'node_modules')) ? '' : 'npm ci, then ';
  process.stderr.write(`${path.relative(process.cwd(), entry) || entry} is not built: run ${install}npm run build (or npm start, which does both).\n`);
  process.exit(1);
}

if (name === 'server') {
  // `npm run serve` runs this through `sh -c`, which dies of a SIGTERM sent to npm's pid
  // without passing it on: the server would run on, orphaned. A parent gone is taken as that
  // SIGTERM (the server shuts down gracefully). Run directly (the image's PID 1), it has no
  // parent to lose.
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent) process.kill(process.pid, 'SIGTERM');
  }, 500).unref();
}
// The command sees itself as the program, as `node dist/NAME.mjs` would.
process.argv = [process.argv[0], entry, ...args];
await import(pathToFileURL(entry).href);
