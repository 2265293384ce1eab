/**
 * The command line of a shipped operator command (or the server) run built, as
 * `npm run NAME` (`npm run serve`) runs it through scripts/run.mjs:
 * `spawn(process.execPath, cliArgs('admin', ['user:list']))`. Tests and tools spawn them this
 * way, so they exercise the bundles of dist/ that ship.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const LAUNCHER = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'run.mjs');

export type CliCommand = 'admin' | 'ingest' | 'whois-ingest' | 'server';

export function cliArgs(command: CliCommand, args: readonly string[] = []): string[] {
  return [LAUNCHER, command, ...args];
}
