/**
 * The `monitor-match` job (README "Segment", "Report"): every active task against one
 * published segment, through the engine's `matchWatches` (cost follows the segment's
 * terms looked up, not a scan per task), then one report per user, each in its own
 * transaction and written once whatever the number of runs, then the deliveries queued.
 */
import type { Kysely } from 'kysely';
import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../db/schema';
import type { QueueSystem } from '../infra/queues';
import { EngineError, type Engine, type FieldName, type WatchInput, type WatchMatch } from '../../../engine/index';
import { REPORT_RECORDS_PER_TASK, type TaskKind } from '../common/monitoring-rules';
import * as repo from './matching-repository';

/** Tasks sent to the engine per call (and held in memory at once). */
export const MATCH_BATCH_SIZE = 10_000;
/** Reports written at once (each is its own transaction). */
const REPORT_CONCURRENCY = 8;
/** Deliveries queued per round trip. */
const ENQUEUE_CHUNK = 500;

/** The engine field each task kind is looked up in; a domain task also matches e-mail domains and URL hosts (the engine's rule). */
export const TASK_FIELD: Record<TaskKind, FieldName> = { username: 'username', email: 'email', phone: 'phone', name: 'name', domain: 'domain' };

/** The text of a new report's inbox notice (its link: `/monitoring/reports/{id}`). */
export function reportNotice(results: number, well: string): string {
  return `New monitoring report: ${results} result${results === 1 ? '' : 's'} in ${well}`;
}

function isUnknownSegment(error: unknown): boolean {
  return error instanceof EngineError && error.code === 'invalid_argument' && /unknown segment/.test(error.message);
}

export interface MatchOutcome {
  /** False when the segment is not one to match (unknown to the database, or a baseline). */
  matched: boolean;
  tasksMatched: number;
  reportsWritten: number;
  deliveriesQueued: number;
}

export function createMatcher(deps: { db: Kysely<Database>; engine: Engine; queues: QueueSystem; log: FastifyBaseLogger }) {
  const { db, engine, queues, log } = deps;

  /** The engine's matches of one batch; a segment it does not know yet is looked for once more after a refresh. */
  async function matchBatch(segmentId: string, watches: WatchInput[]): Promise<WatchMatch[]> {
    const options = { limit: REPORT_RECORDS_PER_TASK };
    try {
      return await engine.matchWatches(segmentId, watches, options);
    } catch (error) {
      if (!isUnknownSegment(error)) throw error;
      // Published by another process a moment ago: pick it up and try again. Still unknown,
      // the job fails and BullMQ retries it later.
      await engine.refresh();
      return engine.matchWatches(segmentId, watches, options);
    }
  }

  async function matchSegment(segmentId: string): Promise<MatchOutcome> {
    const segment = await repo.findSegment(db, segmentId);
    // Old data (baseline) raises no alert; an id the ingest never recorded is not ours.
    if (!segment || segment.status === 'baseline') return { matched: false, tasksMatched: 0, reportsWritten: 0, deliveriesQueued: 0 };

    const byUser = new Map<string, repo.ReportTaskInput[]>();
    let tasksMatched = 0;
    for await (const batch of repo.activeTaskBatches(db, MATCH_BATCH_SIZE)) {
      const tasks = new Map(batch.map((t) => [t.id, t]));
      const matches = await matchBatch(
        segmentId,
        batch.map((t) => ({ id: t.id, field: TASK_FIELD[t.kind], value: t.match_value })),
      );
      for (const match of matches) {
        const task = tasks.get(match.id);
        if (!task || match.total === 0) continue;
        tasksMatched++;
        const list = byUser.get(task.user_id) ?? [];
        list.push({ taskId: task.id, kind: task.kind, value: task.value, resultsCount: match.total, recordIds: match.recordIds });
        byUser.set(task.user_id, list);
      }
    }

    let reportsWritten = 0;
    const users = [...byUser.entries()];
    const writeNext = async (): Promise<void> => {
      for (let next = users.pop(); next; next = users.pop()) {
        const [userId, tasks] = next;
        const id = await repo.writeReport(db, {
          userId,
          segmentId,
          well: segment.well_name,
          tasks,
          notice: (results) => reportNotice(results, segment.well_name),
        });
        if (id) reportsWritten++;
      }
    };
    await Promise.all(Array.from({ length: REPORT_CONCURRENCY }, writeNext));

    // Every delivery of this segment still pending, not only the ones just written: a run
    // that crashed after its commits and before this point is repaired by the next run.
    const deliveries = await repo.pendingDeliveriesOfSegment(db, segmentId);
    for (let i = 0; i < deliveries.length; i += ENQUEUE_CHUNK) {
      await queues.enqueueMany(
        'deliver',
        deliveries.slice(i, i + ENQUEUE_CHUNK).map((deliveryId) => ({ data: { deliveryId }, jobId: `deliver-${deliveryId}` })),
      );
    }
    await repo.markSegmentMatched(db, segmentId, tasksMatched);
    log.info({ segment: segmentId, tasksMatched, reportsWritten, deliveriesQueued: deliveries.length }, 'segment matched');
    return { matched: true, tasksMatched, reportsWritten, deliveriesQueued: deliveries.length };
  }

  return { matchSegment };
}

export type Matcher = ReturnType<typeof createMatcher>;
