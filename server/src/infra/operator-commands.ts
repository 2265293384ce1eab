/**
 * The operator commands of `npm run admin -- <command>`. Each feature offers its own in one
 * table (`<feature>-commands.ts`); scripts/admin.ts merges the tables, generates the usage
 * text from them and runs the command asked for. A table loads nothing but itself: each
 * command's `run` imports the module that does the work when it runs, so `--help` (and any
 * one command) loads only what it needs.
 */
import type { ParseArgsConfig } from 'node:util';

export type CommandOptions = NonNullable<ParseArgsConfig['options']>;

export type OptionValues = Record<string, string | boolean | string[] | undefined>;

export interface CommandContext {
  /** Who runs the command, for the audit log: `--operator NAME`, else the OS user. */
  operator: string;
}

export interface OperatorCommand {
  name: string;
  /** Its arguments as the usage text shows them after the name. */
  args: string;
  /** What it does, one paragraph (the usage text wraps it). */
  description: string;
  /** Parsed strictly; `--operator NAME` is accepted by every command besides these. */
  options: CommandOptions;
  /** Runs with the parsed options; returns the exit code. */
  run(context: CommandContext, values: OptionValues): Promise<number>;
}

/** A list of options that synopses name in words (`[grant options]`), shown after the commands. */
export interface OptionGroup {
  heading: string;
  /** `--flag ARG` and what it does. */
  options: readonly (readonly [flag: string, help: string])[];
}

/** One feature's operator commands. */
export interface CommandTable {
  commands: readonly OperatorCommand[];
  optionGroups?: readonly OptionGroup[];
}

/** A command line that cannot run as given; an empty message asks for the usage text. */
export class UsageError extends Error {}

/** A string option's value (undefined when absent or not a string). */
export function stringOption(values: OptionValues, name: string): string | undefined {
  const value = values[name];
  return typeof value === 'string' ? value : undefined;
}

/** `--NAME N`: a whole number of at most 9 digits; undefined when absent. */
export function wholeNumberOption(values: OptionValues, name: string): number | undefined {
  const value = stringOption(values, name);
  if (value === undefined) return undefined;
  if (!/^\d{1,9}$/.test(value)) throw new UsageError(`--${name} takes a whole number`);
  return Number(value);
}
