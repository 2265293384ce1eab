/** The operator commands of sign-in (`npm run admin -- user:reset-2fa`). */
import type { CommandTable } from '../infra/operator-commands';

export const AUTH_COMMANDS: CommandTable = {
  commands: [
    {
      name: 'user:reset-2fa',
      args: '--email E [--reason T]',
      description:
        'Turns two-factor sign-in off for an account (TOTP, recovery codes and passkeys) after support has confirmed the owner; ' +
        "recorded in the audit log and in the owner's notices.",
      options: { email: { type: 'string' }, reason: { type: 'string' } },
      run: async (context, values) => (await import('./reset-two-factor-cli')).resetTwoFactorCommand(context, values),
    },
  ],
};
