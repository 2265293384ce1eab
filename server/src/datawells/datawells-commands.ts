/** The operator commands on data wells (`npm run admin -- well:…`; README.md, "Operator commands"). */
import type { CommandOptions, CommandTable, OptionGroup } from '../infra/operator-commands';
import { WELL_FLAGS } from './datawells-repository';

const wells = () => import('./wells-cli');
const indexDir = { type: 'string' } as const;

const flagOptions: CommandOptions = Object.fromEntries(
  WELL_FLAGS.flatMap(({ option }) => [
    [option, { type: 'boolean' }],
    [`no-${option}`, { type: 'boolean' }],
  ]),
);

const BREACH_MODEL_GROUP: OptionGroup = {
  heading: 'Breach model options',
  options: [
    ['--breach-name N', 'Its Name in Breach API v3: 1 to 64 letters, digits, ".", "_" or "-", unique in any case.'],
    ['--domain D', "The breached site's domain (Domain; breaches?domain=); '' for none."],
    ['--logo PATH', "A logo on this server, such as /logos/well.png (LogoPath, under PUBLIC_URL); '' for none."],
    ...WELL_FLAGS.filter(({ option }) => option !== 'sensitive').map(
      ({ option, model }): readonly [string, string] => [`--${option}`, `Sets ${model}; --no-${option} clears it.`],
    ),
  ],
};

export const DATAWELLS_COMMANDS: CommandTable = {
  commands: [
    {
      name: 'well:list',
      args: '[--json] [--index-dir DIR]',
      description:
        'Every data well: name, records, date, description, sensitive flag, when it was first ingested, its index bytes (its ' +
        'share of each segment holding its records) and its breach model (Name, domain, the flags set).',
      options: { json: { type: 'boolean', default: false }, 'index-dir': indexDir },
      run: async (_context, values) => (await wells()).listWellsCommand(values),
    },
    {
      name: 'well:update',
      args: '--well NAME [--description T] [--date YYYY-MM-DD] [--sensitive|--no-sensitive] [--rename NEW] [breach model options] [--reason T]',
      description:
        "Corrects a well's catalogue entry and its breach model in Breach API v3 (breach model options, below); seen at once " +
        "by every server. --rename also renames its records' database_name in search results (every server within a second).",
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
  optionGroups: [BREACH_MODEL_GROUP],
};
