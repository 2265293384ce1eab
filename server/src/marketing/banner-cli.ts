/** `banner:set` and `banner:clear`: the banner changed and its audit entry, in one transaction. */
import { withDatabase } from '../db/cli-database';
import { UsageError, stringOption, type CommandContext, type OptionValues } from '../infra/operator-commands';
import { recordAudit } from '../audit/audit-service';
import { bannerMarkupProblem, createBannerService } from './banner-service';

export async function setBannerCommand({ operator }: CommandContext, values: OptionValues): Promise<number> {
  const message = stringOption(values, 'message')?.trim() ?? '';
  const problem = bannerMarkupProblem(message);
  if (problem) throw new UsageError(`--message: ${problem}`);
  return withDatabase(async (db) => {
    const id = await db.transaction().execute(async (trx) => {
      const bannerId = await createBannerService(trx).set(message);
      await recordAudit(trx, { operator, action: 'banner:set', target: bannerId, details: { message } });
      return bannerId;
    });
    process.stdout.write(`${id}\n`);
    return 0;
  });
}

export async function clearBannerCommand({ operator }: CommandContext): Promise<number> {
  return withDatabase(async (db) => {
    const cleared = await db.transaction().execute(async (trx) => {
      const done = await createBannerService(trx).clear();
      if (done) await recordAudit(trx, { operator, action: 'banner:clear' });
      return done;
    });
    process.stdout.write(cleared ? 'Banner cleared.\n' : 'There was no banner.\n');
    return 0;
  });
}
