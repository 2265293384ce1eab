/**
 * Operator CLI: `npm run admin -- <command> [options]` (built into dist/admin.mjs by
 * scripts/build.mjs). Works whether or not the server is running (it talks to the same
 * database; see server/src/db/cli-database.ts). The commands are the features' tables
 * (scripts/admin/commands.ts); this file finds the one asked for, parses its options and
 * runs it. Only the tables load before that, so `--help` answers at once and a command
 * loads only its own modules.
 */
import { parseArgs } from 'node:util';
import { UsageError } from '../server/src/infra/operator-commands';
import { findCommand } from './admin/commands';
import { USAGE, asksForUsage } from './admin/usage';

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || asksForUsage(argv)) {
    process.stdout.write(USAGE);
    return name ? 0 : 2;
  }
  const command = findCommand(name);
  if (!command) throw new UsageError(`unknown command "${name}"`);
  const { values } = parseArgs({ args: rest, strict: true, options: { ...command.options, operator: { type: 'string' } } });
  const { operatorName } = await import('../server/src/audit/audit-service');
  return command.run({ operator: operatorName(values.operator as string | undefined) }, values);
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error) => {
    if (error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`admin: ${(error as Error).message}\n\n${USAGE}`);
      process.exit(2);
    }
    process.stderr.write(`admin: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
