/** `backup --out DIR` and `restore --from DIR` (README.md; the work is backup.ts). */
import { loadConfig } from '../config';
import { UsageError, stringOption, type CommandContext, type OptionValues } from '../infra/operator-commands';
import { createBackup, restoreBackup } from './backup';

export async function backupCommand({ operator }: CommandContext, values: OptionValues): Promise<number> {
  const out = stringOption(values, 'out');
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
}

export async function restoreCommand({ operator }: CommandContext, values: OptionValues): Promise<number> {
  const from = stringOption(values, 'from');
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
}
