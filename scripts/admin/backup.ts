/**
 * `backup --out DIR` and `restore --from DIR` (server/src/backup/README.md).
 */
import { loadConfig } from '../../server/src/config';
import { createBackup, restoreBackup } from '../../server/src/backup/backup';
import { UsageError } from '../lib/cli';
import type { AdminCommands } from '../lib/admin-command';

export const BACKUP_COMMANDS: AdminCommands = {
  backup: {
    options: { out: { type: 'string' }, json: { type: 'boolean' } },
    async run(values, { operator }) {
      const out = values.out as string | undefined;
      if (!out) throw new UsageError('backup needs --out DIR');
      const manifest = await createBackup(loadConfig(), { out, operator });
      if (values.json) {
        process.stdout.write(`${JSON.stringify(manifest)}\n`);
        return 0;
      }
      const { counts, index } = manifest;
      process.stdout.write(
        `Backup written to ${out}: ${counts.accounts} accounts, ${counts.credit_ledger} credit ledger rows, ${counts.monitor_tasks} monitoring tasks, ` +
          `${counts.data_wells} data wells; index ${index.segments} segments, ${index.records} records, ${index.bytes} bytes\n`,
      );
      if (index.uncatalogued_segments.length)
        process.stdout.write(`Note: ${index.uncatalogued_segments.length} segment(s) without a catalogue entry (an ingest finishing, or a taken-down well awaiting its merge): ${index.uncatalogued_segments.join(', ')}\n`);
      return 0;
    },
  },
  restore: {
    options: { from: { type: 'string' }, json: { type: 'boolean' } },
    async run(values, { operator }) {
      const from = values.from as string | undefined;
      if (!from) throw new UsageError('restore needs --from DIR');
      const { manifest, counts } = await restoreBackup(loadConfig(), { from, operator });
      if (values.json) {
        process.stdout.write(`${JSON.stringify({ backup: manifest, restored: counts })}\n`);
        return 0;
      }
      process.stdout.write(
        `Restored the backup of ${manifest.created_at}: ${counts.accounts} accounts, ${counts.credit_ledger} credit ledger rows, ${counts.monitor_tasks} monitoring tasks, ` +
          `${counts.data_wells} data wells; index ${manifest.index.segments} segments, ${manifest.index.records} records\n`,
      );
      return 0;
    },
  },
};
