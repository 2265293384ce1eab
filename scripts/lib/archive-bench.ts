// The bench's row for compressed inputs: the same sample of corpus sources ingested as plain
// files, as gzip files, as one zip and as one tar.zst, one ingest each into a scratch index.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { gzipSync } from 'node:zlib';
import { ingestFiles } from '../../engine/index';
import type { CorpusSource } from '../corpus';
import { makeTar, makeZip } from './archives';

/** Records of whole sources taken for the sample (enough for a steady rate, short enough for a row). */
const SAMPLE_RECORDS = 500_000;

export async function compressedIngestRows(sources: CorpusSource[], dir: string, log: (s: string) => void): Promise<string[]> {
  const picked: CorpusSource[] = [];
  let sampled = 0;
  for (const s of sources) {
    if (sampled >= SAMPLE_RECORDS) break;
    picked.push(s);
    sampled += s.records;
  }
  const work = join(dir, 'archive-bench');
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  try {
    const members = picked.map((s) => ({ name: relative(dir, s.file), data: readFileSync(s.file) }));
    const inputs: [string, string[]][] = [['plain files', picked.map((s) => s.file)]];
    inputs.push(['gzip files (.jsonl.gz, …)', members.map((m, i) => {
      const f = join(work, `${i}.gz`);
      writeFileSync(f, gzipSync(m.data));
      return f;
    })]);
    writeFileSync(join(work, 'corpus.zip'), makeZip(members));
    inputs.push(['one zip (deflate)', [join(work, 'corpus.zip')]]);
    writeFileSync(join(work, 'corpus.tar'), makeTar(members));
    if (spawnSync('zstd', ['-q', '-3', '-f', '--rm', join(work, 'corpus.tar'), '-o', join(work, 'corpus.tar.zst')]).status === 0) {
      inputs.push(['one tar.zst', [join(work, 'corpus.tar.zst')]]);
    } else {
      inputs.push(['one tar (no zstd command for tar.zst)', [join(work, 'corpus.tar')]]);
    }
    const rows = [
      `Compressed inputs: ${picked.length} sources, ${sampled.toLocaleString('en-US')} records, one ingest each into a scratch index (no merge).`,
      '',
      '| input | on disk | ingest | records/s | reading thread CPU (decoding, parsing) |',
      '|---|---|---|---|---|',
    ];
    for (const [i, [label, files]] of inputs.entries()) {
      const index = join(work, `index-${i}`);
      const t = performance.now();
      const r = await ingestFiles(index, { well: 'Archive Bench', files, maxSegments: 0 });
      const ms = performance.now() - t;
      const bytes = files.reduce((n, f) => n + statSync(f).size, 0);
      log(`bench: ingest of ${label}: ${r.records.toLocaleString('en-US')} records in ${(ms / 1000).toFixed(1)} s`);
      rows.push(`| ${label} | ${(bytes / 1e6).toFixed(0)} MB | ${(ms / 1000).toFixed(2)} s | ${Math.round(r.records / (ms / 1000)).toLocaleString('en-US')} | ${(r.timing.readerCpuMs / 1000).toFixed(2)} s |`);
      rmSync(index, { recursive: true, force: true });
    }
    return rows;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
