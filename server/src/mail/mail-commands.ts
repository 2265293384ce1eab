/** The operator command of the mail (`npm run admin -- outbox`). */
import type { CommandTable } from '../infra/operator-commands';

export const MAIL_COMMANDS: CommandTable = {
  commands: [
    {
      name: 'outbox',
      args: '[--to E] [--limit N]',
      description: 'Lists stored mails and their links (the mailbox of the embedded default).',
      options: { to: { type: 'string' }, limit: { type: 'string' } },
      run: async (_context, values) => (await import('./outbox-cli')).outboxCommand(values),
    },
  ],
};
