/**
 * An operator command kept in its own module under scripts/admin/ (wells, accounts, audit,
 * backup…), so that admin.ts stays a dispatcher. Each command parses its own options
 * (strictly); `--operator NAME` is accepted by every one and names who runs it in the audit
 * log (default: the OS user).
 */
import type { ParseArgsConfig } from 'node:util';

export type OptionValues = Record<string, string | boolean | string[] | undefined>;

export interface AdminCommand {
  // Its lines of the usage text are in scripts/admin/usage.ts (`--help` loads no command).
  options: NonNullable<ParseArgsConfig['options']>;
  /** Runs with parsed options and the operator's name; returns the exit code. */
  run(values: OptionValues, context: { operator: string }): Promise<number>;
}

export type AdminCommands = Record<string, AdminCommand>;
