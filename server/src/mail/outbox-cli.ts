/** `outbox [--to E] [--limit N]`: the latest stored mails (20 by default), each with its links. */
import { withDatabase } from '../db/cli-database';
import { stringOption, wholeNumberOption, type OptionValues } from '../infra/operator-commands';
import { extractLinks } from './mail-service';
import { readOutbox } from './outbox-repository';

export async function outboxCommand(values: OptionValues): Promise<number> {
  const limit = wholeNumberOption(values, 'limit') ?? 20;
  const to = stringOption(values, 'to');
  return withDatabase(async (db) => {
    const rows = await readOutbox(db, { limit, ...(to ? { to } : {}) });
    for (const row of rows) {
      process.stdout.write(`#${row.id} ${row.created_at.toISOString()} to ${row.to_address}: ${row.subject}\n`);
      for (const link of extractLinks(row.text_body)) process.stdout.write(`    ${link}\n`);
    }
    if (rows.length === 0) process.stdout.write('The outbox is empty.\n');
    return 0;
  });
}
