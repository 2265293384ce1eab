/** The operator command of the search index (`npm run admin -- index:upgrade`). */
import type { CommandTable } from '../infra/operator-commands';

export const SEARCH_COMMANDS: CommandTable = {
  commands: [
    {
      name: 'index:upgrade',
      args: '[--index-dir DIR] [--json]',
      description:
        "Rewrites every segment of the index written in an older format in the engine's current one (each alone, published like " +
        "a merge: safe while the server serves the index) and prints each one's old and new format and records; a second run " +
        'does nothing and says so. An index holding a segment too old for this engine is refused before anything is rewritten, ' +
        'with what to do.',
      options: { json: { type: 'boolean', default: false }, 'index-dir': { type: 'string' } },
      run: async (context, values) => (await import('./index-upgrade-cli')).upgradeIndexCommand(context, values),
    },
  ],
};
