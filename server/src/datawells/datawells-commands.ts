/** The operator commands on data wells (`npm run admin -- well:…`; README.md, "Operator commands"). */
import type { CommandTable } from '../infra/operator-commands';

const wells = () => import('./wells-cli');
const indexDir = { type: 'string' } as const;

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
      args: '--well NAME [--description T] [--date YYYY-MM-DD] [--sensitive|--no-sensitive] [--rename NEW] [--reason T]',
      description:
        "Corrects a well's catalogue entry; seen at once by every server. --rename also renames its records' database_name in " +
        'search results (every server within a second).',
      options: {
        well: { type: 'string' },
        description: { type: 'string' },
        date: { type: 'string' },
        sensitive: { type: 'boolean' },
        'no-sensitive': { type: 'boolean' },
        rename: { type: 'string' },
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
