/**
 * The operators' audit log's SQL (migration 20261128T0010): rows are only appended (the
 * table's triggers refuse updates and deletes). Other features go through audit-service.ts.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';

export interface AuditEntry {
  /** Who: `--operator NAME`, else the OS user running the command. */
  operator: string;
  /** The command, e.g. `user:suspend`, `well:delete`. */
  action: string;
  /** What it acted on: an account's email, a well's name, a product's SKU… */
  target?: string | null;
  /** Why (`--reason`), when given. */
  reason?: string | null;
  /** What changed, as JSON (never a secret: no passwords, keys or tokens). */
  details?: Record<string, unknown>;
}

export interface AuditRow {
  id: string;
  at: Date;
  operator: string;
  action: string;
  target: string | null;
  reason: string | null;
  details: Record<string, unknown>;
}

/** Appends one entry; pass the command's transaction so the change and its record land together. */
export async function insertAudit(db: Kysely<Database>, entry: AuditEntry): Promise<void> {
  await db
    .insertInto('audit_log')
    .values({
      operator: entry.operator,
      action: entry.action,
      target: entry.target ?? null,
      reason: entry.reason ?? null,
      details: JSON.stringify(entry.details ?? {}),
    })
    .execute();
}

/** Entries at or after `since` (all when absent), oldest first, at most `limit`. */
export async function listAudit(db: Kysely<Database>, options: { since?: Date; limit?: number } = {}): Promise<AuditRow[]> {
  let query = db.selectFrom('audit_log').selectAll().orderBy('id', 'asc');
  if (options.since) query = query.where('at', '>=', options.since);
  if (options.limit) query = query.limit(options.limit);
  const rows = await query.execute();
  return rows.map((row) => ({ ...row, id: String(row.id) }));
}
