/** The gauges of metrics.ts: the queues and the index, read at each scrape. */
import fs from 'node:fs';
import path from 'node:path';
import { Gauge, type Counter, type Registry } from 'prom-client';
import type { Engine } from '../../../engine/index';
import type { QueueSystem } from '../infra/queues';
import { treeBytes } from '../infra/tree-bytes';

/** Whether a published segment is a merge (it lists the ingests it holds) rather than one ingest. */
function isMerge(indexDir: string, segmentId: string): boolean {
  try {
    const meta = JSON.parse(fs.readFileSync(path.join(indexDir, `seg-${segmentId}`, 'segment.json'), 'utf8')) as { sources?: unknown[] };
    return Array.isArray(meta.sources);
  } catch {
    return false;
  }
}

export function registerQueueGauge(registry: Registry, queues: QueueSystem) {
  new Gauge({
    name: 'leakwell_queue_jobs',
    help: 'Jobs in each queue by state (waiting, active, delayed, failed).',
    labelNames: ['queue', 'state'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      const counts = await queues.counts().catch(() => undefined);
      for (const [queue, states] of Object.entries(counts ?? {})) {
        for (const [state, n] of Object.entries(states)) this.set({ queue, state }, n);
      }
    },
  });
}

/**
 * The index: records, segments, removed records, generation and bytes, read at each scrape;
 * the segments seen appearing since the last read are counted in `published`.
 */
export function registerIndexGauges(registry: Registry, sources: { engine?: Engine; indexDir: string }, published: Counter<'kind'>) {
  const { engine, indexDir } = sources;
  let seen: Set<string> | undefined;
  let bytes = { generation: -1, value: 0 };
  const indexStats = async () => {
    if (!engine) return undefined;
    const stats = await engine.stats().catch(() => undefined);
    if (!stats) return undefined;
    if (seen) {
      for (const id of stats.segmentIds) if (!seen.has(id)) published.inc({ kind: isMerge(indexDir, id) ? 'merge' : 'ingest' });
    }
    seen = new Set(stats.segmentIds);
    if (bytes.generation !== stats.generation) bytes = { generation: stats.generation, value: treeBytes(indexDir) };
    return stats;
  };
  void indexStats();
  // One read of the stats per scrape, shared by the gauges (collected concurrently).
  let pending: { at: number; stats: ReturnType<typeof indexStats> } | undefined;
  const scrapeStats = () => {
    if (!pending || Date.now() - pending.at > 500) pending = { at: Date.now(), stats: indexStats() };
    return pending.stats;
  };
  const indexGauge = (name: 'records' | 'segments' | 'removed' | 'generation' | 'bytes', help: string) =>
    new Gauge({
      name: `leakwell_index_${name}`,
      help,
      registers: [registry],
      async collect() {
        const stats = await scrapeStats();
        if (stats) this.set(name === 'bytes' ? bytes.value : stats[name]);
      },
    });
  indexGauge('records', 'Records in the index (removed ones included: they stay hidden until a merge drops them).');
  indexGauge('removed', 'Records removed (tombstoned) and not yet dropped by a merge.');
  indexGauge('segments', 'Published segments (many more than the ingest\'s merge threshold means merges are behind).');
  indexGauge('generation', 'Manifest generation: every ingest, merge or removal bumps it.');
  indexGauge('bytes', 'Bytes of the index folder on disk.');
}
