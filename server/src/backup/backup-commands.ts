/** The operator commands of backups (`npm run admin -- backup | restore`; README.md). */
import type { CommandTable } from '../infra/operator-commands';

const backup = () => import('./backup-cli');

export const BACKUP_COMMANDS: CommandTable = {
  commands: [
    {
      name: 'backup',
      args: '--out DIR [--json]',
      description:
        'Writes a consistent snapshot of the database and the search index into DIR (new or empty) while the server keeps ' +
        "serving: the database copied in one transaction, the index's immutable segments hard-linked (copied across file " +
        'systems). DIR/backup.json (written last) lists versions and counts. Keep DIR on the same file system as the index for ' +
        'a cheap snapshot; copy it elsewhere for safety.',
      options: { out: { type: 'string' }, json: { type: 'boolean' } },
      run: async (context, values) => (await backup()).backupCommand(context, values),
    },
    {
      name: 'restore',
      args: '--from DIR [--json]',
      description:
        'Restores backup DIR into an empty target: an empty DATA_DIR (embedded default), or an empty DATABASE_URL database and ' +
        'an empty INDEX_DIR; refuses a target holding anything. The server must not run on the target. Prints the restored counts.',
      options: { from: { type: 'string' }, json: { type: 'boolean' } },
      run: async (context, values) => (await backup()).restoreCommand(context, values),
    },
  ],
};
