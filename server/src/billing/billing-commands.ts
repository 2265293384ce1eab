/** The operator command of event codes (`npm run admin -- event-code:create`). */
import type { CommandTable } from '../infra/operator-commands';

export const BILLING_COMMANDS: CommandTable = {
  commands: [
    {
      name: 'event-code:create',
      args: '--code CODE --grant SKU:QTY [--grant SKU:QTY ...] [--uses N] [--expires YYYY-MM-DD] [--json]',
      description:
        'Creates an event code (4 to 64 of A-Z a-z 0-9 _ -, matched case-insensitively) that grants catalogue products: ' +
        'search-credits, whois-credits or a *-nonsub-* plan. --uses: how many accounts may redeem it (default 1); --expires: ' +
        'usable through that day (UTC). --json prints {code, grants, max_uses, expires_at}.',
      options: {
        code: { type: 'string' },
        grant: { type: 'string', multiple: true },
        uses: { type: 'string' },
        expires: { type: 'string' },
        json: { type: 'boolean' },
      },
      run: async (context, values) => (await import('./event-code-cli')).createEventCodeCommand(context, values),
    },
  ],
};
