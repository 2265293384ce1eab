/**
 * The operator commands on accounts (`npm run admin -- user:…`): creating and granting,
 * listing, suspending, law-enforcement status. Every change writes its audit entry.
 */
import type { CommandOptions, CommandTable, OperatorCommand, OptionGroup } from '../infra/operator-commands';

const grant = () => import('./operator-grant-cli');
const accounts = () => import('./operator-accounts-cli');

/** What user:create and user:grant give; the usage text lists them as "Grant options". */
const GRANT_FLAGS: readonly { name: string; type: 'string' | 'boolean'; arg?: string; help: string }[] = [
  { name: 'verified', type: 'boolean', help: 'mark the email verified' },
  { name: 'search-days', type: 'string', arg: 'N', help: 'extend the search subscription by N days' },
  { name: 'search-credits', type: 'string', arg: 'N', help: 'add N search (API) credits (a credit_ledger row, reason admin-grant)' },
  { name: 'whois-credits', type: 'string', arg: 'N', help: 'add N WHOIS credits' },
  { name: 'enterprise', type: 'boolean', help: 'enterprise plan' },
  { name: 'elevated', type: 'boolean', help: 'elevated (always active)' },
  { name: 'le', type: 'boolean', help: 'refused: law-enforcement status needs the reference of its verification, see user:set-le' },
  { name: 'api-key', type: 'boolean', help: 'generate a new API key and print it (shown once)' },
  { name: 'json', type: 'boolean', help: 'print {id, email[, api_key]} as JSON' },
];

const GRANT_OPTIONS: CommandOptions = Object.fromEntries(GRANT_FLAGS.map((flag) => [flag.name, { type: flag.type }]));

const GRANT_GROUP: OptionGroup = {
  heading: 'Grant options',
  options: GRANT_FLAGS.map((flag) => [`--${flag.name}${flag.arg ? ` ${flag.arg}` : ''}`, flag.help] as const),
};

const email = { type: 'string' } as const;
const reason = { type: 'string' } as const;

const commands: OperatorCommand[] = [
  {
    name: 'user:create',
    args: '--email E --password P [grant options] [--api-key] [--json]',
    description: 'Creates an account (add --verified to skip email verification).',
    options: { email, password: { type: 'string' }, ...GRANT_OPTIONS },
    run: async (context, values) => (await grant()).grantCommand('user:create', context, values),
  },
  {
    name: 'user:grant',
    args: '--email E [grant options] [--api-key] [--json]',
    description: 'Adds to an existing account.',
    options: { email, ...GRANT_OPTIONS },
    run: async (context, values) => (await grant()).grantCommand('user:grant', context, values),
  },
  {
    name: 'user:list',
    args: '[--query TEXT] [--json]',
    description:
      'Lists accounts, newest first (closed ones too): email, created, verified, plan, credits, flags (suspended, law-enforcement, ' +
      'search-barred, closed) and last sign-in. --query keeps those whose email contains TEXT. --json prints a JSON array.',
    options: { query: { type: 'string' }, json: { type: 'boolean' } },
    run: async (_context, values) => (await accounts()).listAccountsCommand(values),
  },
  {
    name: 'user:suspend',
    args: '--email E --reason TEXT',
    description:
      'Suspends account E: sign-in is refused (the message names support), its sessions end, its API key stops on /v2 and the ' +
      'Monitor API, its monitoring pauses (no matching, no alerts). Nothing is deleted; user:unsuspend undoes it.',
    options: { email, reason },
    run: async (context, values) => (await accounts()).suspendCommand(context, values),
  },
  {
    name: 'user:unsuspend',
    args: '--email E [--reason TEXT]',
    description: 'Lifts the suspension of account E: sign-in, the API key and monitoring work again.',
    options: { email, reason },
    run: async (context, values) => (await accounts()).unsuspendCommand(context, values),
  },
  {
    name: 'user:set-le',
    args: '--email E --reference TEXT',
    description:
      'Gives account E law-enforcement status (raw records), resting on the verification whose reference is TEXT (the ' +
      'know-your-customer file kept outside the product).',
    options: { email, reference: { type: 'string' } },
    run: async (context, values) => (await accounts()).setLawEnforcementCommand(context, values),
  },
  {
    name: 'user:unset-le',
    args: '--email E [--reason TEXT]',
    description: 'Ends the law-enforcement status of account E (its reference stays in the audit log).',
    options: { email, reason },
    run: async (context, values) => (await accounts()).unsetLawEnforcementCommand(context, values),
  },
];

export const USERS_COMMANDS: CommandTable = { commands, optionGroups: [GRANT_GROUP] };
