/** `audit:list`: the operators' audit log (server/src/audit/audit-service.ts), oldest first. */
import { withDatabase } from '../../server/src/db/cli-database';
import { listAudit } from '../../server/src/audit/audit-service';
import { UsageError } from '../lib/cli';
import type { AdminCommands } from '../lib/admin-command';

/** `--since`: a day (YYYY-MM-DD, from its start UTC) or an ISO 8601 time with its zone. */
export function parseSince(value: string): Date {
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) {
    const day = new Date(`${value}T00:00:00Z`);
    if (!Number.isNaN(day.getTime()) && day.toISOString().slice(0, 10) === value) return day;
  } else if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:\d{2})$/.test(value)) {
    const time = new Date(value);
    if (!Number.isNaN(time.getTime())) return time;
  }
  throw new UsageError('--since takes a date YYYY-MM-DD or an ISO time such as 2026-11-28T09:30:00Z');
}

export const auditCommands: AdminCommands = {
  'audit:list': {
    options: { since: { type: 'string' }, limit: { type: 'string' }, json: { type: 'boolean' } },
    async run(values) {
      const since = typeof values.since === 'string' ? parseSince(values.since.trim()) : undefined;
      let limit: number | undefined;
      if (typeof values.limit === 'string') {
        if (!/^\d{1,7}$/.test(values.limit) || Number(values.limit) === 0) throw new UsageError('--limit takes a positive whole number');
        limit = Number(values.limit);
      }
      return withDatabase(async (db) => {
        const rows = await listAudit(db, { since, limit });
        if (values.json) {
          process.stdout.write(`${JSON.stringify(rows.map((row) => ({ ...row, at: row.at.toISOString() })))}\n`);
          return 0;
        }
        if (rows.length === 0) {
          process.stdout.write('No audit entries.\n');
          return 0;
        }
        for (const row of rows) {
          const details = Object.keys(row.details).length ? ` ${JSON.stringify(row.details)}` : '';
          process.stdout.write(
            `#${row.id} ${row.at.toISOString()} ${row.operator} ${row.action}${row.target ? ` ${row.target}` : ''}${row.reason ? ` (reason: ${JSON.stringify(row.reason)})` : ''}${details}\n`,
          );
        }
        return 0;
      });
    },
  },
};
