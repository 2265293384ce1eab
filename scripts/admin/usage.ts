/**
 * The admin CLI's usage text, generated from the commands' tables (scripts/admin/commands.ts):
 * each command's name and arguments, then what it does; the tables' option groups after.
 */
import type { CommandTable, OptionGroup } from '../../server/src/infra/operator-commands';
import { COMMAND_TABLES } from './commands';

const WIDTH = 92;
const DESCRIPTION_INDENT = '      ';
const FLAG_COLUMN = 22;

/** `text` in lines of at most WIDTH characters: the first after `firstPrefix`, the others after `prefix`. */
function wrap(text: string, prefix: string, firstPrefix = prefix): string {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    const lead = lines.length ? prefix : firstPrefix;
    if (line && lead.length + line.length + 1 + word.length > WIDTH) {
      lines.push(lead + line);
      line = word;
    } else {
      line = line ? `${line} ${word}` : word;
    }
  }
  lines.push((lines.length ? prefix : firstPrefix) + line);
  return lines.join('\n');
}

function tableText(table: CommandTable): string {
  return table.commands.map((c) => `  ${c.name}${c.args ? ` ${c.args}` : ''}\n${wrap(c.description, DESCRIPTION_INDENT)}\n`).join('');
}

function groupText(group: OptionGroup): string {
  const lines = group.options.map(([flag, help]) => wrap(help, ' '.repeat(FLAG_COLUMN + 2), `  ${flag.padEnd(FLAG_COLUMN)}`));
  return `${group.heading}:\n${lines.join('\n')}\n`;
}

export function usageText(tables: readonly CommandTable[]): string {
  const groups = tables.flatMap((table) => table.optionGroups ?? []);
  return [
    'Usage: npm run admin -- <command> [options]\n',
    `Commands:\n${tables.map(tableText).join('\n')}`,
    'Every command also takes --operator NAME: who runs it, for the audit log (default: the OS user).\n',
    ...groups.map(groupText),
  ].join('\n');
}

export const USAGE = usageText(COMMAND_TABLES);

/** Whether the arguments ask for the usage text (none: usage, exit code 2). */
export function asksForUsage(argv: string[]): boolean {
  const [command] = argv;
  return !command || command === 'help' || command === '--help';
}
