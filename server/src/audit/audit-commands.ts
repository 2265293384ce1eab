/** The operator command of the audit log (`npm run admin -- audit:list`). */
import type { CommandTable } from '../infra/operator-commands';

export const AUDIT_COMMANDS: CommandTable = {
  commands: [
    {
      name: 'audit:list',
      args: '[--since YYYY-MM-DD|ISO] [--limit N] [--json]',
      description:
        'The audit log, oldest first: when, who (--operator or the OS user), what (the command), on what, why and the details of ' +
        'every operator command that changed something. --since keeps entries from that day (UTC) or time; --limit the first N ' +
        '(default all). --json prints a JSON array.',
      options: { since: { type: 'string' }, limit: { type: 'string' }, json: { type: 'boolean' } },
      run: async (_context, values) => (await import('./audit-list-cli')).auditListCommand(values),
    },
  ],
};
