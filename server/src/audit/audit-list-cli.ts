/** `audit:list`: the operators' audit log (audit-service.ts), oldest first. */
import { withDatabase } from '../db/cli-database';
import { UsageError, stringOption, type OptionValues } from '../infra/operator-commands';
import { listAudit, type AuditRow } from './audit-service';

/** `--since`: a day (YYYY-MM-DD, from its start UTC) or an ISO 8601 time with its zone. */
function parseSince(value: string): Date {
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) {
    const day = new Date(`${value}T00:00:00Z`);
    if (!Number.isNaN(day.getTime()) && day.toISOString().slice(0, 10) === value) return day;
  } else if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:\d{2})$/.test(value)) {
    const time = new Date(value);
    if (!Number.isNaN(time.getTime())) return time;
  }
  throw new UsageError('--since takes a date YYYY-MM-DD or an ISO time such as 2026-11-28T09:30:00Z');
}

function limitOf(values: OptionValues): number | undefined {
  const limit = stringOption(values, 'limit');
  if (limit === undefined) return undefined;
  if (!/^\d{1,7}$/.test(limit) || Number(limit) === 0) throw new UsageError('--limit takes a positive whole number');
  return Number(limit);
}

function printRow(row: AuditRow): void {
  const details = Object.keys(row.details).length ? ` ${JSON.stringify(row.details)}` : '';
  process.stdout.write(
    `#${row.id} ${row.at.toISOString()} ${row.operator} ${row.action}${row.target ? ` ${row.target}` : ''}${row.reason ? ` (reason: ${JSON.stringify(row.reason)})` : ''}${details}\n`,
  );
}

export async function auditListCommand(values: OptionValues): Promise<number> {
  const since = stringOption(values, 'since');
  const options = { since: since === undefined ? undefined : parseSince(since.trim()), limit: limitOf(values) };
  return withDatabase(async (db) => {
    const rows = await listAudit(db, options);
    if (values.json) {
      process.stdout.write(`${JSON.stringify(rows.map((row) => ({ ...row, at: row.at.toISOString() })))}\n`);
      return 0;
    }
    if (rows.length === 0) {
      process.stdout.write('No audit entries.\n');
      return 0;
    }
    for (const row of rows) printRow(row);
    return 0;
  });
}
