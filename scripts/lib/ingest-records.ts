/**
 * Publishes in-memory records (engine field names) as a new segment of a data well, adds
 * the well to the catalogue, records the segment for monitoring (as `npm run ingest` does)
 * and refreshes a running engine. For tests and load tests;
 * operators use `npm run ingest`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { ingestFiles, type Engine } from '../../engine/index';
import { isStealerLogIngest, recordIngest } from '../../server/src/datawells/ingests-service';
import type { Database } from '../../server/src/db/schema';

export async function ingestRecords(
  target: { indexDir: string; scratchDir: string; db: Kysely<Database>; engine?: Engine },
  well: string,
  records: object[],
): Promise<string> {
  const file = path.join(target.scratchDir, `ingest-${randomBytes(4).toString('hex')}.jsonl`);
  fs.writeFileSync(file, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
  try {
    const result = await ingestFiles(target.indexDir, { well, files: [file], format: 'jsonl' });
    if (!result.segmentId) throw new Error(`nothing ingested into ${well}`);
    await recordIngest(target.db, {
      name: well,
      date: null,
      description: '',
      recordCount: result.records,
      dataTypes: result.fields,
      isSensitive: false,
      isStealerLog: isStealerLogIngest(result.files),
      segmentId: result.segmentId,
    });
    await target.engine?.refresh();
    return result.segmentId;
  } finally {
    fs.rmSync(file, { force: true });
  }
}
