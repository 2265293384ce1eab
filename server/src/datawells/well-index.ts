/**
 * The index as the operator commands on wells see it: its published segments and the
 * ingests each holds (to share a segment's bytes among its wells), and the engine opened
 * for one edit (a rename or a takedown in `wells.log`, engine/FORMAT.md).
 */
import fs from 'node:fs';
import path from 'node:path';
import { openEngine, type Engine } from '../../../engine/index';
import { treeBytes } from '../infra/tree-bytes';

export interface SegmentSources {
  id: string;
  records: number;
  bytes: number;
  /** Source id (an ingest's segment id) -> its records in this segment. */
  sources: Map<string, number>;
}

/** The published segments and the ingests each holds (segment.json, `sources` when merged). */
export function readSegments(indexDir: string): SegmentSources[] {
  let manifest: { segments: { id: string }[] };
  try {
    manifest = JSON.parse(fs.readFileSync(path.join(indexDir, 'MANIFEST'), 'utf8')) as typeof manifest;
  } catch {
    return [];
  }
  return manifest.segments.map(({ id }) => {
    const dir = path.join(indexDir, `seg-${id}`);
    const meta = JSON.parse(fs.readFileSync(path.join(dir, 'segment.json'), 'utf8')) as { id: string; records: number; sources?: { id: string; records: number }[] };
    const sources = new Map<string, number>((meta.sources ?? [{ id: meta.id, records: meta.records }]).map((s) => [s.id, s.records]));
    return { id, records: meta.records, bytes: treeBytes(dir), sources };
  });
}

/**
 * A well's share of the index bytes: each segment holding one of its ingests counts in
 * proportion to the records it holds there (a merged segment's bytes are not kept per well).
 */
export function wellIndexBytes(segments: SegmentSources[], sourceIds: string[]): number {
  let bytes = 0;
  for (const seg of segments) {
    const mine = sourceIds.reduce((n, id) => n + (seg.sources.get(id) ?? 0), 0);
    if (mine > 0 && seg.records > 0) bytes += (seg.bytes * mine) / seg.records;
  }
  return Math.round(bytes);
}

/** Opens the index, runs `fn`, closes it. */
export async function withIndex<T>(indexDir: string, fn: (engine: Engine) => Promise<T>): Promise<T> {
  const engine = await openEngine(indexDir);
  try {
    return await fn(engine);
  } finally {
    await engine.close();
  }
}
