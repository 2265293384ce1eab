/**
 * The `monitor-match` job (docs/monitoring.md "Segment", "Report"): every active task against one
 * published segment, through the engine's `matchWatches` (cost follows the segment's
 * terms looked up, not a scan per task), then one report per user (written a few hundred
 * users to a statement, once whatever the number of runs), then the deliveries queued.
 */
import type { Kysely } from 'kysely';
import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../db/schema';
import type { QueueSystem } from '../infra/queues';
import { EngineError, type Engine, type FieldName, type WatchInput, type WatchMatch } from '../../../engine/index';
import { REPORT_RECORDS_PER_TASK, type TaskKind } from '../common/monitoring-rules';
import * as repo from './matching-repository';

/** Watches sent to the engine per call (every active task of 100,000 goes in one call; ids are unique per call). */
export const MATCH_BATCH_SIZE = 250_000;
/** Users' reports per statement (one transaction each), and their tasks at most. */
const REPORT_CHUNK_USERS = 200;
const REPORT_CHUNK_TASKS = 2_000;
/** Report statements running at once. */
const REPORT_CONCURRENCY = 2;
/** Deliveries queued per round trip. */
const ENQUEUE_CHUNK = 500;

/** The engine field each task kind is looked up in; a domain task also matches e-mail domains and URL hosts (the engine's rule). */
export const TASK_FIELD: Record<TaskKind, FieldName> = { username: 'username', email: 'email', phone: 'phone', name: 'name', domain: 'domain' };

/** The text of a new report's inbox notice (its link: `/monitoring/reports/{id}`). */
export function reportNotice(results: number, well: string): string {
  return `New monitoring report: ${results} result${results === 1 ? '' : 's'} in ${well}`;
}

/**
 * Every active task of an open account as one engine watch (id, field, normalised value),
 * read in one query (repo.watchedTasks): the match job's first step, also timed by the bench.
 */
