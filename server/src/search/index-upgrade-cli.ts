/**
 * `index:upgrade`: rewrites the index's segments of older formats in the engine's current one
 * (engine/FORMAT.md; docs/decisions/0018-index-upgrade-and-old-formats.md). The work is the
 * engine's (`upgradeIndex`: each old segment merged alone and published like any merge, so a
 * running server keeps serving and picks each new segment up within a second). The audit
 * log is in the database, opened first (the embedded one is started when no server runs it):
 * an upgrade that changed something is always recorded, and a database that cannot be
 * reached stops the command before the index is touched.
 */
import { upgradeIndex, type UpgradeResult } from '../../../engine/index';
import { loadConfig } from '../config';
import { withDatabase } from '../db/cli-database';
import { stringOption, type CommandContext, type OptionValues } from '../infra/operator-commands';
import { recordAudit } from '../audit/audit-service';

const number = (n: number) => n.toLocaleString('en-US');

function describe(result: UpgradeResult): string {
  if (result.upgraded.length === 0 && result.dropped.length === 0) {
    return `Every segment is in format ${result.format} already: nothing to upgrade (${number(result.segments)} segment${result.segments === 1 ? '' : 's'}).\n`;
  }
  const lines = result.upgraded.map((s) => {
    const records = s.recordsAfter === s.records ? `${number(s.records)} records` : `${number(s.records)} -> ${number(s.recordsAfter)} records (taken-down records left out)`;
    return `${s.from}: format ${s.fromFormat} -> ${s.toFormat} as ${s.to}, ${records}\n`;
  });
  if (result.dropped.length) lines.push(`dropped ${result.dropped.length} segment(s) wholly taken down: ${result.dropped.join(', ')}\n`);
  lines.push(`Upgraded ${result.upgraded.length} segment(s) to format ${result.format} in ${(result.elapsedMs / 1000).toFixed(1)} s; ${number(result.segments)} segment(s) in the index.\n`);
  return lines.join('');
}

export async function upgradeIndexCommand({ operator }: CommandContext, values: OptionValues): Promise<number> {
  const indexDir = stringOption(values, 'index-dir') ?? loadConfig().indexDir;
  const result = await withDatabase(async (db) => {
    const done = await upgradeIndex(indexDir);
    if (done.upgraded.length > 0 || done.dropped.length > 0) {
      await recordAudit(db, {
        operator,
        action: 'index:upgrade',
        target: indexDir,
        details: { format: done.format, upgraded: done.upgraded, dropped: done.dropped },
      });
    }
    return done;
  });
  process.stdout.write(values.json ? `${JSON.stringify(result)}\n` : describe(result));
  return 0;
}
