/**
 * The admin CLI's commands: every feature's table (`server/src/<feature>/<feature>-commands.ts`),
 * in the order the usage text lists them. A new feature's table is added here; its commands
 * and their usage lines come with it.
 */
import type { CommandTable, OperatorCommand } from '../../server/src/infra/operator-commands';
import { USERS_COMMANDS } from '../../server/src/users/users-commands';
import { AUTH_COMMANDS } from '../../server/src/auth/auth-commands';
import { AUDIT_COMMANDS } from '../../server/src/audit/audit-commands';
import { MAIL_COMMANDS } from '../../server/src/mail/mail-commands';
import { BILLING_COMMANDS } from '../../server/src/billing/billing-commands';
import { PAYMENTS_COMMANDS } from '../../server/src/payments/payments-commands';
import { MARKETING_COMMANDS } from '../../server/src/marketing/marketing-commands';
import { MONITORING_COMMANDS } from '../../server/src/monitoring/monitoring-commands';
import { DATAWELLS_COMMANDS } from '../../server/src/datawells/datawells-commands';
import { SEARCH_COMMANDS } from '../../server/src/search/search-commands';
import { BACKUP_COMMANDS } from '../../server/src/backup/backup-commands';

export const COMMAND_TABLES: readonly CommandTable[] = [
  USERS_COMMANDS,
  AUTH_COMMANDS,
  AUDIT_COMMANDS,
  MAIL_COMMANDS,
  BILLING_COMMANDS,
  PAYMENTS_COMMANDS,
  MARKETING_COMMANDS,
  MONITORING_COMMANDS,
  DATAWELLS_COMMANDS,
  SEARCH_COMMANDS,
  BACKUP_COMMANDS,
];

/** The command named `name`, from whichever table has it. */
export function findCommand(name: string): OperatorCommand | undefined {
  for (const table of COMMAND_TABLES) {
    const command = table.commands.find((c) => c.name === name);
    if (command) return command;
  }
  return undefined;
}
