// `npm run ingest -- --samples`: the fictitious sample wells of samples/breaches, each
// ingested as `npm run ingest -- --well NAME …` would ingest it, with the name, date,
// description, sensitive flag and column mapping its manifest (wells.json) gives.
//
// A well is ingested once: a sample whose name the catalogue (or, without it, the index)
// already has is skipped, so a second run adds nothing.

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { FIELD_NAMES, type IngestProgress, type IngestResult } from '../../engine/index';
import { parseIngestArgs, publishedSegments, resolveIndexDir, runIngest } from '../ingest';

/** samples/breaches of the repository (and of the production artifact, scripts/artifact.sh). */
export const BREACH_SAMPLES_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../samples/breaches');

/** One entry of samples/breaches/wells.json. */
export interface SampleWell {
  file: string;
  name: string;
  /** YYYY-MM-DD, or null: a well whose breach date is unknown. */
  date: string | null;
  description: string;
  sensitive: boolean;
  /** `--map` items (column=field), for columns the alias table does not know. */
  map?: string[];
}

/** The manifest, checked: a wrong entry is an error naming it, before anything is ingested. */
export function readSampleWells(dir = BREACH_SAMPLES_DIR): SampleWell[] {
  const wells = JSON.parse(readFileSync(path.join(dir, 'wells.json'), 'utf8')) as SampleWell[];
  if (!Array.isArray(wells)) throw new Error(`${dir}/wells.json: expected an array of wells`);
  const names = new Set<string>();
  for (const w of wells) {
    const where = `${dir}/wells.json: ${JSON.stringify(w?.name ?? w)}`;
    if (typeof w?.file !== 'string' || path.basename(w.file) !== w.file) throw new Error(`${where}: "file" must be a file name in the folder`);
    if (typeof w.name !== 'string' || w.name.trim() === '' || names.has(w.name)) throw new Error(`${where}: "name" must be a unique, non-empty name`);
    if (w.date !== null && !(typeof w.date === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(w.date))) throw new Error(`${where}: "date" must be YYYY-MM-DD or null`);
    if (typeof w.description !== 'string' || typeof w.sensitive !== 'boolean') throw new Error(`${where}: "description" (text) and "sensitive" (true or false) are required`);
    for (const item of w.map ?? []) {
      if (!(FIELD_NAMES as readonly string[]).includes(item.split('=')[1] ?? '')) throw new Error(`${where}: map ${item}: expected column=field with a known field`);
    }
    names.add(w.name);
  }
  return wells;
}

/** The ingest command's arguments for one sample well. */
export function sampleArgs(well: SampleWell, dir: string, indexDir: string, catalogue: boolean): string[] {
  return [
    '--well', well.name,
    ...(well.date ? ['--date', well.date] : []),
    '--description', well.description,
    ...(well.sensitive ? ['--sensitive'] : []),
    ...(well.map?.length ? ['--map', well.map.join(',')] : []),
    '--index-dir', indexDir,
    ...(catalogue ? [] : ['--no-catalogue']),
    path.join(dir, well.file),
  ];
}

/**
 * The wells already there: the index's ingests (their current names; a taken-down one is
 * not there any more) and, with the catalogue, its wells.
 */
async function knownWells(indexDir: string, catalogue: boolean): Promise<Set<string>> {
  const known = new Set(publishedSegments(indexDir).map((s) => s.well));
  if (!catalogue) return known;
  const { withDatabase } = await import('../../server/src/db/cli-database');
  const rows = await withDatabase((db) => db.selectFrom('data_wells').select('name').execute());
  for (const row of rows) known.add(row.name);
  return known;
}

export interface SamplesOutcome {
  ingested: { well: SampleWell; result: IngestResult }[];
  /** Sample wells skipped because a well of that name is there already. */
  skipped: SampleWell[];
}

export interface SamplesOptions {
  indexDir?: string;
  catalogue: boolean;
  /** The folder holding wells.json and its files (default: samples/breaches). */
  dir?: string;
  /** Told before each well: ingested (with its result) or skipped. */
  onWell?: (well: SampleWell, result: IngestResult | 'skipped') => void;
  onProgress?: () => (p: IngestProgress) => void;
}

/** Ingests every sample well of the manifest that is not there yet, one ingest per well. */
export async function ingestSamples(o: SamplesOptions): Promise<SamplesOutcome> {
  const dir = o.dir ?? BREACH_SAMPLES_DIR;
  const wells = readSampleWells(dir);
  const indexDir = await resolveIndexDir(o.indexDir);
  const known = await knownWells(indexDir, o.catalogue);
  const outcome: SamplesOutcome = { ingested: [], skipped: [] };
  for (const well of wells) {
    if (known.has(well.name)) {
      outcome.skipped.push(well);
      o.onWell?.(well, 'skipped');
      continue;
    }
    const result = await runIngest(parseIngestArgs(sampleArgs(well, dir, indexDir, o.catalogue)), o.onProgress?.());
    outcome.ingested.push({ well, result });
    o.onWell?.(well, result);
  }
  return outcome;
}

/** What the command prints for one well. */
export function describeSample(well: SampleWell, result: IngestResult | 'skipped', catalogue: boolean): string {
  if (result === 'skipped') return `${well.name}: skipped, ${catalogue ? 'the catalogue or the index' : 'the index'} has a well of that name already`;
  const formats = [...new Set(result.files.map((f) => f.format))].join(', ');
  return `${well.name} (${well.date ?? 'no date'}${well.sensitive ? ', sensitive' : ''}): ${result.records.toLocaleString('en-US')} records, ${formats}; ${result.fields.join(', ')}`;
}
