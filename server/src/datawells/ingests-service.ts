/**
 * An ingest recorded once its segment is published in the index: the well added to the
 * catalogue (or its count and data types grown) and the segment recorded for monitoring's
 * matching. `npm run ingest` does it for every published segment after each ingest
 * (scripts/ingest.ts); the tests and load tests' in-memory ingests do it for theirs
 * (scripts/lib/ingest-records.ts). Idempotent per segment id.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import { recordSegment } from '../monitoring/matching-service';
import { upsertDataWell, type DataWellUpsert } from './datawells-repository';

/**
 * Whether an ingest is a stealer log: more than half of its records came from combolist
 * lines that began with a URL (`URL:login:password`, the form infostealer logs are shared
 * in; the engine counts them per file as `stealerLines`). Its well is then marked
 * is_stealer_log (Breach API v3's IsStealerLog) without an operator's step; an operator
 * corrects it with `well:update --no-stealer-log`. A combolist with a few URL lines, or a
 * CSV with a website column, stays an ordinary breach.
 */
export function isStealerLogIngest(files: readonly { records: number; stealerLines: number }[]): boolean {
  const records = files.reduce((n, f) => n + f.records, 0);
  const stealer = files.reduce((n, f) => n + f.stealerLines, 0);
  return records > 0 && stealer * 2 > records;
}

/** Pass the caller's transaction to record both or neither. */
export async function recordIngest(db: Kysely<Database>, ingest: DataWellUpsert): Promise<void> {
  await upsertDataWell(db, ingest);
  // Monitoring: a segment new to the database is recorded for matching and the servers
  // told on commit (NOTIFY); a replayed or baseline one is left alone, never matched twice.
  await recordSegment(db, { segmentId: ingest.segmentId, well: ingest.name, records: ingest.recordCount });
}
