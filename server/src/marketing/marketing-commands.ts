/** The operator commands of the marketing banner (`npm run admin -- banner:set | banner:clear`). */
import type { CommandTable } from '../infra/operator-commands';

const banner = () => import('./banner-cli');

export const MARKETING_COMMANDS: CommandTable = {
  commands: [
    {
      name: 'banner:set',
      args: '--message TEXT',
      description:
        'Shows TEXT as the marketing banner on every dashboard page and prints its id (a new id: visitors who dismissed the ' +
        'previous banner see this one). Markup: b, strong, i, em, u, br, p, span and a href="http(s)://…"; anything else is refused.',
      options: { message: { type: 'string' } },
      run: async (context, values) => (await banner()).setBannerCommand(context, values),
    },
    {
      name: 'banner:clear',
      args: '',
      description: 'Removes the banner.',
      options: {},
      run: async (context) => (await banner()).clearBannerCommand(context),
    },
  ],
};
