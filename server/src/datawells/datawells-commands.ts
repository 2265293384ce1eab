/** The operator commands on data wells (`npm run admin -- well:…`; README.md, "Operator commands"). */
import type { CommandOptions, CommandTable } from '../infra/operator-commands';
import type { WellFlagColumn } from './datawells-repository';

const wells = () => import('./wells-cli');
const indexDir = { type: 'string' } as const;

/** well:update's flags of the breach model (Breach API v3): `--X` sets one, `--no-X` clears it. */
export const WELL_FLAGS: readonly { option: string; column: WellFlagColumn }[] = [
  { option: 'sensitive', column: 'is_sensitive' },
  { option: 'verified', column: 'is_verified' },
  { option: 'fabricated', column: 'is_fabricated' },
  { option: 'retired', column: 'is_retired' },
  { option: 'spam-list', column: 'is_spam_list' },
  { option: 'malware', column: 'is_malware' },
  { option: 'subscription-free', column: 'is_subscription_free' },
  { option: 'stealer-log', column: 'is_stealer_log' },
];

const flagOptions: CommandOptions = Object.fromEntries(
  WELL_FLAGS.flatMap(({ option }) => [
    [option, { type: 'boolean' }],
    [`no-${option}`, { type: 'boolean' }],
  ]),
);
const flagArgs = WELL_FLAGS.map(({ option }) => `[--${option}|--no-${option}]`).join(' ');

export const DATAWELLS_COMMANDS: CommandTable = {
  commands: [
    {
      name: 'well:list',
      args: '[--json] [--index-dir DIR]',
      description:
        'Every data well: name, records, date, description, sensitive flag, when it was first ingested and its index bytes (its ' +
        'share of each segment holding its records).',
      options: { json: { type: 'boolean', default: false }, 'index-dir': indexDir },
      run: async (_context, values) => (await wells()).listWellsCommand(values),
    },
    {
      name: 'well:update',
      args: `--well NAME [--description T] [--date YYYY-MM-DD] [--rename NEW] [--breach-name N] [--domain D] [--logo PATH] ${flagArgs} [--reason T]`,
      description:
        "Corrects a well's catalogue entry and breach model (Breach API v3: --breach-name its Name, --domain, --logo a " +
        "same-origin path, the flags; '' clears --domain and --logo); seen at once by every server. --rename also renames " +
        "its records' database_name in search results (every server within a second).",
      options: {
        well: { type: 'string' },
        description: { type: 'string' },
        date: { type: 'string' },
        rename: { type: 'string' },
        'breach-name': { type: 'string' },
        domain: { type: 'string' },
        logo: { type: 'string' },
        ...flagOptions,
        reason: { type: 'string' },
        'index-dir': indexDir,
      },
      run: async (context, values) => (await wells()).updateWellCommand(context, values),
    },
    {
      name: 'well:delete',
      args: '--well NAME [--reason T] [--purge]',
      description:
        'Takes a well down: its records leave every search, export, count, password check and monitoring match on every server ' +
        'within a second, and its catalogue entry goes. Its bytes are reclaimed by the next merge, or now with --purge (rewrites ' +
        'the segments holding them).',
      options: { well: { type: 'string' }, reason: { type: 'string' }, purge: { type: 'boolean', default: false }, 'index-dir': indexDir },
      run: async (context, values) => (await wells()).deleteWellCommand(context, values),
    },
  ],
};
