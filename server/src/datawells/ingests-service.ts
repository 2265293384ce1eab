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

/** Pass the caller's transaction to record both or neither. */
export async function recordIngest(db: Kysely<Database>, ingest: DataWellUpsert): Promise<void> {
  await upsertDataWell(db, ingest);
  // Monitoring: a segment new to the database is recorded for matching and the servers
  // told on commit (NOTIFY); a replayed or baseline one is left alone, never matched twice.
  await recordSegment(db, { segmentId: ingest.segmentId, well: ingest.name, records: ingest.recordCount });
}
