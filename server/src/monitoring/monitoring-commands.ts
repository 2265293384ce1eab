/** The operator commands of monitoring (`npm run admin -- notify:global | domain:verify`). */
import type { CommandTable } from '../infra/operator-commands';

const operator = () => import('./monitoring-cli');

export const MONITORING_COMMANDS: CommandTable = {
  commands: [
    {
      name: 'notify:global',
      args: '--message TEXT',
      description:
        'Posts TEXT (plain text) as a notice in the inbox of every open account (one row each: seen and delete are per user; ' +
        'accounts opened later do not get it). Prints how many.',
      options: { message: { type: 'string' } },
      run: async (context, values) => (await operator()).globalNoticeCommand(context, values),
    },
    {
      name: 'domain:verify',
      args: '--email E --domain D',
      description:
        "Marks domain D verified for account E (the operator's override of the DNS, file or mail proof): its domain tasks, D's " +
        'subdomains included, show record values for a year, as after any verification.',
      options: { email: { type: 'string' }, domain: { type: 'string' } },
      run: async (context, values) => (await operator()).verifyDomainCommand(context, values),
    },
  ],
};