export async function activeWatches(db: Kysely<Database>): Promise<WatchInput[]> {
  const watches: WatchInput[] = [];
  for (const group of await repo.watchedTasks(db)) {
    const field = TASK_FIELD[group.kind];
    for (let i = 0; i < group.ids.length; i++) watches.push({ id: group.ids[i]!, field, value: group.values[i]! });
  }
  return watches;
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

type MatcherDeps = { db: Kysely<Database>; engine: Engine; queues: QueueSystem; log: FastifyBaseLogger };

export function createMatcher(deps: MatcherDeps) {
  return { matchSegment: (segmentId: string) => matchSegment(deps, segmentId) };
}

/** The engine's matches of one batch; a segment it does not know yet is looked for once more after a refresh. */
async function matchBatch(engine: Engine, segmentId: string, watches: WatchInput[]): Promise<WatchMatch[]> {
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

/** The tasks with a match in the segment, by task id; as few engine calls as possible (each walks the segment's dictionaries once). */
async function findMatches(engine: Engine, segmentId: string, watches: WatchInput[]): Promise<Map<string, WatchMatch>> {
  const found = new Map<string, WatchMatch>();
  for (let i = 0; i < watches.length; i += MATCH_BATCH_SIZE) {
    for (const match of await matchBatch(engine, segmentId, watches.slice(i, i + MATCH_BATCH_SIZE))) {
      if (match.total > 0) found.set(match.id, match);
    }
  }
  return found;
}

/** Owner and value as entered, for the matched tasks only (still active, account open), grouped by user. */
async function matchedTasksByUser(db: Kysely<Database>, found: Map<string, WatchMatch>) {
  const byUser = new Map<string, repo.ReportTaskInput[]>();
  let tasksMatched = 0;
  for (const task of await repo.matchedTaskDetails(db, [...found.keys()])) {
    const match = found.get(task.id);
    if (!match) continue;
    tasksMatched++;
    const list = byUser.get(task.user_id) ?? [];
    list.push({ taskId: task.id, kind: task.kind, value: task.value, resultsCount: match.total, recordIds: match.recordIds });
    byUser.set(task.user_id, list);
  }
  return { byUser, tasksMatched };
}

/**
 * The users' reports in chunks of one statement each, users in a fixed order (so two runs
 * of one segment take the report rows' locks in the same order).
 */
function reportChunks(byUser: Map<string, repo.ReportTaskInput[]>): repo.UserReportInput[][] {
  const users = [...byUser.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const chunks: repo.UserReportInput[][] = [];
  let chunk: repo.UserReportInput[] = [];
  let chunkTasks = 0;
  for (const [userId, tasks] of users) {
    if (chunk.length > 0 && (chunk.length >= REPORT_CHUNK_USERS || chunkTasks + tasks.length > REPORT_CHUNK_TASKS)) {
      chunks.push(chunk);
      chunk = [];
      chunkTasks = 0;
    }
    chunk.push({ userId, tasks });
    chunkTasks += tasks.length;
  }
  if (chunk.length > 0) chunks.push(chunk);
  return chunks;
}

/** Writes the chunks, REPORT_CONCURRENCY statements at once; answers how many reports were new. */
async function writeReportChunks(db: Kysely<Database>, segmentId: string, well: string, chunks: repo.UserReportInput[][]): Promise<number> {
  let reportsWritten = 0;
  const writeNext = async (): Promise<void> => {
    for (let next = chunks.shift(); next; next = chunks.shift()) {
      const written = await repo.writeReports(db, { segmentId, well, reports: next, notice: (results) => reportNotice(results, well) });
      reportsWritten += written;
    }
  };
  await Promise.all(Array.from({ length: REPORT_CONCURRENCY }, writeNext));
  return reportsWritten;
}

/**
 * Every delivery of this segment still pending into the deliver queue, not only the ones
 * just written: a run that crashed after its commits and before this point is repaired by
 * the next run.
 */
async function queueDeliveries(db: Kysely<Database>, queues: QueueSystem, segmentId: string): Promise<number> {
  const deliveries = await repo.pendingDeliveriesOfSegment(db, segmentId);
  for (let i = 0; i < deliveries.length; i += ENQUEUE_CHUNK) {
    await queues.enqueueMany(
      'deliver',
      deliveries.slice(i, i + ENQUEUE_CHUNK).map((deliveryId) => ({ data: { deliveryId }, jobId: `deliver-${deliveryId}` })),
    );
  }
  return deliveries.length;
}

async function matchSegment(deps: MatcherDeps, segmentId: string): Promise<MatchOutcome> {
  const { db, log } = deps;
  const segment = await repo.findSegment(db, segmentId);
  // Old data (baseline) raises no alert; an id the ingest never recorded is not ours.
  if (!segment || segment.status === 'baseline') return { matched: false, tasksMatched: 0, reportsWritten: 0, deliveriesQueued: 0 };

  // Only id, kind and match_value of every task, in one query.
  const started = performance.now();
  const watches = await activeWatches(db);
  const readMs = performance.now() - started;
  const found = await findMatches(deps.engine, segmentId, watches);
  const matchMs = performance.now() - started - readMs;
  const { byUser, tasksMatched } = await matchedTasksByUser(db, found);
  const detailsMs = performance.now() - started - readMs - matchMs;
  const reportsWritten = await writeReportChunks(db, segmentId, segment.well_name, reportChunks(byUser));
  const reportsMs = performance.now() - started - readMs - matchMs - detailsMs;
  const deliveriesQueued = await queueDeliveries(db, deps.queues, segmentId);
  await repo.markSegmentMatched(db, segmentId, tasksMatched);
  const ms = { read: Math.round(readMs), match: Math.round(matchMs), details: Math.round(detailsMs), reports: Math.round(reportsMs), total: Math.round(performance.now() - started) };
  log.info({ segment: segmentId, tasksMatched, reportsWritten, deliveriesQueued, ms }, 'segment matched');
  return { matched: true, tasksMatched, reportsWritten, deliveriesQueued };
}
