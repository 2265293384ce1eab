/**
 * Matching as the other features and the tools see it: a published ingest segment recorded
 * for matching (the data wells' ingest), and the match job's first step, the watch list it
 * reads, with the batch size it sends the engine (the monitoring benchmark times them).
 */
export { recordSegment, type PublishedSegment } from './matching-repository';
export { MATCH_BATCH_SIZE, activeWatches } from './matching';
