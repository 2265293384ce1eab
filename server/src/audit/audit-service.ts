/**
 * The operators' audit log: one append-only row per operator command that changes something
 * (the CLI's commands, the backup's restore). Features write it through here, never through
 * the repository, so the log's rules (who the operator is) live in one place.
 */
import os from 'node:os';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import * as repo from './audit-repository';

export type { AuditEntry, AuditRow } from './audit-repository';

/** The operator to record: the given name (trimmed, non-empty) or the OS user. */
export function operatorName(given?: string): string {
  const name = given?.trim();
  if (name) return name.slice(0, 200);
  try {
    return os.userInfo().username;
  } catch {
    return process.env.USER ?? 'unknown';
  }
}

/** Appends one entry; pass the command's transaction so the change and its record land together. */
export function recordAudit(db: Kysely<Database>, entry: repo.AuditEntry): Promise<void> {
  return repo.insertAudit(db, entry);
}

/** Entries at or after `since` (all when absent), oldest first, at most `limit`. */
export function listAudit(db: Kysely<Database>, options: { since?: Date; limit?: number } = {}): Promise<repo.AuditRow[]> {
  return repo.listAudit(db, options);
}
