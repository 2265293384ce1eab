/**
 * The command line of a shipped operator command (or the server) run compiled, as
 * `npm run NAME` (`npm start`) runs it through scripts/cli.mjs:
 * `spawn(process.execPath, cliArgs('admin', ['user:list']))`. Tests and tools spawn them this
 * way rather than through tsx, which compiles them anew at every start.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const LAUNCHER = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'cli.mjs');

export type CliCommand = 'admin' | 'ingest' | 'whois-ingest' | 'whois-bootstrap' | 'corpus' | 'server';

export function cliArgs(command: CliCommand, args: readonly string[] = []): string[] {
  return [LAUNCHER, command, ...args];
}
