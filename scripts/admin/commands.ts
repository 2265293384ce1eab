import type { AdminCommands } from '../lib/admin-command';
import { WELL_COMMANDS } from './wells';
import { BACKUP_COMMANDS } from './backup';
import { accountCommands } from './accounts';
import { auditCommands } from './audit';
import { TWO_FACTOR_COMMANDS } from './two-factor';
import { INDEX_COMMANDS } from './index-upgrade';

/**
 * Commands kept in their own modules (scripts/admin/*.ts): add a module's table here, and
 * its commands' lines to the usage text (scripts/admin/usage.ts).
 */
export const MODULE_COMMANDS: AdminCommands = {
  ...WELL_COMMANDS,
  ...BACKUP_COMMANDS,
  ...accountCommands,
  ...auditCommands,
  ...TWO_FACTOR_COMMANDS,
  ...INDEX_COMMANDS,
};
